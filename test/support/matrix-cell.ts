import assert from "node:assert/strict";
import { costOf } from "../../src/pricing/cost.ts";
import type { Store } from "../../src/storage/store.ts";
import type { Caller, CuttingCaller } from "./matrix-callers.ts";
import { TOOL, TOOL_TURN, type Content, type Mode, type ProviderFamily } from "./matrix-providers.ts";
import { finishedEntries } from "./relay-calls.ts";

/**
 * One cell of the translation matrix: `caller` calls `family`'s model through the relay at
 * `relayUrl` and must see what its user relies on (text, or the tool call with its arguments
 * exact; the finish reason and the usage in its own vocabulary), the provider must have received
 * one request in its own API (with the image in its shape), and the journal must book the
 * provider's own usage at its price, within the call's reservation.
 */
export async function assertCell(caller: Caller, family: ProviderFamily, mode: Mode, content: Content, relayUrl: string, store: Store): Promise<void> {
  const sentBefore = family.received().length;
  const got = await caller.call(relayUrl, family.model, content, mode);

  const sent = family.received().slice(sentBefore);
  assert.equal(sent.length, 1, "one request reached the provider");
  assert.equal(sent[0]!.path, family.path(mode), "in the provider's own API");
  if (content === "plain" || content === "images") {
    assert.equal(got.text, family.text(content));
    assert.equal(got.tool, undefined);
    assert.equal(got.finish, caller.finish.text);
  } else {
    assert.equal(got.tool?.name, TOOL.name);
    assert.deepEqual(got.tool.input, JSON.parse(family.toolArgs));
    if (mode === "stream") assert.equal(got.tool.streamedArgs, family.toolArgs, "the argument fragments join to exactly the provider's JSON");
    assert.equal(got.finish, caller.finish.tools);
  }
  if (content === "images") assert.deepEqual(family.imageOf(sent[0]!.body), family.image, "the image reached the provider in its shape");
  if (content === "tool result") {
    const link = family.linksById ? TOOL_TURN.id : TOOL.name;
    assert.deepEqual(family.toolTurnOf(sent[0]!.body), {
      call: { id: family.linksById ? TOOL_TURN.id : undefined, name: TOOL.name, input: TOOL_TURN.input },
      result: { id: link, text: TOOL_TURN.result },
    }, "the earlier call and its result reached the provider, linked, in its shape");
  }
  assert.deepEqual(got.usage, caller.usageOf(family.booked), "usage in the caller's fields");

  const entry = (await finishedEntries(store, [got.requestId])).get(got.requestId)!;
  assert.equal(entry.outcome, "ok");
  assert.deepEqual([entry.inputTokens, entry.cachedInputTokens, entry.outputTokens], [family.booked.inputTokens, family.booked.cachedInputTokens, family.booked.outputTokens]);
  assert.equal(entry.cost, costOf(family.booked, family.price), "charged what the provider's usage prices to");
  assert.ok(entry.cost! <= entry.reservedCost!, "within its reservation");
}

/** Error types by status, the same in OpenAI's and Anthropic's envelopes. */
const ERROR_TYPES: Readonly<Record<number, string>> = { 400: "invalid_request_error", 429: "rate_limit_error" };

/**
 * The error row of the matrix: the provider's error answer reaches `caller` in its own envelope,
 * with the provider's status, an error type of the caller's vocabulary and the provider's
 * message; the journal records the status and charges nothing.
 */
export async function assertErrorCell(caller: Caller, family: ProviderFamily, mode: Mode, relayUrl: string, store: Store): Promise<void> {
  const { model, prompt, status, message } = family.failure;
  const sentBefore = family.received().length;
  const error = await caller.fail(relayUrl, model, prompt, mode);
  assert.equal(family.received().length - sentBefore, 1, "the call reached the provider");
  assert.equal(error.status, status);
  assert.equal(error.type, ERROR_TYPES[status]);
  assert.match(error.message, message);
  const entry = (await finishedEntries(store, [error.requestId])).get(error.requestId)!;
  assert.equal(entry.status, status);
  assert.equal(entry.cost ?? 0, 0, "an error answer is not charged");
}

/**
 * The cut row of the matrix, for translated calls: a provider stream that ends in the middle of
 * an event fails the caller's stream (never a clean end it could mistake for a whole answer),
 * and the call is journaled as an upstream error charged its reservation (the provider may have
 * billed it). Calls relayed byte for byte are left to the stream-cut tests.
 */
export async function assertCutCell(caller: CuttingCaller, family: ProviderFamily, relayUrl: string, store: Store, passthrough = false): Promise<void> {
  const { requestId } = await caller.cut(relayUrl, family.cut.model, family.cut.prompt);
  const entry = (await finishedEntries(store, [requestId])).get(requestId)!;
  // Passed through, the provider's bytes reach the caller as they are (its SDK sees the cut); the connection itself ended cleanly.
  assert.equal(entry.outcome, passthrough ? "ok" : "upstream_error");
  assert.ok(entry.reservedCost! > 0);
  assert.equal(entry.cost, entry.reservedCost, "charged its reservation");
  assert.equal(entry.costEstimated, true);
}
