import assert from "node:assert/strict";
import { test } from "node:test";
import { RelayError } from "../shared/relay-error.ts";
import { createCallSlots, type SlotLimits } from "./call-slots.ts";

const LIMITS: SlotLimits = { maxConcurrentCalls: 2, maxQueuedCalls: 3, queueTimeoutMs: 10_000 };
const open = () => new AbortController().signal;

test("below the limit a slot is taken at once, with no promise", () => {
  const slots = createCallSlots(LIMITS);
  assert.equal(slots.enter(LIMITS, open()), undefined);
  assert.equal(slots.enter(LIMITS, open()), undefined);
  assert.deepEqual(slots.state(), { active: 2, queued: 0, limits: LIMITS });
});

test("waiting calls get slots in arrival order as slots are given back", async () => {
  const slots = createCallSlots(LIMITS);
  slots.enter(LIMITS, open());
  slots.enter(LIMITS, open());
  const order: number[] = [];
  const waits = [1, 2, 3].map((n) => slots.enter(LIMITS, open())!.then(() => void order.push(n)));
  assert.equal(slots.state().queued, 3);
  slots.leave();
  await waits[0];
  slots.leave();
  slots.leave();
  await Promise.all(waits);
  assert.deepEqual(order, [1, 2, 3]);
  assert.deepEqual([slots.state().active, slots.state().queued], [2, 0]);
});

test("a call whose client leaves while it waits leaves the queue: 499, and the next one takes the slot", async () => {
  const slots = createCallSlots(LIMITS);
  slots.enter(LIMITS, open());
  slots.enter(LIMITS, open());
  const gone = new AbortController();
  const first = slots.enter(LIMITS, gone.signal)!;
  const second = slots.enter(LIMITS, open())!;
  gone.abort();
  await assert.rejects(first, (error: unknown) => error instanceof RelayError && error.status === 499 && error.code === "client_aborted");
  assert.equal(slots.state().queued, 1);
  slots.leave();
  await second;
  assert.deepEqual([slots.state().active, slots.state().queued], [2, 0]);
});

test("a full queue refuses at once, a wait past queueTimeoutMs refuses then: both 503 overloaded with retry-after", async () => {
  const limits = { maxConcurrentCalls: 1, maxQueuedCalls: 1, queueTimeoutMs: 30 };
  const slots = createCallSlots(limits);
  slots.enter(limits, open());
  const waiting = slots.enter(limits, open())!;
  const overloaded = (error: unknown) => error instanceof RelayError && error.status === 503 && error.code === "overloaded" && error.headers?.["retry-after"] === "1";
  await assert.rejects(slots.enter(limits, open())!, overloaded);
  await assert.rejects(waiting, (error: unknown) => overloaded(error) && /within 30 ms/.test((error as Error).message));
  assert.equal(slots.state().queued, 0);
});

test("calls that left the queue do not pile up while every slot stays taken", async () => {
  const limits = { maxConcurrentCalls: 1, maxQueuedCalls: 5, queueTimeoutMs: 10_000 };
  const slots = createCallSlots(limits);
  slots.enter(limits, open());
  for (let i = 0; i < 10_000; i++) {
    const gone = new AbortController();
    const wait = slots.enter(limits, gone.signal)!;
    gone.abort();
    await wait.catch(() => undefined);
  }
  assert.equal(slots.state().queued, 0);
  const last = slots.enter(limits, open())!;
  slots.leave();
  await last;
  assert.equal(slots.state().active, 1);
});
