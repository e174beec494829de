import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { admin, ADMIN_TOKEN, errorIn } from "../../support/admin-api.ts";
import { startMockServer, type MockServer } from "../../support/relay-harness.ts";
import { chatBody, finishedEntries, post } from "../../support/relay-calls.ts";
import { withRelay } from "../../support/with-relay.ts";
import process from "node:process";
import { testPostgresUrl } from "../../support/postgres.ts";
import { pgExec } from "../../support/store-targets.ts";

/** A fresh database on the test PostgreSQL. */
async function scratchDatabase(name: string): Promise<string> {
  const base = testPostgresUrl();
  await pgExec(base, `create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

let mock: MockServer;

before(async () => {
  mock = await startMockServer();
});

after(async () => {
  await mock.stop();
});

/** The team a call of the harness key (project `tests`) is journaled with. */
async function teamOfCall(url: string, store: Parameters<typeof finishedEntries>[0]): Promise<string | null> {
  const response = await post(url, "/v1/chat/completions", chatBody());
  await response.arrayBuffer();
  const id = response.headers.get("x-request-id")!;
  return (await finishedEntries(store, [id])).get(id)!.team;
}

test("teams at run time: created and deleted through the admin API (audited), in force at once; a project in one team only; a team budget and a cheaper model created at run time", async () => {
  const config = {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
    models: { "mock-gpt": { provider: "mock" }, "mock-claude": { provider: "mock" } },
    teams: [{ id: "platform", projects: ["infra"] }],
  };
  await withRelay(mock.url, config, async ({ relay, store }) => {
    assert.equal(await teamOfCall(relay.url, store), null);
    const created = await admin(relay.url, "POST", "/teams", { id: "growth", projects: ["tests"] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(await teamOfCall(relay.url, store), "growth", "in force before the answer");
    const listed = await admin<{ data: Array<{ id: string; source: string }> }>(relay.url, "GET", "/teams");
    assert.deepEqual(listed.body.data.map((t) => [t.id, t.source]), [["platform", "config"], ["growth", "store"]]);
    const taken = await admin(relay.url, "POST", "/teams", { id: "other", projects: ["tests"] });
    assert.equal(taken.status, 409);
    assert.match(errorIn(taken).message, /`tests` is in team `growth`/);
    assert.equal((await admin(relay.url, "DELETE", "/teams/platform")).status, 409, "a config team is changed in the config");
    // A team budget created at run time, serving a cheaper model once the one asked for does not fit.
    const budget = await admin(relay.url, "POST", "/budgets", { id: "growth-day", scope: { team: "growth" }, period: "day", limit: 0, onExceeded: { model: "mock-claude" } });
    assert.equal(budget.status, 201, JSON.stringify(budget.body));
    assert.deepEqual((await store.listBudgets()).find((b) => b.id === "growth-day")?.onExceeded, { model: "mock-claude" }, "stored with its cheaper model");
    const refused = await post(relay.url, "/v1/chat/completions", chatBody());
    assert.equal(refused.status, 429, "at limit 0 neither model fits");
    await refused.arrayBuffer();
    const audit = await admin<{ data: Array<{ action: string }> }>(relay.url, "GET", "/audit");
    assert.ok(audit.body.data.some((event) => event.action === "team.create"));
    assert.equal((await admin(relay.url, "DELETE", "/teams/growth")).status, 200);
    assert.equal(await teamOfCall(relay.url, store), null);
    assert.equal((await admin(relay.url, "DELETE", "/teams/growth")).status, 404);
  });
});

for (const backend of ["sqlite", "postgres"] as const) {
  test(`a per-end-user budget created at run time: each end user's row follows it, paused, lowered and deleted (${backend})`, async () => {
    const storage = backend === "postgres" ? { storage: { type: "postgres", url: await scratchDatabase(`renio_users_${process.pid}`) } } : {};
    const config = { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN }, ...storage };
    await withRelay(mock.url, config, async ({ relay }) => {
      const created = await admin(relay.url, "POST", "/budgets", { id: "users", scope: { endUser: { project: "tests" } }, period: "day", limit: 10 });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const call = async () => {
        const response = await post(relay.url, "/v1/chat/completions", chatBody(), { "x-renio-end-user": "ann" });
        await response.arrayBuffer();
        return [response.status, response.headers.get("x-renio-budget")];
      };
      assert.deepEqual((await call())[0], 200);
      assert.equal((await admin(relay.url, "PATCH", "/budgets/users", { paused: true })).status, 200);
      assert.deepEqual(await call(), [429, "users/ann"], "a paused template pauses every end user's row");
      assert.equal((await admin(relay.url, "PATCH", "/budgets/users", { paused: false, limit: 0 })).status, 200);
      assert.deepEqual(await call(), [429, "users/ann"], "its lowered limit applies to the rows");
      assert.equal((await admin(relay.url, "DELETE", "/budgets/users")).status, 200);
      assert.deepEqual((await call())[0], 200, "deleted, it no longer applies");
    });
  });
}
