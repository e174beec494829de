import { keySubject } from "./budget-scope.ts";
import assert from "node:assert/strict";
import { test } from "node:test";
import type { BudgetCharge } from "./budget-charge.ts";
import { createBudgetCatalog } from "./budget-catalog.ts";
import type { BudgetTerms, StoredBudget } from "./budget-definition.ts";
import { decideUnderTerms } from "./budget-terms.ts";

const zero = () => ({ spent: 0, reserved: 0 });
const charge = (budgetId: string, limit: number, amount: number, stored = true): BudgetCharge => {
  const c: BudgetCharge = { budgetId, period: "total", limit, mode: "strict", amount };
  if (stored) c.stored = true;
  return c;
};

test("a stored budget's charge is decided by the terms in force, and recorded with them", () => {
  const terms = new Map<string, BudgetTerms>([["team", { limit: 1, mode: "strict", paused: false }]]);
  const lowered = decideUnderTerms([charge("team", 10, 2)], (id) => terms.get(id), zero);
  assert.deepEqual(lowered.admission, { admitted: false, budgetId: "team", limit: 1, remaining: 1 });
  terms.set("team", { limit: 0, mode: "observe", paused: false });
  const observe = decideUnderTerms([charge("team", 10, 2)], (id) => terms.get(id), zero);
  assert.equal(observe.admission.admitted, true);
  assert.deepEqual(observe.charges, [{ ...charge("team", 0, 2), mode: "observe" }]);
});

test("a paused budget refuses, naming itself; charges without terms or not stored keep their own", () => {
  const terms = new Map<string, BudgetTerms>([["team", { limit: 100, mode: "strict", paused: true }], ["cfg", { limit: 0, mode: "strict", paused: false }]]);
  const charges = [charge("other", 5, 1), charge("cfg", 5, 1, false), charge("team", 100, 1)];
  assert.deepEqual(decideUnderTerms(charges, (id) => terms.get(id), zero).admission, { admitted: false, budgetId: "team", limit: 100, remaining: 0, paused: true });
  const unchanged = charges.slice(0, 2);
  const unpaused = decideUnderTerms(unchanged, (id) => terms.get(id), zero);
  assert.equal(unpaused.admission.admitted, true);
  assert.equal(unpaused.charges, unchanged, "charges under their own terms are passed through as they are");
});

test("the catalog charges config and stored budgets, swaps stored ones at once, and lets config ids win", () => {
  const catalog = createBudgetCatalog([{ id: "cfg", scope: "total", period: "total", limit: 5 }], "strict");
  const now = new Date("2026-12-03T10:00:00Z");
  assert.deepEqual(catalog.plan().chargesFor(keySubject("k1", "p1"), 1, now).map((c) => c.budgetId), ["cfg"]);
  const team: StoredBudget = { id: "team", scope: { project: "p1" }, period: "day", limit: 3, mode: "observe", paused: false, createdAt: 0, updatedAt: 0 };
  catalog.replace([team, { ...team, id: "cfg", limit: 0 }]);
  assert.deepEqual(catalog.plan().chargesFor(keySubject("k1", "p1"), 1, now), [
    { budgetId: "cfg", period: "total", limit: 5, mode: "strict", amount: 1 },
    { budgetId: "team", period: "2026-12-03", limit: 3, mode: "observe", amount: 1, stored: true },
  ]);
  assert.deepEqual(catalog.termsOf("team"), { limit: 3, mode: "observe", paused: false });
  assert.equal(catalog.termsOf("cfg"), undefined, "a stored budget with a config id is ignored");
  catalog.replace([]);
  assert.deepEqual(catalog.plan().chargesFor(keySubject("k1", "p1"), 1, now).map((c) => c.budgetId), ["cfg"]);
  assert.equal(catalog.termsOf("team"), undefined);
});
