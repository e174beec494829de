import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { admin, ADMIN_TOKEN, errorIn } from "../../support/admin-api.ts";
import { startMockServer, type MockServer } from "../../support/relay-harness.ts";
import { chatBody, errorOf, post } from "../../support/relay-calls.ts";
import { withRelay } from "../../support/with-relay.ts";

/** How long the override in the test lasts: long enough for calls inside it, short enough to see it end. */
const WINDOW_MS = 1500;
const CONFIG = {
  server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
  budgets: [
    { id: "app", scope: { project: "tests" }, period: "day", limit: 0, mode: "strict" },
    { id: "users", scope: { endUser: { project: "tests" } }, period: "day", limit: 0, mode: "observe" },
  ],
};

let mock: MockServer;

before(async () => {
  mock = await startMockServer();
});

after(async () => {
  await mock.stop();
});

/** "ok" or the refusal's code. */
async function call(url: string): Promise<string> {
  const response = await post(url, "/v1/chat/completions", chatBody());
  if (response.status === 200) {
    await response.arrayBuffer();
    return "ok";
  }
  return (await errorOf(response)).code;
}

describe("budget overrides", () => {
  test("an override raises a budget for its window, is audited, and ends by itself", async () => {
    await withRelay(mock.url, CONFIG, async ({ relay }) => {
      assert.equal(await call(relay.url), "budget_exceeded");
      const until = Date.now() + WINDOW_MS;
      const set = await admin(relay.url, "POST", "/budgets/app/override", { limit: 10, until: new Date(until).toISOString() });
      assert.equal(set.status, 201, JSON.stringify(set.body));
      assert.equal(set.body["limit"], 10);
      assert.equal(await call(relay.url), "ok", "in force before the answer");
      const listed = await admin<{ data: Array<{ budgetId: string }> }>(relay.url, "GET", "/budgets/overrides");
      assert.deepEqual(listed.body.data.map((o) => o.budgetId), ["app"]);
      const audit = await admin<{ data: Array<{ action: string; target: string }> }>(relay.url, "GET", "/audit");
      assert.ok(audit.body.data.some((event) => event.action === "budget.override" && event.target === "budget:app"), "the override is in the audit");
      // Nothing is done when the window ends: the next call after `until` is decided by the budget's own limit.
      let last = "ok";
      while (Date.now() < until + 5000 && last === "ok") {
        const before = Date.now();
        last = await call(relay.url);
        if (last === "ok") assert.ok(before < until + 50, "no call admitted after the window ended");
      }
      assert.equal(last, "budget_exceeded");
      assert.ok(Date.now() >= until, "refused only once the window ended");
    });
  });

  test("an override's bounds: a future end within 366 days, a known budget, one end user of a per-end-user budget", async () => {
    await withRelay(mock.url, CONFIG, async ({ relay }) => {
      const past = await admin(relay.url, "POST", "/budgets/app/override", { limit: 1, until: Date.now() - 1000 });
      assert.equal(past.status, 400);
      assert.match(errorIn(past).message, /past/);
      const far = await admin(relay.url, "POST", "/budgets/app/override", { limit: 1, until: Date.now() + 400 * 86_400_000 });
      assert.equal(far.status, 400);
      assert.equal((await admin(relay.url, "POST", "/budgets/nope/override", { limit: 1, until: Date.now() + 60_000 })).status, 404);
      const noUser = await admin(relay.url, "POST", "/budgets/users/override", { limit: 1, until: Date.now() + 60_000 });
      assert.equal(noUser.status, 400);
      assert.match(errorIn(noUser).message, /per end user/);
      const one = await admin(relay.url, "POST", "/budgets/users/override", { limit: 1, until: Date.now() + 60_000, endUser: "alice" });
      assert.equal(one.status, 201);
      assert.equal(one.body["budgetId"], "users/alice");
      const ended = await admin(relay.url, "DELETE", "/budgets/users/override?endUser=alice");
      assert.equal(ended.status, 200);
      assert.equal((await admin(relay.url, "DELETE", "/budgets/users/override?endUser=alice")).status, 404);
    });
  });
});
