import assert from "node:assert/strict";
import { test } from "node:test";
import { createBudgetPlan } from "./budget-plan.ts";
import { cheaperModelOf, downgradeApplies } from "./budget-downgrade.ts";
import { keySubject, scopeLabel, scopeOfParts, scopeParts, type BudgetScope } from "./budget-scope.ts";

const NOW = new Date("2026-12-06T12:00:00Z");
const teams = new Map([["mobile", "growth"]]);
const plan = createBudgetPlan(
  [
    { id: "users", scope: { endUser: { project: "mobile" } }, period: "day", limit: 0.5 },
    { id: "team", scope: { team: "growth" }, period: "month", limit: 100, onExceeded: { model: "mini" } },
    { id: "search", scope: { tag: { name: "feature", value: "search" } }, period: "day", limit: 10 },
  ],
  "strict",
  teams,
  [{ budgetId: "users/alice", limit: 5, until: NOW.getTime() + 1000 }],
);

test("a call is charged against its end user's row, its team and its tags' budgets", () => {
  const charges = plan.chargesFor({ keyId: "k", project: "mobile", team: "growth", endUser: "bob", tags: [["feature", "search"]] }, 1, NOW);
  assert.deepEqual(charges.map((c) => [c.budgetId, c.period, c.limit]), [["users/bob", "2026-12-06", 0.5], ["team", "2026-12", 100], ["search", "2026-12-06", 10]]);
  assert.equal(charges[1]!.downgrade, "mini");
});

test("no end user: the template does not apply; another project's end user is not charged", () => {
  assert.deepEqual(plan.chargesFor(keySubject("k", "mobile", "growth"), 1, NOW).map((c) => c.budgetId), ["team"]);
  assert.deepEqual(plan.chargesFor({ keyId: "k", project: "web", team: null, endUser: "bob", tags: [] }, 1, NOW), []);
});

test("an override replaces the limit until its end, then the budget's own applies", () => {
  const during = plan.chargesFor({ ...keySubject("k", "mobile", "growth"), endUser: "alice" }, 1, NOW)[0]!;
  assert.equal(during.limit, 5);
  assert.equal(during.overridden, true);
  const after = plan.chargesFor({ ...keySubject("k", "mobile", "growth"), endUser: "alice" }, 1, new Date(NOW.getTime() + 1000))[0]!;
  assert.equal(after.limit, 0.5);
  assert.equal(after.overridden, undefined);
});

test("a refusal by a budget naming a cheaper model gives way to it; a pause or another budget's refusal does not", () => {
  const charges = plan.chargesFor({ keyId: "k", project: "mobile", team: "growth", endUser: "bob", tags: [] }, 1, NOW);
  assert.equal(cheaperModelOf(charges, "big"), "mini");
  assert.equal(cheaperModelOf(charges, "mini"), undefined, "already the cheaper model");
  assert.equal(downgradeApplies({ admitted: false, budgetId: "team", limit: 100, remaining: 0 }, charges), true);
  assert.equal(downgradeApplies({ admitted: false, budgetId: "team", limit: 100, remaining: 0, paused: true }, charges), false);
  assert.equal(downgradeApplies({ admitted: false, budgetId: "users/bob", limit: 0.5, remaining: 0 }, charges), false);
});

test("scopes round-trip through the store's columns and print in one word", () => {
  const scopes: BudgetScope[] = ["total", { project: "p" }, { key: "k" }, { team: "t" }, { tag: { name: "feature", value: "a=b" } }, { endUser: { project: "p" } }];
  for (const scope of scopes) {
    const { kind, value } = scopeParts(scope);
    assert.deepEqual(scopeOfParts(kind, value ?? ""), scope);
  }
  assert.deepEqual(scopes.map(scopeLabel), ["total", "project:p", "key:k", "team:t", "tag:feature=a=b", "end-user:p"]);
});
