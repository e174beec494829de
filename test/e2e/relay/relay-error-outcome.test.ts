import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createCallPricing, type CallPricing } from "../../../src/pricing/call-pricing.ts";
import type { Relay } from "../../../src/relay/relay.ts";
import { createFakeProviderRelay, type FakeProviderRelay } from "../../support/fake-provider-relay.ts";

let fake: FakeProviderRelay;
const CHAT = "/v1/chat/completions";
const body = { model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 50 };

before(async () => {
  fake = await createFakeProviderRelay();
});

after(async () => {
  await fake.close();
});

async function assertNothingReserved(): Promise<void> {
  const [usage] = await fake.store.budgetUsage([{ budgetId: "all", period: "total" }]);
  assert.equal(usage!.reserved, 0, "the reservation was settled, not left held");
}

/** No call is left counted in flight (drained() resolves at once, far before its grace). */
async function assertDrained(relay: Relay): Promise<void> {
  const started = performance.now();
  await relay.drained(5_000);
  assert.ok(performance.now() - started < 1_000, "no call left in flight");
}

test("an unexpected exception after the provider answered: entry completed as relay_error, charged at the reservation", async () => {
  fake.answer = () => {
    const response = Response.json({ usage: { prompt_tokens: 1, completion_tokens: 1 } });
    Object.defineProperty(response, "headers", { get: () => { throw new Error("renio bug in header handling"); } });
    return response;
  };
  const relay = fake.relay();
  await assert.rejects(fake.call(relay, CHAT, body), /renio bug in header handling/);
  const entry = await fake.newest();
  assert.deepEqual([entry.outcome, entry.status, entry.errorCode], ["relay_error", 500, "internal_error"]);
  assert.notEqual(entry.finishedAt, null);
  assert.ok(entry.reservedCost! > 0);
  assert.equal(entry.cost, entry.reservedCost, "the provider was called: it may have billed");
  await assertNothingReserved();
  await assertDrained(relay);
});

test("an exception while settling: entry completed as relay_error at the reservation, the response still delivered", async () => {
  fake.answer = () => Response.json({ usage: { prompt_tokens: 3, completion_tokens: 4 } });
  const real = createCallPricing(fake.config);
  const pricing: CallPricing = { quote: real.quote, priceOf: real.priceOf, settle: () => { throw new Error("price book bug"); } };
  const relay = fake.relay(pricing);
  const errors: unknown[] = [];
  const log = console.error;
  console.error = (...args: unknown[]) => void errors.push(args.join(" "));
  let response: Response;
  try {
    response = await fake.call(relay, CHAT, body);
  } finally {
    console.error = log;
  }
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { usage: { prompt_tokens: 3, completion_tokens: 4 } });
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /price book bug/);
  const entry = await fake.newest();
  assert.deepEqual([entry.outcome, entry.status, entry.errorCode], ["relay_error", 200, "internal_error"]);
  assert.deepEqual([entry.inputTokens, entry.outputTokens], [3, 4]);
  assert.equal(entry.cost, entry.reservedCost);
  await assertNothingReserved();
  await assertDrained(relay);
});
