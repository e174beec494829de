import { Hono, type Context } from "hono";
import type { Ledger } from "../journal/ledger.ts";
import type { ModelRouter } from "../relay/model-router.ts";
import type { Relay } from "../relay/relay.ts";
import { ROUTES, type RouteSpec } from "../relay/route-spec.ts";
import type { ConnectionInfo, FetchHandler } from "../runtime/runtime.ts";
import { newEntryId } from "../shared/entry-id.ts";
import { RelayError } from "../shared/relay-error.ts";
import { errorResponse, wireOf } from "./error-envelope.ts";
import { modelList } from "./model-list.ts";
import { requestIdFor } from "./request-id.ts";

/** What the HTTP layer serves. */
export interface AppDeps {
  readonly relay: Relay;
  readonly router: ModelRouter;
  readonly ledger: Ledger;
  /** Extra routes (admin API), mounted under /admin. */
  readonly admin?: Hono<HttpEnv>;
  /** False while shutting down: new calls get 503. */
  readonly accepting: () => boolean;
}

/** Per-request values handed to Hono handlers. */
export interface HttpEnv {
  Bindings: ConnectionInfo;
  Variables: { id: string; requestId: string; receivedAt: number; startedAt: number };
}

/** Builds the Hono app and returns its fetch handler. */
export function createHttpHandler(deps: AppDeps): FetchHandler {
  const app = new Hono<HttpEnv>();

  app.use(async (c, next) => {
    const startedAt = performance.now();
    const receivedAt = Date.now();
    const id = newEntryId(receivedAt);
    c.set("id", id);
    c.set("startedAt", startedAt);
    c.set("receivedAt", receivedAt);
    c.set("requestId", requestIdFor(c.req.raw.headers, id));
    await next();
    c.res.headers.set("x-request-id", c.get("requestId"));
  });

  for (const route of ROUTES.values()) {
    app.post(route.path, (c) => relayCall(c, route));
    app.all(route.path, (c) => fail(c, new RelayError(405, "method_not_allowed", `Method ${c.req.method} is not allowed on ${route.path}; use POST`)));
  }

  app.get("/v1/models", (c) => {
    const key = deps.relay.authenticate(c.req.raw);
    return c.json(modelList(deps.router.modelsFor(key), wireOf(c.req.path, c.req.raw.headers)));
  });
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    const ready = deps.accepting() && (await deps.ledger.ready());
    return c.json({ status: ready ? "ready" : "unready", storage: ready ? "ok" : "unavailable" }, ready ? 200 : 503);
  });
  if (deps.admin) app.route("/admin", deps.admin);

  app.notFound((c) => fail(c, new RelayError(404, "route_not_found", `No route for ${c.req.method} ${c.req.path}`)));
  app.onError((error, c) => {
    if (error instanceof RelayError) return fail(c, error);
    console.error(`renio: internal error on ${c.req.method} ${c.req.path}: ${error instanceof Error ? error.message : String(error)}`);
    return fail(c, new RelayError(500, "internal_error", "Renio hit an internal error; the request was not completed"));
  });

  const relayCall = (c: Context<HttpEnv>, route: RouteSpec) => {
    if (!deps.accepting()) throw new RelayError(503, "shutting_down", "Renio is shutting down; retry on another instance");
    return deps.relay.call({
      route,
      request: c.req.raw,
      clientAddress: c.env.remoteAddress,
      id: c.get("id"),
      startedAt: c.get("startedAt"),
      receivedAt: c.get("receivedAt"),
    });
  };
  const fail = (c: Context<HttpEnv>, error: RelayError) =>
    errorResponse(error, ROUTES.get(c.req.path)?.wire ?? wireOf(c.req.path, c.req.raw.headers), c.get("requestId") ?? "");

  return (request, info) => app.fetch(request, info);
}
