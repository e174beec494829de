import assert from "node:assert/strict";
import { test } from "node:test";
import type { BudgetConfig } from "../config/config-schema.ts";
import { spendReport, type JournalSpend } from "./spend-report.ts";

const DAY_MS = 86_400_000;
const day = (iso: string) => Date.parse(iso) / DAY_MS;

function spend(overrides: Partial<JournalSpend>): JournalSpend {
  const reportedCost = overrides.reportedCost ?? 0;
  const estimatedCost = overrides.estimatedCost ?? 0;
  return {
    day: day("2026-12-03"), keyId: "k1", project: "p1", model: "m1", charged: true,
    calls: 1, refused: 0, inFlight: 0, inputTokens: 10, cachedInputTokens: 0, outputTokens: 5,
    estimatedCalls: estimatedCost > 0 ? 1 : 0, inFlightReserved: 0, reserved: 0, cacheHits: 0, savedCost: 0,
    ...overrides, reportedCost, estimatedCost, cost: reportedCost + estimatedCost,
  };
}

const rows: JournalSpend[] = [
  spend({ reportedCost: 0.1 }),
  spend({ day: day("2026-12-04"), reportedCost: 0.2, estimatedCost: 0.05 }),
  spend({ day: day("2027-01-01"), keyId: "k2", project: "p2", model: "m2", reportedCost: 0.3 }),
  // A refusal before authentication: no key, never charged.
  spend({ keyId: null, project: null, charged: false, calls: 0, refused: 2, inputTokens: 0, outputTokens: 0 }),
];

test("by key per month: days roll up into their UTC month; entries without a key are their own row", () => {
  const report = spendReport({ by: "key", period: "month" }, rows, [], [], "EUR");
  assert.ok(report.by !== "budget");
  assert.equal(report.currency, "EUR");
  assert.deepEqual(report.rows.map((r) => [r.period, r.group, r.calls, r.refused, r.inputTokens, r.reportedCost, r.estimatedCost, r.cost, r.estimatedCalls]), [
    ["2026-12", null, 0, 2, 0, 0, 0, 0, 0],
    ["2026-12", "k1", 2, 0, 20, 0.3, 0.05, 0.35, 1],
    ["2027-01", "k2", 1, 0, 10, 0.3, 0, 0.3, 0],
  ]);
  assert.deepEqual([report.total.calls, report.total.refused, report.total.cost], [3, 2, 0.65]);
});

test("by model per day", () => {
  const report = spendReport({ by: "model", period: "day" }, rows, [], [], "USD");
  assert.ok(report.by !== "budget");
  assert.deepEqual(report.rows.map((r) => [r.period, r.group, r.cost]), [["2026-12-03", "m1", 0.1], ["2026-12-04", "m1", 0.25], ["2027-01-01", "m2", 0.3]]);
});

test("by budget: charged entries in scope, per the budget's period, against the stored rows", () => {
  const budgets: BudgetConfig[] = [
    { id: "all", scope: "total", period: "total", limit: 10 },
    { id: "p1-month", scope: { project: "p1" }, period: "month", limit: 5 },
    { id: "k2-day", scope: { key: "k2" }, period: "day", limit: 1 },
  ];
  const stored = [
    { budgetId: "all", period: "total", limit: 10, spent: 0.65, reserved: 0, remaining: 9.35 },
    { budgetId: "p1-month", period: "2026-12", limit: 5, spent: 0.3, reserved: 0, remaining: 4.7 },
    // A period whose entries are gone (pruned): listed, with the difference.
    { budgetId: "p1-month", period: "2026-11", limit: 5, spent: 1, reserved: 0, remaining: 4 },
  ];
  const report = spendReport({ by: "budget", period: "month" }, rows, budgets, stored, "USD");
  assert.ok(report.by === "budget");
  assert.equal(report.period, null);
  assert.deepEqual(report.rows.map((r) => [r.budgetId, r.period, r.calls, r.cost, r.budgetSpent, r.difference]), [
    ["all", "total", 3, 0.65, 0.65, 0],
    ["k2-day", "2027-01-01", 1, 0.3, 0, -0.3],
    ["p1-month", "2026-11", 0, 0, 1, 1],
    ["p1-month", "2026-12", 2, 0.35, 0.3, -0.05],
  ]);
});
