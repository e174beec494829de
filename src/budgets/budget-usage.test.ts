import assert from "node:assert/strict";
import { test } from "node:test";
import type { BudgetConfig } from "../config/config-schema.ts";
import { configuredUsage, currentRows } from "./budget-usage.ts";

const NOW = new Date("2026-12-02T10:00:00Z");
const BUDGETS: BudgetConfig[] = [
  { id: "all", scope: "total", period: "total", limit: 10 },
  { id: "team", scope: { project: "team" }, period: "month", limit: 5, mode: "observe" },
  { id: "k1", scope: { key: "k1" }, period: "day", limit: 1 },
];

test("currentRows names each configured budget's row in the period now falls in", () => {
  assert.deepEqual(currentRows(BUDGETS, NOW), [
    { budgetId: "all", period: "total" },
    { budgetId: "team", period: "2026-12" },
    { budgetId: "k1", period: "2026-12-02" },
  ]);
});

test("configuredUsage takes a stored row's usage at the configured limit, else a zero row", () => {
  const stored = [
    { budgetId: "team", period: "2026-12", limit: 4, spent: 1.5, reserved: 0.5, remaining: 2 },
    { budgetId: "team", period: "2026-11", limit: 5, spent: 3, reserved: 0, remaining: 2 },
  ];
  const rows = configuredUsage(BUDGETS, stored, NOW);
  assert.deepEqual(rows.map((r) => [r.budget.id, r.stored]), [["all", false], ["team", true], ["k1", false]]);
  assert.deepEqual(rows.map((r) => r.usage), [
    { budgetId: "all", period: "total", limit: 10, spent: 0, reserved: 0, remaining: 10 },
    { budgetId: "team", period: "2026-12", limit: 5, spent: 1.5, reserved: 0.5, remaining: 3 },
    { budgetId: "k1", period: "2026-12-02", limit: 1, spent: 0, reserved: 0, remaining: 1 },
  ]);
});
