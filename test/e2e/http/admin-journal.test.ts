import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import type { Store } from "../../../src/storage/store.ts";
import type { RelayUnderTest } from "../../support/relay-harness.ts";
import { allEntries, chatBody, errorOf, finishedEntries, post } from "../../support/relay-calls.ts";
import { runRenio, writeConfig } from "../../support/relay-process.ts";
import { startMockRelay } from "../../support/with-relay.ts";

const ADMIN_TOKEN = "admin-token-for-tests-0123456789";
const OTHER_KEY = "sk-renio-other-key-0003";
let relay: RelayUnderTest;
let store: Store;
let stop: () => Promise<void>;
let configPath: string;
let ids: string[];

before(async () => {
  ({ relay, store, stop } = await startMockRelay({
    config: {
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
      keys: [
        { id: "test", secret: "sk-renio-test-key-0001", project: "tests" },
        { id: "other", secret: OTHER_KEY, project: "others" },
      ],
      budgets: [
        { id: "all", scope: "total", period: "total", limit: 50 },
        { id: "others-daily", scope: { project: "others" }, period: "day", limit: 5, mode: "observe" },
      ],
    },
  }));
  configPath = writeConfig(relay.dir, relay.config as unknown as Record<string, unknown>);
  const responses = [];
  for (let i = 0; i < 3; i++) responses.push(await post(relay.url, "/v1/chat/completions", chatBody()));
  for (let i = 0; i < 2; i++) responses.push(await post(relay.url, "/v1/chat/completions", chatBody(), { authorization: `Bearer ${OTHER_KEY}` }));
  responses.push(await post(relay.url, "/v1/chat/completions", "{not json"));
  for (const response of responses) await response.arrayBuffer();
  ids = responses.map((r) => r.headers.get("x-request-id")!);
  await finishedEntries(store, ids);
});

after(() => stop());

/** GET with the admin token, another token, or (null) none. */
function admin(path: string, token: string | null = ADMIN_TOKEN): Promise<Response> {
  return fetch(`${relay.url}${path}`, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
}

async function page(query: string): Promise<{ data: JournalEntry[]; next_cursor: string | null }> {
  const response = await admin(`/admin/journal?${query}`);
  assert.equal(response.status, 200);
  return (await response.json()) as { data: JournalEntry[]; next_cursor: string | null };
}

describe("GET /admin/journal and /admin/budgets", () => {
  test("need the admin token", async () => {
    for (const path of ["/admin/journal", "/admin/budgets"]) {
      for (const token of [null, "admin-token-for-tests-WRONG-WRONG", "sk-renio-test-key-0001"]) {
        const response = await admin(path, token);
        assert.equal(response.status, 401, `${path} with ${token ?? "no token"}`);
        assert.equal((await errorOf(response)).code, "unauthorized");
      }
    }
  });

  test("cursor pagination walks every entry once, newest first", async () => {
    const seen: JournalEntry[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const result = await page(`limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`);
      assert.ok(result.data.length <= 2);
      seen.push(...result.data);
      cursor = result.next_cursor;
      assert.ok(++pages <= 10, "pagination ends");
    } while (cursor !== null);
    assert.equal(pages, 3);
    assert.deepEqual(seen.map((e) => e.id).sort(), [...ids].sort());
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1]!.receivedAt >= seen[i]!.receivedAt, "newest first");
    assert.deepEqual(seen.map((e) => e.id), ids.slice().reverse());
  });

  test("filters: key, outcome, since/until", async () => {
    const other = await page("key=other");
    assert.deepEqual(other.data.map((e) => e.id).sort(), ids.slice(3, 5).sort());
    const refused = await page("outcome=refused");
    assert.deepEqual(refused.data.map((e) => [e.id, e.errorCode]), [[ids[5], "invalid_json"]]);
    const ok = await page("outcome=ok&key=test");
    assert.equal(ok.data.length, 3);
    const future = await page(`since=${new Date(Date.now() + 3_600_000).toISOString()}`);
    assert.equal(future.data.length, 0);
    const all = await allEntries(store);
    const middle = all.find((e) => e.id === ids[2])!;
    const until = await page(`until=${middle.receivedAt}`);
    assert.ok(until.data.every((e) => e.receivedAt < middle.receivedAt));
    assert.ok(until.data.some((e) => e.id === ids[0]));
  });

  test("bad query values are 400 invalid_request", async () => {
    for (const query of ["limit=0", "limit=5000", "limit=abc", "since=yesterday-ish", "cursor=garbage", "cursor=12345"]) {
      const response = await admin(`/admin/journal?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal((await errorOf(response)).code, "invalid_request");
    }
  });

  test("budgets: stored usage with scope and mode", async () => {
    const response = await admin("/admin/budgets");
    assert.equal(response.status, 200);
    const { data } = (await response.json()) as { data: Array<{ budgetId: string; scope: unknown; mode: string | null; spent: number; reserved: number; limit: number }> };
    const all = data.find((b) => b.budgetId === "all")!;
    const entries = await allEntries(store);
    const settled = entries.reduce((sum, e) => sum + (e.cost ?? 0), 0);
    assert.equal(all.scope, "total");
    assert.equal(all.limit, 50);
    assert.equal(all.reserved, 0);
    assert.ok(Math.abs(all.spent - settled) < 1e-9);
    const others = data.find((b) => b.budgetId === "others-daily")!;
    assert.deepEqual(others.scope, { project: "others" });
    assert.equal(others.mode, "observe");
    const otherCost = entries.filter((e) => e.keyId === "other").reduce((sum, e) => sum + (e.cost ?? 0), 0);
    assert.ok(otherCost > 0 && Math.abs(others.spent - otherCost) < 1e-9);
  });
});

describe("CLI against the relay's config", () => {
  test("renio journal list --json (with filters)", async () => {
    const listed = await runRenio(["journal", "list", "--json", "--config", configPath]);
    assert.equal(listed.code, 0, listed.stderr);
    const entries = JSON.parse(listed.stdout) as JournalEntry[];
    assert.deepEqual(entries.map((e) => e.id), ids.slice().reverse());
    const filtered = await runRenio(["journal", "list", "--key", "other", "--outcome", "ok", "--limit", "1", "--json", "--config", configPath]);
    const one = JSON.parse(filtered.stdout) as JournalEntry[];
    assert.deepEqual(one.map((e) => e.id), [ids[4]]);
  });

  test("renio journal export --format csv", async () => {
    const exported = await runRenio(["journal", "export", "--format", "csv", "--config", configPath]);
    assert.equal(exported.code, 0, exported.stderr);
    const lines = exported.stdout.trimEnd().split("\n");
    const header = lines[0]!.split(",");
    assert.equal(lines.length, ids.length + 1);
    const idColumn = header.indexOf("id");
    const outcomeColumn = header.indexOf("outcome");
    assert.ok(idColumn >= 0 && outcomeColumn >= 0 && header.includes("cost"));
    const rows = new Map(lines.slice(1).map((line) => [line.split(",")[idColumn], line.split(",")[outcomeColumn]]));
    assert.deepEqual([...rows.keys()].sort(), [...ids].sort());
    assert.equal(rows.get(ids[5]), "refused");
    assert.equal(rows.get(ids[0]), "ok");
  });

  test("renio budget status --json", async () => {
    const status = await runRenio(["budget", "status", "--json", "--config", configPath]);
    assert.equal(status.code, 0, status.stderr);
    const rows = JSON.parse(status.stdout) as Array<{ budgetId: string; scope: string; period: string; limit: number; spent: number; reserved: number; remaining: number }>;
    assert.deepEqual(rows.map((r) => [r.budgetId, r.scope]), [["all", "total"], ["others-daily", "project:others"]]);
    const [usage] = await store.budgetUsage([{ budgetId: "all", period: "total" }]);
    const all = rows[0]!;
    assert.ok(all.spent > 0 && Math.abs(all.spent - usage!.spent) < 1e-9);
    assert.ok(Math.abs(all.remaining - (50 - all.spent)) < 1e-9);
    assert.match(rows[1]!.period, /^\d{4}-\d{2}-\d{2}$/);
  });
});
