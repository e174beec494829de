import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Scrape, scrape } from "../../support/prom-scrape.ts";
import { startMockServer, TEST_KEY, type MockServer } from "../../support/relay-harness.ts";
import { chatBody, finishedEntries, post } from "../../support/relay-calls.ts";
import { withRelay } from "../../support/with-relay.ts";

const METRICS_TOKEN = "metrics-token-for-spenders-0123";
const USERS = ["ann-private-name", "ben-private-name", "cy-private-name"];

let mock: MockServer;

before(async () => {
  mock = await startMockServer();
});

after(async () => {
  await mock.stop();
});

test("/metrics shows spend by team and tag, and the day's end users by count, total and rank, never by name", async () => {
  const config = {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, metricsToken: METRICS_TOKEN },
    teams: [{ id: "growth", projects: ["tests"] }],
    keys: [{ id: "test", secret: TEST_KEY, project: "tests", tags: { allow: { feature: ["chat"] } } }],
  };
  await withRelay(mock.url, config, async ({ relay, store }) => {
    const ids: string[] = [];
    // ann makes three calls, ben two, cy one: the ranks follow.
    for (const [i, user] of [0, 0, 0, 1, 1, 2].map((u) => [u, USERS[u]!] as const)) {
      const response = await post(relay.url, "/v1/chat/completions", chatBody(), { "x-renio-end-user": user, ...(i === 0 ? { "x-renio-tags": "feature=chat" } : {}) });
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      ids.push(response.headers.get("x-request-id")!);
    }
    const entries = await finishedEntries(store, ids);
    const costOf = (user: string) => ids.map((id) => entries.get(id)!).filter((e) => e.endUser === user).reduce((sum, e) => sum + e.cost!, 0);
    const page = (await scrape(relay.url, METRICS_TOKEN)).text;
    for (const user of USERS) assert.ok(!page.includes(user), `no end user is named in /metrics (${user})`);
    const metrics = new Scrape(page);
    const near = (a: number, b: number) => Math.abs(a - b) < 1e-6;
    const total = USERS.reduce((sum, user) => sum + costOf(user), 0);
    assert.ok(near(metrics.sum("renio_team_cost_total", { team: "growth" }), total));
    assert.ok(near(metrics.sum("renio_tag_cost_total", { tag: "feature=chat" }), costOf(USERS[0]!)));
    assert.equal(metrics.sum("renio_end_users_today"), 3);
    assert.ok(near(metrics.sum("renio_end_user_cost_today"), total));
    for (const [rank, user] of USERS.entries()) assert.ok(near(metrics.sum("renio_top_end_user_cost_today", { rank: String(rank + 1) }), costOf(user)), `rank ${rank + 1}`);
  });
});

test("GET /admin/spenders: spend by team and tag per day, the heaviest end users; a per-end-user budget's end users", async () => {
  const adminToken = "admin-token-for-spenders-0123456";
  const config = {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken },
    teams: [{ id: "growth", projects: ["tests"] }],
    keys: [{ id: "test", secret: TEST_KEY, project: "tests", tags: { allow: { feature: ["chat"] } } }],
    budgets: [{ id: "per-user", scope: { endUser: { project: "tests" } }, period: "day", limit: 100, mode: "strict" }],
  };
  await withRelay(mock.url, config, async ({ relay, store }) => {
    const ids: string[] = [];
    for (const user of ["ann", "ann", "ben"]) {
      const response = await post(relay.url, "/v1/chat/completions", chatBody(), { "x-renio-end-user": user, "x-renio-tags": "feature=chat" });
      await response.arrayBuffer();
      ids.push(response.headers.get("x-request-id")!);
    }
    const entries = await finishedEntries(store, ids);
    const total = ids.reduce((sum, id) => sum + entries.get(id)!.cost!, 0);
    const get = async (path: string) => {
      const response = await fetch(`${relay.url}/admin${path}`, { headers: { authorization: `Bearer ${adminToken}` } });
      assert.equal(response.status, 200, path);
      return (await response.json()) as Record<string, unknown>;
    };
    const today = new Date().toISOString().slice(0, 10);
    const body = (await get("/spenders")) as { teams: Array<{ day: string; group: string; calls: number; cost: number }>; tags: typeof body.teams; endUsers: Array<{ endUser: string; calls: number }> };
    assert.deepEqual(body.teams.map((r) => [r.day, r.group, r.calls]), [[today, "growth", 3]]);
    assert.ok(Math.abs(body.teams[0]!.cost - total) < 1e-9);
    assert.deepEqual(body.tags.map((r) => [r.group, r.calls]), [["feature=chat", 3]]);
    assert.deepEqual(body.endUsers.map((r) => [r.endUser, r.calls]), [["ann", 2], ["ben", 1]]);
    const users = (await get("/spenders/budgets/per-user")) as { data: Array<{ endUser: string; spent: number }> };
    assert.deepEqual(users.data.map((r) => r.endUser), ["ann", "ben"], "most used first");
    const listed = (await get("/budgets")) as { data: Array<{ budgetId: string }> };
    assert.deepEqual(listed.data.filter((r) => r.budgetId.startsWith("per-user")).map((r) => r.budgetId), ["per-user"], "the budget list shows the template, not a row per end user");
  });
});
