import { Hono, type Context } from "hono";
import type { Ledger } from "../journal/ledger.ts";
import type { Relay } from "../relay/relay.ts";
import { ROUTES, type RouteSpec } from "../shared/route-spec.ts";
import type { ConnectionInfo, FetchHandler } from "../runtime/runtime.ts";
import { newEntryId } from "../shared/entry-id.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { WireFormat } from "../shared/usage.ts";
import type { AdminActor } from "./admin/admin-auth.ts";
import { errorResponse, wireOf } from "./error-envelope.ts";
import { modelList } from "./model-list.ts";
import { requestIdFor } from "./request-id.ts";
import { requestTargetRefusal, targetOf } from "./request-target.ts";
import { TAP_END_REASONS } from "../usage/usage-tap.ts";

/** What the HTTP layer serves. */
export interface AppDeps {
  /** The model routes and /v1/models (absent on a separate admin listener). */
  readonly relay?: Relay;
  readonly ledger: Ledger;
  /** The admin API, mounted under /admin (absent on a model listener when admin routes listen apart). */
  readonly admin?: Hono<HttpEnv>;
  /** The dashboard page, mounted at /dashboard beside the admin API (dashboard-routes.ts). */
  readonly dashboard?: Hono<HttpEnv>;
  /** False while shutting down: new calls get 503. */
  readonly accepting: () => boolean;
  /** GET /metrics (Prometheus text format); absent: no such route. */
  readonly metrics?: MetricsRoute;
  /** Models every target of which is cooling down (shown by /readyz). */
  readonly coolingDown?: () => string[];
  /** `journal.maxLagMs` in force: /readyz answers 503 while the journal's oldest unwritten record is older (absent: no bound). */
  readonly journalMaxLagMs?: () => number;
}

/** What GET /metrics serves. */
export interface MetricsRoute {
  /** Throws RelayError 401 unless the request may read metrics. */
  readonly authorize: (headers: Headers) => void;
  /** The page, in the text exposition format. */
  readonly page: () => Promise<string>;
  readonly contentType: string;
}

/** Per-request values handed to Hono handlers. */
export interface HttpEnv {
  Bindings: ConnectionInfo;
  /** Set on admin routes once the admin token is checked: read it with `adminActor(c)` (admin-auth.ts). */
  Variables: { adminActor?: AdminActor };
}

/**
 * Builds the Hono app and returns its fetch handler. Model calls take the shortest path
 * (no middleware); every response carries `x-request-id`. `/healthz` and `/readyz` are served
 * on every listener; `/dashboard` (when given) beside the admin API.
 */
export function createHttpHandler(deps: AppDeps): FetchHandler {
  const app = new Hono<HttpEnv>();
  if (deps.relay !== undefined) modelRoutes(app, deps.relay, deps.accepting);
  app.get("/healthz", (c) => respond(c, () => c.json({ status: "ok" })));
  app.get("/readyz", (c) =>
    respond(c, async () => {
      const storage = deps.accepting() && (await deps.ledger.ready());
      // A journal that falls behind (a store that answers pings but does not take its records) is unready too.
      const lagMs = deps.ledger.stats().applyLagMs;
      const behind = deps.journalMaxLagMs !== undefined && lagMs > deps.journalMaxLagMs();
      const ready = storage && !behind;
      // Rounded up: a lag just past the bound never reads as the bound itself.
      const journal = behind ? { journal: "behind", journal_lag_ms: Math.ceil(lagMs) } : {};
      // Upstreams down do not make the relay unready (every instance shares them): /readyz names the models that cannot be served now.
      const cooling = deps.coolingDown?.() ?? [];
      const routing = cooling.length === 0 ? {} : { cooling_down: cooling };
      return c.json({ status: ready ? "ready" : "unready", storage: storage ? "ok" : "unavailable", ...journal, ...routing }, ready ? 200 : 503);
    }),
  );
  const metrics = deps.metrics;
  if (metrics) {
    app.get("/metrics", (c) =>
      respond(c, async () => {
        metrics.authorize(c.req.raw.headers);
        return new Response(await metrics.page(), { headers: { "content-type": metrics.contentType, "cache-control": "no-store" } });
      }),
    );
  }
  if (deps.admin) {
    app.use("/admin/*", (c, next) =>
      respond(c, async () => {
        // The store closes during shutdown; say so instead of failing on it.
        if (!deps.accepting()) throw new RelayError(503, "shutting_down", "Renio is shutting down; the admin API is unavailable");
        await next();
        return c.res;
      }),
    );
  }
  if (deps.admin) app.route("/admin", deps.admin);
  if (deps.admin && deps.dashboard) app.route("/dashboard", deps.dashboard);

  app.notFound((c) => respond(c, () => {
    throw new RelayError(404, "route_not_found", `No route for ${c.req.method} ${c.req.path}`);
  }));
  app.onError((error, c) => failure(error, wireOf(c.req.path, c.req.raw.headers), requestIdOf(c), c.req.path));

  return (request, info) => {
    // The one check of the request target's text, before routing (request-target.ts).
    const refusal = requestTargetRefusal(request.url);
    if (refusal === undefined) return app.fetch(request, info);
    const path = targetOf(request.url).split("?")[0] ?? "/";
    return failure(refusal, ROUTES.get(path)?.wire ?? wireOf(path, request.headers), requestIdFor(request.headers, newEntryId()), path);
  };
}

/** The model call routes (POST only) and `GET /v1/models`. */
function modelRoutes(app: Hono<HttpEnv>, relay: Relay, accepting: () => boolean): void {
  const relayCall = async (c: Context<HttpEnv>, route: RouteSpec): Promise<Response> => {
    const startedAt = performance.now();
    const receivedAt = Date.now();
    const id = newEntryId(receivedAt);
    const request = c.req.raw;
    const requestId = requestIdFor(request.headers, id);
    try {
      if (!accepting()) throw new RelayError(503, "shutting_down", "Renio is shutting down; retry on another instance");
      return await relay.call({ route, request, clientAddress: c.env.remoteAddress, id, requestId, startedAt, receivedAt, untimed: c.env.untimed });
    } catch (error) {
      return failure(error, route.wire, requestId, c.req.path);
    }
  };

  for (const route of ROUTES.values()) {
    app.post(route.path, (c) => relayCall(c, route));
    app.all(route.path, (c) => respond(c, () => {
      throw new RelayError(405, "method_not_allowed", `Method ${c.req.method} is not allowed on ${route.path}; use POST`);
    }));
  }

  // In Anthropic's shape (an `anthropic-version` header) only the models /v1/messages serves; else those the OpenAI routes serve.
  app.get("/v1/models", (c) =>
    respond(c, () => {
      const wire = wireOf(c.req.path, c.req.raw.headers);
      return c.json(modelList(relay.modelsFor(c.req.raw, wire), wire));
    }),
  );
}

/** Runs a non-call handler, mapping errors and adding `x-request-id` (and Anthropic's `request-id` for an Anthropic-style caller). */
async function respond(c: Context<HttpEnv>, handle: () => Response | Promise<Response>): Promise<Response> {
  const requestId = requestIdOf(c);
  const wire = ROUTES.get(c.req.path)?.wire ?? wireOf(c.req.path, c.req.raw.headers);
  let response: Response;
  try {
    response = await handle();
  } catch (error) {
    return failure(error, wire, requestId, c.req.path);
  }
  response.headers.set("x-request-id", requestId);
  if (wire === "anthropic") response.headers.set("request-id", requestId);
  return response;
}

function requestIdOf(c: Context<HttpEnv>): string {
  return requestIdFor(c.req.raw.headers, newEntryId());
}

/**
 * The answer to an error that escaped every handler, which the runtime hands back (Bun's
 * `error`, Deno's `onError`) instead of its own page (Bun's shows a stack and source): a 500 in
 * the OpenAI envelope with a fresh request id, the error's message on stderr.
 */
export function lastResortResponse(error: unknown): Response {
  // Deno hands over a response body's error too, after the answer started: a cut the call log has told already.
  if (TAP_END_REASONS.has(error)) return new Response(null, { status: 502 });
  return failure(error, "openai", newEntryId(), "a request");
}

/** The one place an error becomes a response; unexpected errors are logged without a stack. */
function failure(error: unknown, wire: WireFormat, requestId: string, path: string): Response {
  if (error instanceof RelayError) return errorResponse(error, wire, requestId);
  console.error(`renio: internal error on ${path}: ${error instanceof Error ? error.message : String(error)}`);
  return errorResponse(new RelayError(500, "internal_error", "Renio hit an internal error; the request was not completed"), wire, requestId);
}
