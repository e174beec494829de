import { z } from "zod";
import { nameMap } from "./schema-maps.ts";
import { anthropicFields } from "./anthropic-schema.ts";
import { azureFields } from "./azure-schema.ts";
import { bedrockFields, checkBedrockRegion } from "./bedrock-schema.ts";
import { guardrailsSchema } from "./guardrails-schema.ts";
import { loggingSchema } from "./logging-schema.ts";
import { mockFields } from "./mock-schema.ts";
import { openAiFields } from "./openai-schema.ts";
import { priceSchema } from "./price-schema.ts";
import { rateLimitsSchema } from "./rate-limit-schema.ts";
import { redisSchema } from "./redis-schema.ts";
import { cacheSchema } from "./cache-schema.ts";
import { adminOidcSchema } from "./admin-oidc-schema.ts";
import { durationMs, positiveInt } from "./schema-numbers.ts";
import { tracingSchema } from "./tracing-schema.ts";
import { checkGeminiRegion, vertexSchema } from "./vertex-schema.ts";
import { routedModelSchema, routingSchema, targetRoutingFields } from "./routing-schema.ts";
import { idText, nameText } from "./schema-text.ts";
import { attributionFields, teamSchema } from "./attribution-schema.ts";
import { budgetSchema } from "./budget-schema.ts";

export { budgetSchema, budgetScope } from "./budget-schema.ts";

const timeouts = {
  /** Time allowed to connect to the upstream (ms). */
  connectTimeoutMs: positiveInt.default(10_000).describe("no connection within this: 504 `upstream_timeout` (retried)"),
  /** Time allowed until the upstream's first response byte (ms). */
  firstByteTimeoutMs: positiveInt.default(120_000).describe("no response headers within this: 504 `upstream_timeout` (retried)"),
};

/** OpenAI wire format (fields in openai-schema.ts). */
const openAiProvider = z.strictObject({ ...openAiFields, ...timeouts });

/** Anthropic's Messages API (fields in anthropic-schema.ts). */
const anthropicProvider = z.strictObject({ ...anthropicFields, ...timeouts });

/** Azure OpenAI (fields in azure-schema.ts). */
const azureProvider = z.strictObject({ ...azureFields, ...timeouts });

/** Google Gemini (Generative Language API with `apiKey`, or Vertex AI), offered as OpenAI chat/completions. */
const geminiProvider = z
  .strictObject({
    type: z.literal("gemini").describe("`openai` (any OpenAI-compatible `baseUrl`), `anthropic`, `azure`, `gemini`, `bedrock` or `mock`"),
    /** Default: the Generative Language API, or the Vertex location's endpoint. */
    baseUrl: z.url().optional().describe("the provider's URL (`openai`: including `/v1`; `azure`: the resource endpoint; `mock`: a `renio mock`)"),
    apiKey: z.string().optional().describe("the provider's key (usually `${ENV}`); `azure`: exactly one of `apiKey` or `entra`"),
    vertex: vertexSchema.optional().describe("`gemini`: serve through Vertex AI instead of the Generative Language API"),
    /** Default: `global`, or the Vertex location's region (`eu` for europe-*); a contradicting value is an error. */
    region: nameText().optional().describe("the region label keys' `regions` match; must not contradict the region the URL or location names"),
    headers: z.record(z.string(), z.string()).default({}).describe("headers added to every upstream request"),
    ...timeouts,
  })
  .superRefine(checkGeminiRegion);

/** The built-in mock (fields in mock-schema.ts). */
const mockProvider = z.strictObject({ ...mockFields, ...timeouts });

/** AWS Bedrock; fields and region rule in bedrock-schema.ts. */
const bedrockProvider = z.strictObject({ ...bedrockFields, ...timeouts }).superRefine(checkBedrockRegion);

/** Any configured provider, by `type`. */
export const providerSchema = z.discriminatedUnion("type", [openAiProvider, anthropicProvider, azureProvider, geminiProvider, mockProvider, bedrockProvider]);

/** One place a public model name is served. */
const modelTarget = z.strictObject({
  provider: nameText().describe("a provider id"),
  /** Upstream model name; defaults to the public name. */
  model: nameText().optional().describe("the upstream model name"),
  /** Translate the caller's wire format into the provider's when it speaks only the other one (docs/translation.md). */
  translate: z.boolean().default(false).describe("callers of the other wire format may reach this target (translation.md)"),
  /** With `translate`: drop parameters the provider has no equivalent for instead of refusing the call. */
  dropUnsupported: z.boolean().default(false).describe("drop parameters translation cannot carry instead of refusing the call"),
  ...targetRoutingFields,
});

/** One target, a list of them, or `{ targets, fallbacks, retry, … }` (routing-schema.ts). */
const modelEntry = z.union([modelTarget, z.array(modelTarget).min(1), routedModelSchema(modelTarget)]);

const keySchema = z.strictObject({
  id: nameText().describe("the key's name, in the journal, logs and metrics"),
  /** The key itself (usually `${ENV_VAR}`), or `sha256:<64 hex>` of it. */
  secret: z.string().min(8, "must be at least 8 characters (or sha256:<hex>)").describe("`${ENV}` or `sha256:<hex>`; plaintext is hashed at startup and dropped"),
  project: nameText().default("default").describe("the project the key's calls count for"),
  /** Public model names this key may use; `*` allows all. */
  models: z.array(nameText()).default(["*"]).describe("public model names the key may call; also bounds the fallbacks that may serve it"),
  /** Provider regions this key's data may go to; absent allows all. */
  regions: z.array(nameText()).optional().describe("provider regions the key's calls may go to"),
  ...attributionFields,
});

/** What an admin token may do: `read` every admin GET (every role implies it), `keys` / `budgets` change those, `admin` everything. */
export const ADMIN_ROLES = ["read", "keys", "budgets", "admin"] as const;
/** One admin role. */
export type AdminRole = (typeof ADMIN_ROLES)[number];

const adminTokenSchema = z.strictObject({
  /** Who acts: recorded as the actor of its admin actions (never the secret). */
  id: idText(/^[A-Za-z0-9_.:-]+$/, "use letters, digits, _ . : -").describe("the actor recorded for the token's actions"),
  /** The token itself (usually `${ENV_VAR}`, at least 16 characters), or `sha256:<64 hex>` of it. */
  secret: z.string().min(16, "must be at least 16 characters (or sha256:<hex>)").describe("`${ENV}` (≥ 16 characters) or `sha256:<hex>` of it; only the hash is kept"),
  roles: z.array(z.enum(ADMIN_ROLES)).min(1).describe("any of `read`, `keys`, `budgets`, `admin`"),
});

/** Where alerts are delivered: a URL whose requests are signed with the secret (HMAC-SHA256). */
const webhookSchema = z.strictObject({
  id: idText(/^[A-Za-z0-9_.:-]+$/, "use letters, digits, _ . : -").describe("the name budgets refer to"),
  url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).describe("http or https"),
  /** The HMAC key (usually `${ENV_VAR}`), at least 16 characters. */
  secret: z.string().min(16, "must be at least 16 characters").describe("HMAC key of the `renio-signature` header (`${ENV}`, ≥ 16 characters)"),
  /** One attempt is abandoned after this long (ms). */
  timeoutMs: positiveInt.default(5000).describe("one attempt's time"),
  /** Attempts before an event is marked failed. */
  maxAttempts: positiveInt.max(100).default(8).describe("attempts before the event is `failed`"),
});

const storageSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("sqlite").describe("`sqlite` (one relay) or `postgres` (several relays sharing budgets)"), path: z.string().min(1).default(".renio/renio.db").describe("SQLite: the database file, relative to the working directory; its admission log is `<path>-log/`") }),
  z.strictObject({ type: z.literal("postgres").describe("`sqlite` (one relay) or `postgres` (several relays sharing budgets)"), url: z.string().regex(/^postgres(ql)?:\/\//, "must start with postgres://").describe("PostgreSQL: `postgres://user:password@host:5432/db` (usually `${DATABASE_URL}`)"), poolSize: positiveInt.default(10).describe("PostgreSQL: connections in the pool") }),
]);

/** The whole Renio configuration. Unknown keys are errors everywhere. */
export const configSchema = z.strictObject({
  $schema: z.string().optional().describe("path of a JSON Schema for editor completion (`renio config schema > renio.schema.json`); ignored by Renio"),
  server: z
    .strictObject({
      host: z.string().min(1).default("127.0.0.1").describe("listen address; a non-loopback address requires `keys`, or `server.adminToken` to issue them at run time (`RENIO_HOST`, `--host`)"),
      port: z.number().int().min(0).max(65_535).default(8080).describe("listen port, 0 picks a free one (`RENIO_PORT`, `--port`)"),
      maxBodyBytes: positiveInt.default(10 * 1024 * 1024).describe("larger request bodies get 413"),
      /** A request body that sends no byte for this long (idle, since its last byte) gets 408 `request_timeout`. */
      bodyReadTimeoutMs: positiveInt.default(10_000).describe("a request body that sends no byte for this long gets 408 `request_timeout` in the route's envelope; an idle time since the last byte, not a total deadline, so a slow but steady upload is never cut"),
      /**
       * How the relay calls providers. `socket`: Renio's HTTP/1.1 client on the runtime's TCP/TLS
       * sockets (hands on every byte of a stream whose connection drops). `fetch`: the runtime's
       * fetch (Bun's can lose the last bytes of a cut stream). `node-http`: Node's http module on
       * Bun (cut-safe, costs CPU), on Deno its fetch. `auto`: the leaner measured on the runtime
       * (`socket` on Deno; on Bun `socket` while at most 8 calls are in flight, 16 for a streamed call, `fetch` above).
       * See docs/performance.md.
       */
      upstreamClient: z.enum(["auto", "socket", "fetch", "node-http"]).default("auto").describe("how the relay calls providers. `socket`: Renio's own HTTP/1.1 client on the runtime's TCP/TLS sockets (keep-alive pool, TLS verified with SNI; hands on every byte of a provider stream whose connection drops before the stream errors). `fetch`: the runtime's (Bun's can lose the last bytes of a cut stream). `node-http`: node:http on Bun (cut-safe but costly), Deno's fetch on Deno. `auto`: `socket` on Deno; on Bun `socket` while at most 8 calls are in flight (16 for a streamed call) and Bun's `fetch` above (decision). On Bun, `renio serve` starts with `BUN_CONFIG_MAX_HTTP_REQUESTS=65535` (unless set), so Bun's `fetch` never queues below `server.maxConcurrentCalls`. Restart to change"),
      /**
       * A client connection with no byte either way for this long is closed (s; 0: never; at most
       * 255, Bun's limit): between calls and while a request arrives. A call in progress is timed
       * by its own settings instead (its providers' firstByteTimeoutMs, routing.chunkTimeoutMs), so
       * a long silence of a reasoning model is not cut here. Deno's server has no such timeout.
       */
      idleTimeoutSeconds: z.number().int().min(0).max(255).default(120).describe("a client connection with no byte either way for this long is closed (seconds; 0: never; at most 255): between calls and while a request arrives. A call in progress is timed by its own settings instead (the provider's `firstByteTimeoutMs`, `routing.chunkTimeoutMs`). Bun only. Restart to change"),
      /**
       * How many event loops serve HTTP (Bun on Linux; Deno serves on one): each listens on the
       * same port and relays the calls its connections bring; the journal, budgets and rate limits
       * stay with the first. `auto`: one per available core. See docs/capacity.md.
       */
      eventLoops: z.union([z.literal("auto"), z.number().int().min(1).max(64)]).default(1).describe("how many event loops serve HTTP, 1-64 or `auto` (one per available core). With more than one, each listens on `server.port` (`SO_REUSEPORT`: the kernel spreads connections over them) and relays the calls its connections bring, while the journal, budgets, rate limits, the response cache's store, admin API, `/metrics` and the dashboard stay on the first, reached by messages; `server.maxConcurrentCalls` and `server.maxQueuedCalls` are split between the loops. Bun on Linux; Deno serves on one loop whatever the setting. See capacity.md. Restart to change"),
      /** Calls served at once (a stream holds its slot until it ends); above it calls wait (maxQueuedCalls, queueTimeoutMs) or get 503 `overloaded`. */
      maxConcurrentCalls: positiveInt.max(65_535).default(8192).describe("calls served at once, from arrival to their last byte (a stream holds its slot until it ends); above it a call waits or gets 503 `overloaded` with `retry-after: 1`, journaled as refused. At most 65535; see capacity.md"),
      /** Calls waiting for a slot at once; more get 503 `overloaded` at once. */
      maxQueuedCalls: z.number().int().min(0).max(65_535).default(1024).describe("calls that wait for a slot at once (in arrival order); more get 503 `overloaded` at once; 0: none waits"),
      /** How long a call waits for a slot before it gets 503 `overloaded` (ms; 0: no wait). */
      queueTimeoutMs: durationMs.default(5000).describe("how long a call waits for a slot before it gets 503 `overloaded`; 0: no wait"),
      shutdownGraceMs: durationMs.default(10_000).describe("on SIGTERM/SIGINT, how long in-flight calls may finish"),
      /** Token for /admin/* routes (usually `${ENV_VAR}`); admin routes are off without it. */
      adminToken: z.string().min(16, "must be at least 16 characters").optional().describe("one admin token (≥ 16 characters) with id `admin` and role `admin` (`RENIO_ADMIN_TOKEN`); the same as an entry of `server.admin.tokens`; every admin token can also read `/metrics`"),
      /**
       * HMAC key of stored keys' secrets (usually `${ENV_VAR}`); absent: generated once and kept in
       * the store. The same on every relay and CLI sharing a store.
       */
      keySecret: z.string().min(32, "must be at least 32 characters").optional().describe("HMAC key of stored keys' secrets (≥ 32 characters, usually `${ENV}`); the same on every relay and CLI sharing a store (keys.md)"),
      /** How often a relay polls the store for keys changed by others (ms). */
      keyRefreshMs: z.number().int().min(50).max(60_000).default(1000).describe("how often a relay polls the store for keys changed by other instances (50–60000)"),
      /** Admin API access: tokens with roles, and optionally its own listener. */
      admin: z
        .strictObject({
          /** Listen address of a separate admin listener (default: the model listener's host when `port` is set). */
          host: z.string().min(1).optional().describe("listen address of the admin listener (needs `server.admin.port`)"),
          /** Port of a separate admin listener; when set, admin routes are served only there. */
          port: z.number().int().min(0).max(65_535).optional().describe("serve the admin routes (and the dashboard) on their own listener, and only there; 0 picks a free one"),
          tokens: z.array(adminTokenSchema).default([]).describe("admin tokens; without any admin token (and no `server.admin.oidc`) no `/admin/*` route exists (404). See Admin access"),
          /** Sign-in with an OpenID Connect provider (admin-oidc-schema.ts); absent: admin tokens only. */
          oidc: adminOidcSchema.optional().describe("sign-in to the dashboard and the admin API with an OpenID Connect provider (code flow with PKCE); see Sign in with your identity provider. Restart to change it"),
        })
        .prefault({}).describe("admin API access: tokens with roles, and optionally a listener of its own"),
      /** Token for GET /metrics only (Prometheus); the admin token is accepted too. /metrics is off without either. */
      metricsToken: z.string().min(16, "must be at least 16 characters").optional().describe("a token for `GET /metrics` only (≥ 16 characters); `/metrics` is off when no admin token and no metrics token is set"),
    })
    .prefault({}).describe("the listeners, limits on calls, admin and metrics access"),
  metrics: z
    .strictObject({
      /** Also label call metrics by key id (one series set per key: mind the cardinality). */
      perKeyLabels: z.boolean().default(false).describe("also label call metrics by key id (observability.md)"),
    })
    .prefault({}).describe("Prometheus options"),
  storage: storageSchema.prefault({ type: "sqlite" }).describe("where the journal and the budgets live (storage.md); restart to change"),
  logging: loggingSchema.prefault({}).describe("the call log on stdout"),
  journal: z
    .strictObject({
      /** false runs without a journal (and so without budgets): for measuring what the journal costs. */
      enabled: z.boolean().default(true).describe("`false` runs without journal and budgets (only to measure their cost)"),
      durability: z.enum(["fsync", "process"]).default("fsync").describe("`fsync`: each admission survives power loss; `process`: survives a killed process, not power loss"),
      bodies: z.enum(["none", "request", "full"]).default("none").describe("`request` or `full` also store bodies (capped); headers and keys never"),
      bodyMaxBytes: positiveInt.default(64 * 1024).describe("cap per stored body"),
      retentionDays: positiveInt.optional().describe("prune finished entries older than this, in the background, in small batches"),
      /**
       * The journal is behind when a record (a completion, a refusal; on SQLite any record) has
       * waited longer than this to be written to the database (ms): /readyz answers 503 and
       * `renio_journal_behind` is 1 until it catches up.
       */
      maxLagMs: positiveInt.default(10_000).describe("the journal is behind when a record has waited longer than this to be written to the database: `/readyz` 503, `renio_journal_behind` 1"),
      /** How often each relay checks the books' invariant (ms; 0: never); a check takes longer on a larger journal, and the next waits at least 50 times as long. */
      booksCheckMs: z.number().int().min(0).default(60_000).describe("how often each relay checks the books' invariant (0: never; the next check waits at least 50 times as long as the last took); restart to change"),
    })
    .prefault({}).describe("the journal (journal.md)"),
  budget: z
    .strictObject({
      currency: z.string().regex(/^[A-Z]{3}$/, "use an ISO 4217 code such as USD or EUR").default("USD").describe("ISO 4217 code of every amount (prices and limits); nothing is converted"),
      mode: z.enum(["strict", "observe"]).default("strict").describe("default mode of budgets: `strict` refuses, `observe` only records"),
      /** What to do with a model that has no price under a strict budget. */
      unpricedModels: z.enum(["refuse", "free"]).default("refuse").describe("under a strict budget a model without a price is refused; `free` charges it 0"),
      /**
       * Under a strict budget, the bound on the uses of per-use server tools a request leaves
       * unbounded: Renio adds it in the field the wire format has (`max_tool_calls` on the
       * Responses API, each Anthropic web search / fetch tool's `max_uses`), so the provider
       * enforces it, and reserves that many uses.
       */
      maxToolCalls: positiveInt.default(2).describe("under a strict budget, the bound on uses of per-use server tools a request leaves unbounded: added as `max_tool_calls` (`/v1/responses`) or an Anthropic web search / fetch tool's `max_uses`, and reserved"),
      /**
       * Output tokens reserved for a call that sets no output limit (and, under a strict budget,
       * added to it, so the provider enforces them): one number for every model, or per model
       * (public or upstream name; `*` for the rest), never above the model's `maxOutputTokens`.
       * Unset: the model's `maxOutputTokens`, else 4096.
       */
      defaultOutputTokens: z.union([positiveInt, z.record(z.string().min(1), positiveInt)]).optional().describe("output tokens reserved for a call that sets no output limit (and, under a strict budget, sent as its limit): a number, or per model (`{\"*\": 16000, \"gpt-5\": 32000}`), never above the model's maximum"),
      /**
       * How often a relay checks the store for budgets created, changed or deleted elsewhere
       * (another relay, or `renio budgets --config`), in ms: one read of a version counter.
       */
      storePollMs: positiveInt.default(1000).describe("how often a relay reads the store's budget version to pick up budgets changed elsewhere (Budgets at run time)"),
    })
    .prefault({}).describe("defaults of every budget (budgets.md)"),
  providers: nameMap(idText(/^[A-Za-z0-9_-]+$/, "use letters, digits, _ -"), providerSchema).describe("the provider accounts calls are sent to, each under an id you choose"),
  models: nameMap(nameText(), modelEntry).describe("the public model names callers send, each served by one or more provider targets"),
  /** Retries, cooldowns and deadlines of every model (models may override; docs/routing.md). */
  routing: routingSchema.describe("defaults of every model"),
  keys: z.array(keySchema).default([]).describe("Renio keys of the config (more can be issued at run time: keys.md)"),
  budgets: z.array(budgetSchema).default([]).describe("budgets of the config (more can be created at run time)"),
  /** Named groups of projects: budgets and reports by team (docs/budgets.md). */
  teams: z.array(teamSchema).default([]).describe("named groups of projects (more can be created at run time: `POST /admin/teams`)"),
  rateLimits: rateLimitsSchema.describe("rate limits: a list (in memory, per relay), or an object with `store`, `onStoreDown`, `relays`, `leaseMs` and `limits` (rate-limits.md)"),
  /** The Redis server shared rate limits and the shared cache use (docs/running-several.md). */
  redis: redisSchema.optional().describe("the Redis server shared rate limits and the shared cache use (running-several.md)"),
  /** The response cache (docs/cache.md); absent: no call is cached. */
  cache: cacheSchema.optional().describe("the response cache (cache.md); absent: no call is cached"),
  /** Webhook targets of budget alerts and crash notices, and how they are delivered (docs/observability.md). */
  alerts: z
    .strictObject({
      webhooks: z.array(webhookSchema).default([]).describe("webhook targets"),
      /** The webhook told about reservations a crash left pending (`journal.interrupted`); none: not sent. */
      interruptedWebhook: nameText().optional().describe("webhook told about reservations a crash left pending (`journal.interrupted`)"),
      /** How often each relay looks for events to deliver (ms). */
      pollMs: positiveInt.default(1000).describe("how often each relay looks for events to deliver"),
      /** Delay before the first retry (ms), doubled per attempt (with jitter) up to maxBackoffMs. */
      backoffMs: positiveInt.default(1000).describe("first retry delay, doubled per attempt up to the maximum (with jitter)"),
      maxBackoffMs: positiveInt.default(300_000).describe("first retry delay, doubled per attempt up to the maximum (with jitter)"),
    })
    .prefault({}).describe("webhook targets of budget alerts and crash notices (Alerts)"),
  prices: nameMap(nameText(), priceSchema).default(() => new Map()).describe("model prices by model name, over the built-in table"),
  tracing: tracingSchema.prefault({}).describe("OTLP/HTTP span export (Tracing); restart to change"),
  /** Policies that detect, redact, pseudonymise or block personal data and credentials in calls (docs/guardrails.md). */
  guardrails: guardrailsSchema.prefault({}).describe("detectors and policies"),
});

/** Validated configuration, defaults applied. */
export type Config = z.infer<typeof configSchema>;
/** One provider's settings. */
export type ProviderConfig = z.infer<typeof providerSchema>;
/** One model entry as configured (a target, a list, or the object form). */
export type ModelEntryConfig = z.infer<typeof modelEntry>;
/** One model target's settings. */
export type ModelTargetConfig = z.infer<typeof modelTarget>;
/** One Renio key's settings. */
export type KeyConfig = Config["keys"][number];
/** One admin token's settings. */
export type AdminTokenConfig = Config["server"]["admin"]["tokens"][number];
/** One budget's settings. */
export type BudgetConfig = Config["budgets"][number];
/** One alert webhook's settings. */
export type WebhookConfig = Config["alerts"]["webhooks"][number];
/** One rate limit's settings. */
export type RateLimitConfig = Config["rateLimits"]["limits"][number];
/** Where rate limits live and what happens when that store is down. */
export type RateLimitsConfig = Config["rateLimits"];
/** One model's price (per million tokens). */
export type PriceConfig = z.infer<typeof priceSchema>;
/** Tracing settings. */
export type TracingConfig = Config["tracing"];
/** Where the journal and budgets are stored. */
export type StorageConfig = Config["storage"];
