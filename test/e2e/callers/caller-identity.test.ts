import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import { startMockServer, type MockServer } from "../../support/relay-harness.ts";
import { chatBody, errorOf, finishedEntries, post } from "../../support/relay-calls.ts";
import { withRelay } from "../../support/with-relay.ts";
import { spendReport, type SpendRow } from "../../../src/budgets/spend-report.ts";

const KEY_A = "sk-renio-app-a-0001";
const KEY_B = "sk-renio-app-b-0001";
const CONFIG = {
  teams: [{ id: "growth", projects: ["app-b"] }],
  keys: [
    { id: "app-a", secret: KEY_A, project: "app-a", endUser: ["header"], tags: { allow: { feature: ["search", "chat"] } } },
    { id: "app-b", secret: KEY_B, project: "app-b", tags: { allow: { feature: ["search", "chat"] }, unknown: "drop" } },
  ],
  budgets: [
    { id: "users-a", scope: { endUser: { project: "app-a" } }, period: "day", limit: 0, mode: "strict" },
    { id: "search", scope: { tag: { name: "feature", value: "search" } }, period: "day", limit: 0, mode: "strict" },
  ],
};

let mock: MockServer;

before(async () => {
  mock = await startMockServer();
});

after(async () => {
  await mock.stop();
});

const as = (key: string, headers: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...headers });

/** The call's journal entry, once finished. */
async function entryOf(store: Parameters<typeof finishedEntries>[0], response: Response): Promise<JournalEntry> {
  await response.arrayBuffer();
  const id = response.headers.get("x-request-id")!;
  return (await finishedEntries(store, [id])).get(id)!;
}

describe("who a call is for", () => {
  test("an end user is always within its key's project: another app's key cannot charge it", async () => {
    await withRelay(mock.url, CONFIG, async ({ relay, store }) => {
      const fromB = await post(relay.url, "/v1/chat/completions", chatBody({ user: "alice" }), as(KEY_B));
      assert.equal(fromB.status, 200, "app-b's alice is not app-a's alice");
      const entry = await entryOf(store, fromB);
      assert.equal(entry.endUser, "alice");
      assert.equal(entry.project, "app-b");
      const fromA = await post(relay.url, "/v1/chat/completions", chatBody(), as(KEY_A, { "x-renio-end-user": "alice" }));
      assert.equal(fromA.status, 429);
      assert.equal(fromA.headers.get("x-renio-budget"), "users-a/alice");
      assert.equal((await errorOf(fromA)).code, "budget_exceeded");
      const rows = (await store.budgetUsage()).map((row) => row.budgetId);
      assert.deepEqual(rows.filter((id) => id.startsWith("users-a/") && id !== "users-a/alice"), [], "app-b's call created no row of app-a's budget");
    });
  });

  test("a key takes its end user only from the sources it allows; each wire's field is read", async () => {
    await withRelay(mock.url, { ...CONFIG, budgets: [] }, async ({ relay, store }) => {
      const ignored = await entryOf(store, await post(relay.url, "/v1/chat/completions", chatBody({ user: "bob" }), as(KEY_A)));
      assert.equal(ignored.endUser, null, "app-a names end users by header only");
      const safety = await entryOf(store, await post(relay.url, "/v1/chat/completions", chatBody({ safety_identifier: "carol" }), as(KEY_B)));
      assert.equal(safety.endUser, "carol");
      const anthropic = { model: "mock-claude", max_tokens: 50, messages: [{ role: "user", content: "hi" }], metadata: { user_id: "dave" } };
      const messages = await entryOf(store, await post(relay.url, "/v1/messages", anthropic, as(KEY_B)));
      assert.equal(messages.endUser, "dave");
      const bad = await post(relay.url, "/v1/chat/completions", chatBody({ user: "eve\u0000" }), as(KEY_B));
      assert.equal(bad.status, 400);
      const error = await errorOf(bad);
      assert.equal(error.code, "invalid_end_user");
      assert.match(error.message, /`user` field contains a control character \(U\+0000\)/);
    });
  });

  test("tags: allowed ones are journaled and charged; others are refused with the reason, or dropped, as the key says", async () => {
    await withRelay(mock.url, CONFIG, async ({ relay, store }) => {
      const chat = await entryOf(store, await post(relay.url, "/v1/chat/completions", chatBody(), as(KEY_A, { "x-renio-tags": "feature=chat" })));
      assert.deepEqual(chat.tags, [["feature", "chat"]]);
      const fromMetadata = await entryOf(store, await post(relay.url, "/v1/chat/completions", chatBody({ metadata: { feature: "chat", other: "x" } }), as(KEY_A)));
      assert.deepEqual(fromMetadata.tags, [["feature", "chat"]], "metadata members named in the allowlist are tags; others stay the provider's");
      const search = await post(relay.url, "/v1/chat/completions", chatBody(), as(KEY_A, { "x-renio-tags": "feature=search" }));
      assert.equal(search.status, 429, "the tag's budget applies");
      assert.equal(search.headers.get("x-renio-budget"), "search");
      await search.arrayBuffer();
      const refused = await post(relay.url, "/v1/chat/completions", chatBody(), as(KEY_A, { "x-renio-tags": "feature=admin" }));
      assert.equal(refused.status, 400);
      const error = await errorOf(refused);
      assert.equal(error.code, "tag_not_allowed");
      assert.match(error.message, /`feature=admin`.*not allowed.*`tags.allow`/);
      const dropped = await post(relay.url, "/v1/chat/completions", chatBody(), as(KEY_B, { "x-renio-tags": "feature=admin, team=x" }));
      assert.equal(dropped.status, 200);
      assert.equal((await entryOf(store, dropped)).tags, null, "app-b drops tags outside its allowlist");
      const malformed = await post(relay.url, "/v1/chat/completions", chatBody(), as(KEY_B, { "x-renio-tags": "feature" }));
      assert.equal(malformed.status, 400);
      assert.equal((await errorOf(malformed)).code, "invalid_tags");
    });
  });

  test("the report groups spend by end user (within its project), team and tag", async () => {
    await withRelay(mock.url, { ...CONFIG, budgets: [] }, async ({ relay, store }) => {
      const calls: Array<[string, Record<string, string>]> = [
        [KEY_B, { "x-renio-end-user": "ann", "x-renio-tags": "feature=chat" }],
        [KEY_B, { "x-renio-end-user": "ann", "x-renio-tags": "feature=search" }],
        [KEY_B, { "x-renio-end-user": "ben" }],
        [KEY_A, { "x-renio-end-user": "ann" }],
      ];
      const costs: number[] = [];
      for (const [key, headers] of calls) costs.push((await entryOf(store, await post(relay.url, "/v1/chat/completions", chatBody(), as(key, headers)))).cost!);
      const report = async (by: "end-user" | "team" | "tag") => {
        const rows = spendReport({ by, period: "month" }, await store.journalSpend({ by }), [], [], "USD").rows as SpendRow[];
        return new Map(rows.map((row) => [row.group, { calls: row.calls, cost: row.cost }]));
      };
      const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;
      const byUser = await report("end-user");
      assert.deepEqual([...byUser.keys()].sort(), ["app-a/ann", "app-b/ann", "app-b/ben"], "the same name in two projects is two end users");
      assert.equal(byUser.get("app-b/ann")!.calls, 2);
      assert.ok(near(byUser.get("app-b/ann")!.cost, costs[0]! + costs[1]!));
      const byTeam = await report("team");
      assert.equal(byTeam.get("growth")!.calls, 3);
      assert.equal(byTeam.get(null)!.calls, 1, "app-a is in no team");
      const byTag = await report("tag");
      assert.equal(byTag.get("feature=chat")!.calls, 1);
      assert.ok(near(byTag.get("feature=search")!.cost, costs[1]!));
      assert.equal(byTag.get(null)!.calls, 2);
    });
  });
});
