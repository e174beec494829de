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
import { amount, durationMs, positiveInt } from "./schema-numbers.ts";
import { tracingSchema } from "./tracing-schema.ts";
import { checkGeminiRegion, vertexSchema } from "./vertex-schema.ts";
import { routedModelSchema, routingSchema, targetRoutingFields } from "./routing-schema.ts";
import { idText, nameText } from "./schema-text.ts";

/** Largest budget limit: its billionths must stay an exact integer in a double. */
const MAX_LIMIT = 9_000_000;

const timeouts = {
  /** Time allowed to connect to the upstream (ms). */
  connectTimeoutMs: positiveInt.default(10_000),
  /** Time allowed until the upstream's first response byte (ms). */
  firstByteTimeoutMs: positiveInt.default(120_000),
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
    type: z.literal("gemini"),
    /** Default: the Generative Language API, or the Vertex location's endpoint. */
    baseUrl: z.url().optional(),
    apiKey: z.string().optional(),
    vertex: vertexSchema.optional(),
    /** Default: `global`, or the Vertex location's region (`eu` for europe-*); a contradicting value is an error. */
    region: nameText().optional(),
    headers: z.record(z.string(), z.string()).default({}),
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
  provider: nameText(),
  /** Upstream model name; defaults to the public name. */
  model: nameText().optional(),
  /** Translate the caller's wire format into the provider's when it speaks only the other one (docs/translation.md). */
  translate: z.boolean().default(false),
  /** With `translate`: drop parameters the provider has no equivalent for instead of refusing the call. */
  dropUnsupported: z.boolean().default(false),
  ...targetRoutingFields,
});

/** One target, a list of them, or `{ targets, fallbacks, retry, … }` (routing-schema.ts). */
const modelEntry = z.union([modelTarget, z.array(modelTarget).min(1), routedModelSchema(modelTarget)]);

const keySchema = z.strictObject({
  id: nameText(),
  /** The key itself (usually `${ENV_VAR}`), or `sha256:<64 hex>` of it. */
  secret: z.string().min(8, "must be at least 8 characters (or sha256:<hex>)"),
  project: nameText().default("default"),
  /** Public model names this key may use; `*` allows all. */
  models: z.array(nameText()).default(["*"]),
  /** Provider regions this key's data may go to; absent allows all. */
  regions: z.array(nameText()).optional(),
});

/** What an admin token may do: `read` every admin GET (every role implies it), `keys` / `budgets` change those, `admin` everything. */
export const ADMIN_ROLES = ["read", "keys", "budgets", "admin"] as const;
/** One admin role. */
export type AdminRole = (typeof ADMIN_ROLES)[number];

const adminTokenSchema = z.strictObject({
  /** Who acts: recorded as the actor of its admin actions (never the secret). */
  id: idText(/^[A-Za-z0-9_.:-]+$/, "use letters, digits, _ . : -"),
  /** The token itself (usually `${ENV_VAR}`, at least 16 characters), or `sha256:<64 hex>` of it. */
  secret: z.string().min(16, "must be at least 16 characters (or sha256:<hex>)"),
  roles: z.array(z.enum(ADMIN_ROLES)).min(1),
});

/** Which calls a budget covers. */
export const budgetScope = z.union([
  z.literal("total"),
  z.strictObject({ project: nameText() }),
  z.strictObject({ key: nameText() }),
]);

/** One budget: in the config's `budgets`, and the body that creates one at run time (admin API). */
export const budgetSchema = z.strictObject({
  id: idText(/^[A-Za-z0-9_.:-]+$/, "use letters, digits, _ . : -"),
  scope: budgetScope,
  period: z.enum(["total", "month", "day"]).default("month"),
  /** Amounts are kept exact to a billionth in 64-bit integers, which bounds a limit. */
  limit: amount.max(MAX_LIMIT, `must be at most ${MAX_LIMIT.toLocaleString("en-US")} (amounts are kept exact to a billionth)`),
  mode: z.enum(["strict", "observe"]).optional(),
  /** Webhook alerts when the amount spent (settled) in a period reaches a share of the limit (docs/observability.md). */
  alerts: z
    .strictObject({
      /** Percent of the limit, each fired once per period (default 50, 80, 100). */
      thresholds: z.array(z.number().gt(0).max(1000)).min(1).default([50, 80, 100]),
      /** The id of an `alerts.webhooks` entry. */
      webhook: nameText(),
    })
    .optional(),
});

/** Where alerts are delivered: a URL whose requests are signed with the secret (HMAC-SHA256). */
const webhookSchema = z.strictObject({
  id: idText(/^[A-Za-z0-9_.:-]+$/, "use letters, digits, _ . : -"),
  url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }),
  /** The HMAC key (usually `${ENV_VAR}`), at least 16 characters. */
  secret: z.string().min(16, "must be at least 16 characters"),
  /** One attempt is abandoned after this long (ms). */
  timeoutMs: positiveInt.default(5000),
  /** Attempts before an event is marked failed. */
  maxAttempts: positiveInt.max(100).default(8),
});

const storageSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("sqlite"), path: z.string().min(1).default(".renio/renio.db") }),
  z.strictObject({ type: z.literal("postgres"), url: z.string().regex(/^postgres(ql)?:\/\//, "must start with postgres://"), poolSize: positiveInt.default(10) }),
]);

/** The whole Renio configuration. Unknown keys are errors everywhere. */
export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  server: z
    .strictObject({
      host: z.string().min(1).default("127.0.0.1"),
      port: z.number().int().min(0).max(65_535).default(8080),
      maxBodyBytes: positiveInt.default(10 * 1024 * 1024),
      /** A request body that sends no byte for this long (idle, since its last byte) gets 408 `request_timeout`. */
      bodyReadTimeoutMs: positiveInt.default(10_000),
      /**
       * How the relay calls providers. `socket`: Renio's HTTP/1.1 client on the runtime's TCP/TLS
       * sockets (hands on every byte of a stream whose connection drops). `fetch`: the runtime's
       * fetch (Bun's can lose the last bytes of a cut stream). `node-http`: Node's http module on
       * Bun (cut-safe, costs CPU), on Deno its fetch. `auto`: the leaner measured on the runtime
       * (`socket` on Deno; on Bun `socket` while at most 8 calls are in flight, 16 for a streamed call, `fetch` above).
       * See docs/performance.md.
       */
      upstreamClient: z.enum(["auto", "socket", "fetch", "node-http"]).default("auto"),
      /**
       * A client connection with no byte either way for this long is closed (s; 0: never; at most
       * 255, Bun's limit): between calls and while a request arrives. A call in progress is timed
       * by its own settings instead (its providers' firstByteTimeoutMs, routing.chunkTimeoutMs), so
       * a long silence of a reasoning model is not cut here. Deno's server has no such timeout.
       */
      idleTimeoutSeconds: z.number().int().min(0).max(255).default(120),
      /** Calls served at once (a stream holds its slot until it ends); above it calls wait (maxQueuedCalls, queueTimeoutMs) or get 503 `overloaded`. */
      maxConcurrentCalls: positiveInt.max(65_535).default(8192),
      /** Calls waiting for a slot at once; more get 503 `overloaded` at once. */
      maxQueuedCalls: z.number().int().min(0).max(65_535).default(1024),
      /** How long a call waits for a slot before it gets 503 `overloaded` (ms; 0: no wait). */
      queueTimeoutMs: durationMs.default(5000),
      shutdownGraceMs: durationMs.default(10_000),
      /** Token for /admin/* routes (usually `${ENV_VAR}`); admin routes are off without it. */
      adminToken: z.string().min(16, "must be at least 16 characters").optional(),
      /**
       * HMAC key of stored keys' secrets (usually `${ENV_VAR}`); absent: generated once and kept in
       * the store. The same on every relay and CLI sharing a store.
       */
      keySecret: z.string().min(32, "must be at least 32 characters").optional(),
      /** How often a relay polls the store for keys changed by others (ms). */
      keyRefreshMs: z.number().int().min(50).max(60_000).default(1000),
      /** Admin API access: tokens with roles, and optionally its own listener. */
      admin: z
        .strictObject({
          /** Listen address of a separate admin listener (default: the model listener's host when `port` is set). */
          host: z.string().min(1).optional(),
          /** Port of a separate admin listener; when set, admin routes are served only there. */
          port: z.number().int().min(0).max(65_535).optional(),
          tokens: z.array(adminTokenSchema).default([]),
        })
        .prefault({}),
      /** Token for GET /metrics only (Prometheus); the admin token is accepted too. /metrics is off without either. */
      metricsToken: z.string().min(16, "must be at least 16 characters").optional(),
    })
    .prefault({}),
  metrics: z
    .strictObject({
      /** Also label call metrics by key id (one series set per key: mind the cardinality). */
      perKeyLabels: z.boolean().default(false),
    })
    .prefault({}),
  storage: storageSchema.prefault({ type: "sqlite" }),
  logging: loggingSchema.prefault({}),
  journal: z
    .strictObject({
      /** false runs without a journal (and so without budgets): for measuring what the journal costs. */
      enabled: z.boolean().default(true),
      durability: z.enum(["fsync", "process"]).default("fsync"),
      bodies: z.enum(["none", "request", "full"]).default("none"),
      bodyMaxBytes: positiveInt.default(64 * 1024),
      retentionDays: positiveInt.optional(),
      /**
       * The journal is behind when a record (a completion, a refusal; on SQLite any record) has
       * waited longer than this to be written to the database (ms): /readyz answers 503 and
       * `renio_journal_behind` is 1 until it catches up.
       */
      maxLagMs: positiveInt.default(10_000),
      /** How often each relay checks the books' invariant (ms; 0: never); a check takes longer on a larger journal, and the next waits at least 50 times as long. */
      booksCheckMs: z.number().int().min(0).default(60_000),
    })
    .prefault({}),
  budget: z
    .strictObject({
      currency: z.string().regex(/^[A-Z]{3}$/, "use an ISO 4217 code such as USD or EUR").default("USD"),
      mode: z.enum(["strict", "observe"]).default("strict"),
      /** What to do with a model that has no price under a strict budget. */
      unpricedModels: z.enum(["refuse", "free"]).default("refuse"),
      /**
       * Under a strict budget, the bound on the uses of per-use server tools a request leaves
       * unbounded: Renio adds it in the field the wire format has (`max_tool_calls` on the
       * Responses API, each Anthropic web search / fetch tool's `max_uses`), so the provider
       * enforces it, and reserves that many uses.
       */
      maxToolCalls: positiveInt.default(2),
      /**
       * Output tokens reserved for a call that sets no output limit (and, under a strict budget,
       * added to it, so the provider enforces them): one number for every model, or per model
       * (public or upstream name; `*` for the rest), never above the model's `maxOutputTokens`.
       * Unset: the model's `maxOutputTokens`, else 4096.
       */
      defaultOutputTokens: z.union([positiveInt, z.record(z.string().min(1), positiveInt)]).optional(),
      /**
       * How often a relay checks the store for budgets created, changed or deleted elsewhere
       * (another relay, or `renio budgets --config`), in ms: one read of a version counter.
       */
      storePollMs: positiveInt.default(1000),
    })
    .prefault({}),
  providers: nameMap(idText(/^[A-Za-z0-9_-]+$/, "use letters, digits, _ -"), providerSchema),
  models: nameMap(nameText(), modelEntry),
  /** Retries, cooldowns and deadlines of every model (models may override; docs/routing.md). */
  routing: routingSchema,
  keys: z.array(keySchema).default([]),
  budgets: z.array(budgetSchema).default([]),
  rateLimits: rateLimitsSchema.describe("rate limits: a list (in memory, per relay) or { store, onStoreDown, relays, leaseMs, limits } (rate-limits.md)"),
  /** The Redis server shared rate limits and the shared cache use (docs/running-several.md). */
  redis: redisSchema.optional().describe("the Redis shared rate limits and the shared cache use (running-several.md)"),
  /** The response cache (docs/cache.md); absent: no call is cached. */
  cache: cacheSchema.optional().describe("the response cache (cache.md); absent: no call is cached"),
  /** Webhook targets of budget alerts and crash notices, and how they are delivered (docs/observability.md). */
  alerts: z
    .strictObject({
      webhooks: z.array(webhookSchema).default([]),
      /** The webhook told about reservations a crash left pending (`journal.interrupted`); none: not sent. */
      interruptedWebhook: nameText().optional(),
      /** How often each relay looks for events to deliver (ms). */
      pollMs: positiveInt.default(1000),
      /** Delay before the first retry (ms), doubled per attempt (with jitter) up to maxBackoffMs. */
      backoffMs: positiveInt.default(1000),
      maxBackoffMs: positiveInt.default(300_000),
    })
    .prefault({}),
  prices: nameMap(nameText(), priceSchema).default(() => new Map()),
  tracing: tracingSchema.prefault({}),
  /** Policies that detect, redact, pseudonymise or block personal data and credentials in calls (docs/guardrails.md). */
  guardrails: guardrailsSchema.prefault({}),
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
