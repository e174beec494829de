import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { validateConfig } from "../src/config/config-load.ts";
import type { Config } from "../src/config/config-schema.ts";
import { createJournalWriter, type JournalWriter } from "../src/journal/journal-writer.ts";
import type { Provider } from "../src/providers/provider.ts";
import { createCallPricing, type CallPricing } from "../src/relay/call-pricing.ts";
import { createKeyring } from "../src/relay/keyring.ts";
import { createModelRouter } from "../src/relay/model-router.ts";
import { createRelay, type Relay } from "../src/relay/relay.ts";
import { ROUTES } from "../src/relay/route-spec.ts";
import { newEntryId } from "../src/shared/entry-id.ts";
import type { JournalEntry, Store } from "../src/storage/store.ts";
import { openStore } from "./support/relay-calls.ts";
import { TEST_KEY } from "./support/relay-harness.ts";

/** What the fake provider answers: a thunk so each test decides. */
let answer: () => Response = () => Response.json({});
const fake: Provider = {
  id: "fake",
  region: "local",
  wires: new Set(["openai", "anthropic"]),
  connectTimeoutMs: 1000,
  firstByteTimeoutMs: 5000,
  send: async () => answer(),
};

let dir: string;
let config: Config;
let store: Store;
let ledger: JournalWriter;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "renio-relay-error-"));
  config = validateConfig({
    storage: { type: "sqlite", path: join(dir, "renio.db") },
    providers: { fake: { type: "openai", baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-unused" } },
    models: { "mock-gpt": { provider: "fake" } },
    keys: [{ id: "test", secret: TEST_KEY, project: "tests" }],
    budgets: [{ id: "all", scope: "total", period: "total", limit: 100 }],
  }, {});
  store = await openStore(config.storage);
  ledger = createJournalWriter(store);
});

after(async () => {
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

function relayWith(pricing: CallPricing = createCallPricing(config)): Relay {
  return createRelay({ config, keyring: createKeyring(config.keys), router: createModelRouter(config, new Map([["fake", fake]])), pricing, ledger });
}

function call(relay: Relay): Promise<Response> {
  const receivedAt = Date.now();
  const request = new Request("http://relay.test/v1/chat/completions", {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 50 }),
  });
  const id = newEntryId(receivedAt);
  return relay.call({ route: ROUTES.get("/v1/chat/completions")!, request, clientAddress: "127.0.0.1", id, requestId: id, startedAt: performance.now(), receivedAt });
}

/** The newest entry, after flushing batched completions. */
async function newest(): Promise<JournalEntry> {
  await ledger.flush();
  return (await store.listJournal({ limit: 1 })).entries[0]!;
}

async function assertNothingReserved(): Promise<void> {
  const [usage] = await store.budgetUsage([{ budgetId: "all", period: "total" }]);
  assert.equal(usage!.reserved, 0, "the reservation was settled, not left held");
}

/** No call is left counted in flight (drained() resolves at once, far before its grace). */
async function assertDrained(relay: Relay): Promise<void> {
  const started = performance.now();
  await relay.drained(5_000);
  assert.ok(performance.now() - started < 1_000, "no call left in flight");
}

test("an unexpected exception after the provider answered: entry completed as relay_error, charged at the reservation", async () => {
  answer = () => {
    const response = Response.json({ usage: { prompt_tokens: 1, completion_tokens: 1 } });
    Object.defineProperty(response, "headers", { get: () => { throw new Error("renio bug in header handling"); } });
    return response;
  };
  const relay = relayWith();
  await assert.rejects(call(relay), /renio bug in header handling/);
  const entry = await newest();
  assert.deepEqual([entry.outcome, entry.status, entry.errorCode], ["relay_error", 500, "internal_error"]);
  assert.notEqual(entry.finishedAt, null);
  assert.ok(entry.reservedCost! > 0);
  assert.equal(entry.cost, entry.reservedCost, "the provider was called: it may have billed");
  await assertNothingReserved();
  await assertDrained(relay);
});

test("an exception while settling: entry completed as relay_error at the reservation, the response still delivered", async () => {
  answer = () => Response.json({ usage: { prompt_tokens: 3, completion_tokens: 4 } });
  const real = createCallPricing(config);
  const pricing: CallPricing = { quote: real.quote, settle: () => { throw new Error("price book bug"); } };
  const relay = relayWith(pricing);
  const errors: unknown[] = [];
  const log = console.error;
  console.error = (...args: unknown[]) => void errors.push(args.join(" "));
  let response: Response;
  try {
    response = await call(relay);
  } finally {
    console.error = log;
  }
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { usage: { prompt_tokens: 3, completion_tokens: 4 } });
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /price book bug/);
  const entry = await newest();
  assert.deepEqual([entry.outcome, entry.status, entry.errorCode], ["relay_error", 200, "internal_error"]);
  assert.deepEqual([entry.inputTokens, entry.outputTokens], [3, 4]);
  assert.equal(entry.cost, entry.reservedCost);
  await assertNothingReserved();
  await assertDrained(relay);
});
