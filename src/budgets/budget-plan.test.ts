import { keySubject } from "./budget-scope.ts";
import assert from "node:assert/strict";
import { test } from "node:test";
import type { BudgetConfig } from "../config/config-schema.ts";
import { createBudgetPlan, periodEnd, periodOf } from "./budget-plan.ts";

test("periodOf uses UTC", () => {
  const now = new Date("2026-12-02T23:30:00-05:00"); // 2026-12-03T04:30Z
  assert.equal(periodOf("total", now), "total");
  assert.equal(periodOf("month", now), "2026-12");
  assert.equal(periodOf("day", now), "2026-12-03");
  assert.equal(periodOf("day", new Date("2027-01-09T00:00:00Z")), "2027-01-09");
  assert.equal(periodOf("month", new Date("2026-12-31T23:59:59.999Z")), "2026-12");
});

test("periodEnd: a day or month period ends when the next UTC day or month starts; total never ends", () => {
  assert.equal(periodEnd("2026-12-31"), Date.parse("2027-01-01T00:00:00Z"));
  assert.equal(periodEnd("2026-12"), Date.parse("2027-01-01T00:00:00Z"));
  assert.equal(periodEnd("2026-02"), Date.parse("2026-03-01T00:00:00Z"));
  assert.equal(periodEnd(periodOf("day", new Date("2026-12-02T23:30:00-05:00"))), Date.parse("2026-12-04T00:00:00Z"));
  assert.equal(periodEnd("total"), null);
});

const budgets: BudgetConfig[] = [
  { id: "all", scope: "total", period: "total", limit: 100 },
  { id: "team-a", scope: { project: "a" }, period: "month", limit: 50, mode: "observe" },
  { id: "key-1", scope: { key: "k1" }, period: "day", limit: 5, mode: "strict" },
  { id: "team-b", scope: { project: "b" }, period: "day", limit: 7 },
];

test("charges every budget whose scope applies", () => {
  const plan = createBudgetPlan(budgets, "strict");
  const now = new Date("2026-03-04T10:00:00Z");
  assert.deepEqual(plan.chargesFor(keySubject("k1", "a"), 0.25, now), [
    { budgetId: "all", period: "total", limit: 100, mode: "strict", amount: 0.25 },
    { budgetId: "team-a", period: "2026-03", limit: 50, mode: "observe", amount: 0.25 },
    { budgetId: "key-1", period: "2026-03-04", limit: 5, mode: "strict", amount: 0.25 },
  ]);
  assert.deepEqual(plan.chargesFor(keySubject("k2", "b"), 1, now), [
    { budgetId: "all", period: "total", limit: 100, mode: "strict", amount: 1 },
    { budgetId: "team-b", period: "2026-03-04", limit: 7, mode: "strict", amount: 1 },
  ]);
});

test("default mode applies to budgets without one", () => {
  const plan = createBudgetPlan(budgets, "observe");
  const charges = plan.chargesFor(keySubject("k9", "b"), 1, new Date(0));
  assert.deepEqual(charges.map((c) => [c.budgetId, c.mode, c.period]), [
    ["all", "observe", "total"],
    ["team-b", "observe", "1970-01-01"],
  ]);
});

test("no budgets, no charges; periods roll over with the date", () => {
  assert.deepEqual(createBudgetPlan([], "strict").chargesFor(keySubject("k1", "a"), 1, new Date()), []);
  const plan = createBudgetPlan(budgets, "strict");
  const before = plan.chargesFor(keySubject("k1", "x"), 1, new Date("2026-03-31T23:59:59.999Z"));
  const after = plan.chargesFor(keySubject("k1", "x"), 2, new Date("2026-04-01T00:00:00Z"));
  assert.deepEqual(before.map((c) => c.period), ["total", "2026-03-31"]);
  assert.deepEqual(after.map((c) => [c.period, c.amount]), [["total", 2], ["2026-04-01", 2]]);
  assert.notEqual(before, after);
  assert.notEqual(before[0], after[0], "each call gets fresh charge objects");
});
