import { hostileHeader, hostileObject, hostileString, hostileValue, pathSegment, PROTOTYPE_NAMES } from "./hostile-values.ts";
import type { Prng } from "./prng.ts";

/** One request of a property run, described for the failure message. */
export interface HostileRequest {
  readonly name: string;
  readonly method: string;
  /** Path and query, already encoded. */
  readonly target: string;
  readonly headers: Record<string, string>;
  /** A JSON body (serialized here), raw bytes, or none. */
  readonly body?: { json: unknown } | { raw: Uint8Array };
  /** Whether it goes to the admin API (needs the admin token). */
  readonly admin: boolean;
}

/** The keys and tokens a run's relay is configured with. */
export interface Credentials {
  readonly key: string;
  readonly adminToken: string;
}

const MODEL_ROUTES = ["/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/embeddings", "/v1/messages", "/v1/messages/count_tokens"] as const;
const MODELS = ["mock-gpt", "mock-claude"] as const;

/** A model name: configured, or hostile. */
function model(rng: Prng): unknown {
  return rng.chance(0.35) ? rng.pick(MODELS) : hostileValue(rng);
}

/** A body for a model route: the fields the route reads, each hostile or fine, and hostile extra fields. */
function modelBody(rng: Prng, route: (typeof MODEL_ROUTES)[number]): Record<string, unknown> {
  const content = rng.chance(0.5) ? hostileValue(rng) : "hi";
  const body: Record<string, unknown> =
    route === "/v1/responses"
      ? { model: model(rng), input: content }
      : route === "/v1/embeddings"
        ? { model: model(rng), input: content }
        : route === "/v1/completions"
          ? { model: model(rng), prompt: content }
          : { model: model(rng), messages: rng.chance(0.8) ? [{ role: rng.chance(0.8) ? "user" : hostileValue(rng), content }] : hostileValue(rng) };
  if (rng.chance(0.5)) body[route.startsWith("/v1/messages") ? "max_tokens" : route === "/v1/responses" ? "max_output_tokens" : "max_tokens"] = rng.chance(0.6) ? 1 + rng.int(32) : hostileValue(rng);
  if (route.startsWith("/v1/messages") && body["max_tokens"] === undefined && rng.chance(0.7)) body["max_tokens"] = 16;
  if (rng.chance(0.3)) body["stream"] = rng.chance(0.6) ? rng.chance(0.5) : hostileValue(rng);
  if (rng.chance(0.2)) body["stream_options"] = hostileValue(rng);
  if (rng.chance(0.2)) body["service_tier"] = hostileValue(rng);
  if (rng.chance(0.2)) body["metadata"] = hostileObject(rng);
  if (rng.chance(0.2)) body["user"] = hostileValue(rng);
  // A field named after a prototype member, with any value.
  if (rng.chance(0.3)) Object.defineProperty(body, rng.pick(PROTOTYPE_NAMES), { value: hostileValue(rng), enumerable: true, writable: true, configurable: true });
  return body;
}

/** Headers of a model call: the key (sometimes a hostile one), and hostile request ids, deadlines and versions. */
function modelHeaders(rng: Prng, credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (rng.chance(0.9)) headers[rng.chance(0.5) ? "authorization" : "x-api-key"] = rng.chance(0.85) ? (rng.chance(0.5) ? `Bearer ${credentials.key}` : credentials.key) : hostileHeader(rng);
  if (headers["x-api-key"]?.startsWith("Bearer ")) headers["x-api-key"] = credentials.key;
  if (rng.chance(0.4)) headers["x-request-id"] = hostileHeader(rng);
  if (rng.chance(0.2)) headers["x-renio-timeout-ms"] = hostileHeader(rng);
  if (rng.chance(0.2)) headers["anthropic-version"] = hostileHeader(rng);
  if (rng.chance(0.1)) headers["anthropic-beta"] = hostileHeader(rng);
  return headers;
}

/** A query string of hostile names and values. */
function hostileQuery(rng: Prng, names: readonly string[]): string {
  const pairs: string[] = [];
  for (const name of names) if (rng.chance(0.6)) pairs.push(`${name}=${pathSegment(hostileString(rng))}`);
  if (rng.chance(0.3)) pairs.push(`${pathSegment(hostileString(rng))}=${pathSegment(hostileString(rng))}`);
  return pairs.length === 0 ? "" : `?${pairs.join("&")}`;
}

type Generator = (rng: Prng, credentials: Credentials) => HostileRequest;

const admin = (name: string, method: string, target: string, credentials: Credentials, body?: unknown): HostileRequest => ({
  name,
  method,
  target: `/admin${target}`,
  headers: { authorization: `Bearer ${credentials.adminToken}`, "content-type": "application/json" },
  ...(body === undefined ? {} : { body: { json: body } }),
  admin: true,
});

/** A budget body: hostile ids and scopes; a limit too large to refuse anything, and never paused (the good call after it must be served). */
function budgetBody(rng: Prng): Record<string, unknown> {
  const scope = rng.pick([() => "total", () => ({ project: hostileValue(rng) }), () => ({ key: hostileValue(rng) }), () => hostileValue(rng)])();
  return {
    id: rng.chance(0.5) ? rng.pick(PROTOTYPE_NAMES) : hostileValue(rng),
    scope,
    period: rng.chance(0.7) ? rng.pick(["total", "month", "day"]) : hostileValue(rng),
    // A hostile limit is never a number: a small one would (rightly) refuse the good calls that follow.
    limit: rng.chance(0.8) ? 9_000_000 : hostileString(rng),
    ...(rng.chance(0.3) ? { mode: rng.chance(0.5) ? "observe" : hostileValue(rng) } : {}),
  };
}

const GENERATORS: readonly Generator[] = [
  // Model routes, every field hostile in turn.
  (rng, c) => {
    const route = rng.pick(MODEL_ROUTES);
    return { name: `POST ${route}`, method: "POST", target: route, headers: modelHeaders(rng, c), body: { json: modelBody(rng, route) }, admin: false };
  },
  (rng, c) => {
    const route = rng.pick(MODEL_ROUTES);
    return { name: `POST ${route} (a body that is not a JSON object)`, method: "POST", target: route, headers: modelHeaders(rng, c), body: { json: hostileValue(rng) }, admin: false };
  },
  (rng, c) => {
    const route = rng.pick(MODEL_ROUTES);
    const bytes = rng.pick([new Uint8Array([0x7b, 0x00, 0x7d]), new Uint8Array([0xff, 0xfe, 0x00]), new TextEncoder().encode('{"model":"mock-gpt\u0000"}'), new Uint8Array([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])]);
    return { name: `POST ${route} (raw bytes)`, method: "POST", target: route, headers: modelHeaders(rng, c), body: { raw: bytes }, admin: false };
  },
  (rng, c) => {
    const route = rng.pick(MODEL_ROUTES);
    return { name: `${route} with a hostile path or query`, method: rng.pick(["POST", "GET", "PUT"]), target: `${route}${rng.chance(0.5) ? `/${pathSegment(hostileString(rng))}` : ""}${hostileQuery(rng, ["model", "stream", "x"])}`, headers: modelHeaders(rng, c), body: { json: modelBody(rng, route) }, admin: false };
  },
  (rng, c) => ({ name: "GET /v1/models", method: "GET", target: `/v1/models${hostileQuery(rng, ["limit", "after"])}`, headers: modelHeaders(rng, c), admin: false }),
  (rng, c) => ({ name: "an unknown path", method: rng.pick(["GET", "POST", "DELETE"]), target: `/${pathSegment(hostileString(rng))}/${pathSegment(hostileString(rng))}`, headers: modelHeaders(rng, c), admin: false }),
  // The admin API: budgets, keys, the journal, the audit, reports and the dashboard's data.
  (rng, c) => admin("POST /admin/budgets", "POST", "/budgets", c, rng.chance(0.9) ? budgetBody(rng) : hostileValue(rng)),
  (rng, c) => admin("PATCH /admin/budgets/{id}", "PATCH", `/budgets/${pathSegment(rng.chance(0.5) ? rng.pick(PROTOTYPE_NAMES) : hostileString(rng))}`, c, rng.pick([{ limit: 9_000_000 }, { mode: hostileValue(rng) }, { limit: hostileString(rng) }, hostileObject(rng)])),
  (rng, c) => admin("DELETE /admin/budgets/{id}", "DELETE", `/budgets/${pathSegment(rng.chance(0.5) ? rng.pick(PROTOTYPE_NAMES) : hostileString(rng))}`, c),
  (rng, c) =>
    admin("POST /admin/keys", "POST", "/keys", c, {
      ...(rng.chance(0.7) ? { id: rng.chance(0.5) ? rng.pick(PROTOTYPE_NAMES) : hostileValue(rng) } : {}),
      ...(rng.chance(0.7) ? { project: hostileValue(rng) } : {}),
      ...(rng.chance(0.4) ? { models: rng.chance(0.7) ? [rng.chance(0.5) ? rng.pick(MODELS) : hostileValue(rng)] : hostileValue(rng) } : {}),
      ...(rng.chance(0.3) ? { regions: [hostileValue(rng)] } : {}),
      ...(rng.chance(0.4) ? { metadata: rng.chance(0.8) ? hostileObject(rng) : hostileValue(rng) } : {}),
    }),
  (rng, c) => admin("PATCH /admin/keys/{id}", "PATCH", `/keys/${pathSegment(rng.chance(0.3) ? "test" : rng.chance(0.5) ? rng.pick(PROTOTYPE_NAMES) : hostileString(rng))}`, c, { project: hostileValue(rng), ...(rng.chance(0.3) ? { metadata: hostileObject(rng) } : {}) }),
  (rng, c) => admin("POST /admin/keys/{id}/rotate", "POST", `/keys/${pathSegment(rng.chance(0.5) ? rng.pick(PROTOTYPE_NAMES) : hostileString(rng))}/rotate`, c, rng.chance(0.5) ? { graceSeconds: hostileValue(rng) } : {}),
  (rng, c) => admin("DELETE /admin/keys/{id}", "DELETE", `/keys/${pathSegment(rng.chance(0.5) ? rng.pick(PROTOTYPE_NAMES) : hostileString(rng))}`, c),
  (rng, c) => admin("GET /admin/keys", "GET", `/keys${rng.chance(0.3) ? `/${pathSegment(hostileString(rng))}` : hostileQuery(rng, ["project", "status", "source"])}`, c),
  (rng, c) => admin("GET /admin/journal", "GET", `/journal${hostileQuery(rng, ["key", "request_id", "outcome", "since", "until", "cursor", "limit"])}`, c),
  (rng, c) => admin("GET /admin/journal/{id}", "GET", `/journal/${pathSegment(hostileString(rng))}`, c),
  (rng, c) => admin("GET /admin/audit", "GET", `/audit${hostileQuery(rng, ["actor", "action", "target", "since", "cursor", "limit"])}`, c),
  (rng, c) => admin("GET /admin/report", "GET", `/report${hostileQuery(rng, ["by", "period", "since", "until"])}`, c),
  (rng, c) => admin("GET /admin/dashboard/usage", "GET", `/dashboard/${rng.pick(["usage", "overview"])}${hostileQuery(rng, ["by", "since", "until", "bucket", "model", "key"])}`, c),
  (rng, c) => admin("GET /admin/alerts", "GET", `/alerts${hostileQuery(rng, ["status", "limit", "cursor"])}`, c),
  (rng, c) => admin("GET /admin/budgets", "GET", `/budgets${hostileQuery(rng, ["period", "x"])}`, c),
  (rng, c) => ({ ...admin("an admin route with a hostile token", rng.pick(["GET", "POST"]), rng.pick(["/budgets", "/keys", "/journal"]), c, {}), headers: { authorization: `Bearer ${hostileHeader(rng)}`, "content-type": "application/json" } }),
];

/** The longest request target a client sends (Deno's fetch refuses a URL of 64 KiB or more). */
const MAX_TARGET = 60_000;

/** One hostile request, drawn from every kind the public and the admin API take. */
export function hostileRequest(rng: Prng, credentials: Credentials): HostileRequest {
  const request = rng.pick(GENERATORS)(rng, credentials);
  if (request.target.length <= MAX_TARGET) return request;
  // Cut before a partial `%XX` escape.
  return { ...request, target: request.target.slice(0, MAX_TARGET).replace(/%[0-9A-Fa-f]?$/, "") };
}

/** The request's body as bytes (JSON serialized: a lone surrogate is written as its `\u` escape, as clients do). */
export function bodyBytes(request: HostileRequest): Uint8Array<ArrayBuffer> | undefined {
  if (request.body === undefined) return undefined;
  if ("raw" in request.body) return new Uint8Array(request.body.raw);
  return new TextEncoder().encode(JSON.stringify(request.body.json));
}
