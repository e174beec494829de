import { createCallerIdentities } from "../../src/callers/call-identity.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateConfig } from "../../src/config/config-load.ts";
import type { Config } from "../../src/config/config-schema.ts";
import { createSqlLedger, type SqlLedger } from "../../src/journal/sql-ledger.ts";
import type { Provider } from "../../src/providers/provider.ts";
import { createCallPricing, type CallPricing } from "../../src/pricing/call-pricing.ts";
import { createKeyring } from "../../src/keys/keyring.ts";
import { createRateLimiter } from "../../src/limits/rate-limiter.ts";
import { createModelRouter } from "../../src/routing/model-router.ts";
import { createRelay, type Relay } from "../../src/relay/relay.ts";
import type { ConnectCheck } from "../../src/routing/upstream-connect.ts";
import { ROUTES } from "../../src/shared/route-spec.ts";
import { newEntryId } from "../../src/shared/entry-id.ts";
import type { JournalEntry } from "../../src/shared/journal-records.ts";
import type { Store } from "../../src/storage/store.ts";
import { openStore } from "./relay-calls.ts";
import { TEST_KEY } from "./relay-harness.ts";

/**
 * A relay (no HTTP server) whose only provider answers whatever the test hands it, journaling
 * to a real SQLite file with a total budget `all` of 100: models `mock-gpt` and `mock-claude`.
 */
export interface FakeProviderRelay {
  readonly config: Config;
  readonly store: Store;
  readonly ledger: SqlLedger;
  /** What the provider answers to the next calls. */
  answer: () => Response;
  /** Calls the provider received. */
  readonly sent: { count: number };
  /** A relay over the fake provider (optionally with another pricing or connection check). */
  relay(pricing?: CallPricing, connectCheck?: ConnectCheck): Relay;
  /** Calls `relay` on `path` with a JSON body, as the http layer would. */
  call(relay: Relay, path: string, body: Record<string, unknown>): Promise<Response>;
  /** The newest entry, after flushing batched completions. */
  newest(): Promise<JournalEntry>;
  close(): Promise<void>;
}

/** Creates the relay, its store in a fresh temp dir, and the fake provider. */
export async function createFakeProviderRelay(): Promise<FakeProviderRelay> {
  const dir = mkdtempSync(join(tmpdir(), "renio-fake-provider-"));
  const config = validateConfig({
    storage: { type: "sqlite", path: join(dir, "renio.db") },
    providers: { fake: { type: "openai", baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-unused" } },
    models: { "mock-gpt": { provider: "fake" }, "mock-claude": { provider: "fake" } },
    keys: [{ id: "test", secret: TEST_KEY, project: "tests" }],
    budgets: [{ id: "all", scope: "total", period: "total", limit: 100 }],
  }, {});
  const store = await openStore(config.storage);
  const ledger = createSqlLedger(store);
  const harness: FakeProviderRelay = {
    config,
    store,
    ledger,
    answer: () => Response.json({}),
    sent: { count: 0 },
    relay(pricing = createCallPricing(config), connectCheck) {
      const fake: Provider = {
        id: "fake",
        region: "local",
        wires: new Set(["openai", "anthropic"]),
        connectTimeoutMs: 1000,
        firstByteTimeoutMs: 5000,
        // Never dialled: only a test's own connection check sees it.
        endpoint: { hostname: "127.0.0.1", port: 9 },
        send: async () => (harness.sent.count++, harness.answer()),
      };
      const router = createModelRouter(config, new Map([["fake", fake]]));
      // Without a check of its own, the provider counts as always warm (nothing is dialled).
      const check: ConnectCheck = connectCheck ?? { before: () => undefined, answered: () => {} };
      return createRelay({ snapshot: { current: { config, keyring: createKeyring(config.keys), router, pricing, rateLimiter: createRateLimiter(config.rateLimits.limits), callers: createCallerIdentities(config.keys, () => null) } }, ledger, connectCheck: check });
    },
    call(relay, path, body) {
      const receivedAt = Date.now();
      const request = new Request(`http://relay.test${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const id = newEntryId(receivedAt);
      return relay.call({ route: ROUTES.get(path)!, request, clientAddress: "127.0.0.1", id, requestId: id, startedAt: performance.now(), receivedAt });
    },
    async newest() {
      await ledger.flush();
      return (await store.listJournal({ limit: 1 })).entries[0]!;
    },
    async close() {
      await ledger.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}
