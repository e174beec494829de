import assert from "node:assert/strict";
import type { Store } from "../../src/storage/store.ts";
import { errorOf, finishedEntries } from "./relay-calls.ts";

/** A strict budget under test: its id, its limit and what each call reserves. */
export interface StrictCeiling {
  readonly budgetId: string;
  readonly limit: number;
  readonly reservation: number;
}

/**
 * A strict-budget call's answer: a 200 (its body read to the end) or a 429 `budget_exceeded`
 * naming the budget, its limit and what remained, which must be less than one reservation.
 */
export async function admittedOrRefused(response: Response, ceiling: StrictCeiling): Promise<{ id: string; accepted: boolean }> {
  const id = response.headers.get("x-request-id")!;
  if (response.status === 200) {
    await response.arrayBuffer();
    return { id, accepted: true };
  }
  assert.equal(response.status, 429);
  const error = await errorOf(response);
  assert.equal(error.code, "budget_exceeded");
  const message = new RegExp(
    `^Budget \`${ceiling.budgetId}\` cannot cover this request: (?:its limit of ([\\d.]+) USD is spent or held by calls in flight \\(([\\d.]+) USD remaining\\)` +
      `|it reserves [\\d.]+ USD, the most it may cost: .+; ([\\d.]+) USD of its ([\\d.]+) USD limit remains\\. To fit, )`,
  ).exec(error.message);
  assert.ok(message, `the message names the budget, its limit, what remains and (with room left) the reservation: ${error.message}`);
  assert.equal(Number(message[1] ?? message[4]), ceiling.limit);
  const remaining = Number(response.headers.get("x-renio-budget-remaining"));
  assert.equal(response.headers.get("x-renio-budget"), ceiling.budgetId);
  assert.equal(Number(message[2] ?? message[3]), remaining);
  assert.ok(remaining < ceiling.reservation, `refused while ${remaining} remained, enough for a ${ceiling.reservation} reservation`);
  return { id, accepted: false };
}

/**
 * Every call the budget covers was accepted; each accepted call settled ok, charged more than
 * nothing and no more than its reservation; the settled sum and the stored spend are within the
 * limit and equal; nothing is left reserved.
 */
export async function assertNoOvershoot(store: Store, accepted: readonly string[], ceiling: StrictCeiling): Promise<void> {
  const covered = Math.floor(ceiling.limit / ceiling.reservation);
  assert.ok(accepted.length >= covered, `at least the ${covered} calls the budget covers were accepted (got ${accepted.length})`);
  const entries = await finishedEntries(store, accepted, 10_000);
  let settled = 0;
  for (const id of accepted) {
    const entry = entries.get(id)!;
    assert.equal(entry.outcome, "ok");
    assert.ok(entry.cost !== null && entry.cost > 0, `call ${id} was charged`);
    assert.ok(entry.reservedCost !== null && entry.reservedCost <= ceiling.reservation, `call ${id} reserved ${entry.reservedCost}, at most ${ceiling.reservation}`);
    assert.ok(entry.cost <= entry.reservedCost, `call ${id}: charge ${entry.cost} ≤ its reservation ${entry.reservedCost}`);
    settled += entry.cost;
  }
  assert.ok(settled <= ceiling.limit, `settled ${settled} ≤ limit ${ceiling.limit}`);
  const [usage] = await store.budgetUsage([{ budgetId: ceiling.budgetId, period: "total" }]);
  assert.ok(usage!.spent <= ceiling.limit);
  assert.ok(Math.abs(usage!.spent - settled) < 1e-9, `stored spend ${usage!.spent} = settled ${settled}`);
  assert.equal(usage!.reserved, 0);
}
