import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, formatProblem } from "./config-error.ts";
import { validateConfig } from "./config-load.ts";

const BASE = {
  providers: { mock: { type: "mock" } },
  models: { big: { provider: "mock" }, small: { provider: "mock" } },
  keys: [{ id: "app", secret: "sk-app-000000000", project: "mobile", endUser: ["header"], tags: { allow: { feature: ["search"] }, unknown: "drop" } }],
};

function problems(extra: Record<string, unknown>): string[] {
  try {
    validateConfig({ ...BASE, ...extra }, {});
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems.map(formatProblem);
  }
  assert.fail("the config was accepted");
}

test("teams, tag and per-end-user budgets and a cheaper model are accepted and typed", () => {
  const config = validateConfig(
    {
      ...BASE,
      teams: [{ id: "growth", projects: ["mobile"] }],
      budgets: [
        { id: "users", scope: { endUser: { project: "mobile" } }, period: "day", limit: 0.5 },
        { id: "team", scope: { team: "growth" }, limit: 100, onExceeded: { model: "small" } },
        { id: "search", scope: { tag: { name: "feature", value: "search" } }, limit: 10 },
      ],
    },
    {},
  );
  assert.deepEqual(config.keys[0]!.endUser, ["header"]);
  assert.deepEqual([...config.keys[0]!.tags!.allow], [["feature", ["search"]]]);
  assert.deepEqual(config.budgets[1]!.onExceeded, { model: "small" });
});

test("each mistake is named with its path and the fix", () => {
  const found = problems({
    teams: [{ id: "a", projects: ["mobile"] }, { id: "b", projects: ["mobile"] }],
    budgets: [
      { id: "t", scope: { team: "nope" }, limit: 1 },
      { id: "g", scope: { tag: { name: "feature", value: "chat" } }, limit: 1 },
      { id: "u", scope: { endUser: { project: "mobile" } }, limit: 1, alerts: { webhook: "w" } },
      { id: "o", scope: "total", limit: 1, mode: "observe", onExceeded: { model: "small" } },
      { id: "m", scope: "total", limit: 1, onExceeded: { model: "nope" } },
    ],
    alerts: { webhooks: [{ id: "w", url: "http://127.0.0.1:9/", secret: "webhook-secret-0123456789" }] },
  });
  for (const expected of [
    /teams\[1\]\.projects\[0\].*"mobile" is in team "a" already/,
    /budgets\[0\]\.scope\.team.*unknown team "nope"/,
    /budgets\[1\]\.scope\.tag.*no key allows the tag "feature=chat"/,
    /budgets\[2\]\.alerts.*per-end-user budget/,
    /budgets\[3\]\.onExceeded.*observe budget never refuses/,
    /budgets\[4\]\.onExceeded\.model.*unknown model "nope"/,
  ]) {
    assert.ok(found.some((problem) => expected.test(problem)), `${expected} in ${found.join("\n")}`);
  }
  assert.ok(problems({ keys: [{ ...BASE.keys[0], tags: { allow: { "feat ure": ["a"] } } }] }).some((p) => /use letters, digits/.test(p)));
  assert.ok(problems({ keys: [{ ...BASE.keys[0], tags: { allow: { feature: ["a,b"] } } }] }).some((p) => /no comma/.test(p)));
  assert.ok(problems({ keys: [{ ...BASE.keys[0], endUser: ["cookie"] }] }).some((p) => /endUser/.test(p)));
});
