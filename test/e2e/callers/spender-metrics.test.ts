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
