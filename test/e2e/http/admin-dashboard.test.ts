import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import type { Store } from "../../../src/storage/store.ts";
import { startRelay, TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";
import { chatBody, errorOf, finishedEntries, post } from "../../support/relay-calls.ts";
import { startMockRelay } from "../../support/with-relay.ts";
import type { UsageGroup } from "../../../src/journal/journal-store.ts";
import { binIndex, LATENCY_BINS } from "../../../src/storage/queries/latency-bins.ts";

const READ_TOKEN = "dashboard-read-token-0123456789ab";
const OTHER_KEY = "sk-renio-other-key-for-tests-0002";
let relay: RelayUnderTest;
let mockUrl: string;
let store: Store;
let stop: () => Promise<void>;
let entries: JournalEntry[];

before(async () => {
  let mock: { url: string };
  ({ relay, store, stop, mock } = await startMockRelay({
    config: {
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, admin: { tokens: [{ id: "dashboard", secret: READ_TOKEN, roles: ["read"] }] } },
      keys: [
        { id: "test", secret: TEST_KEY, project: "tests" },
        { id: "other", secret: OTHER_KEY, project: "others" },
      ],
      prices: { "mock-gpt": { input: 2, output: 8 }, "mock-claude": { input: 3, output: 15 } },
    },
  }));
  const calls = [
    post(relay.url, "/v1/chat/completions", chatBody()),
    post(relay.url, "/v1/chat/completions", chatBody()),
    post(relay.url, "/v1/chat/completions", chatBody({ model: "mock-claude" })),
    post(relay.url, "/v1/chat/completions", chatBody(), { "x-mock-fault": "status=502" }),
    post(relay.url, "/v1/chat/completions", chatBody(), { authorization: `Bearer ${OTHER_KEY}` }),
  ];
  const ids: string[] = [];
  for (const response of await Promise.all(calls)) {
    await response.arrayBuffer();
    ids.push(response.headers.get("x-request-id")!);
  }
  mockUrl = mock.url;
  entries = [...(await finishedEntries(store, ids)).values()];
  assert.equal(entries.length, 5);
});

after(() => stop());

async function dashboard<T>(path: string, token = READ_TOKEN): Promise<{ status: number; body: T }> {
  const response = await fetch(`${relay.url}/admin/dashboard/${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as T };
}

const sum = (list: JournalEntry[], pick: (e: JournalEntry) => number | null) => list.reduce((total, e) => total + (pick(e) ?? 0), 0);

describe("GET /admin/dashboard/*: aggregates of the journal for the dashboard", () => {
  test("overview: today's and this month's totals and the hourly series agree with the journal", async () => {
    const { status, body } = await dashboard<{
      today: Omit<UsageGroup, "group"> & { since: number };
      month: Omit<UsageGroup, "group"> & { since: number };
      series: { bucketMs: number; buckets: Array<{ at: number; calls: number; errors: number; cost: number; overheadMsP50: number | null; overheadMsP95: number | null }> };
    }>("overview");
    assert.equal(status, 200);
    for (const total of [body.today, body.month]) {
      const inPeriod = entries.filter((e) => e.receivedAt >= total.since); // all of them, unless the calls straddled midnight
      assert.equal(total.calls, inPeriod.length);
      assert.equal(total.errors, inPeriod.filter((e) => e.outcome === "upstream_error").length, "the 502");
      assert.equal(total.ok, inPeriod.filter((e) => e.outcome === "ok").length);
      assert.equal(total.inputTokens, sum(inPeriod, (e) => e.inputTokens));
      assert.equal(total.outputTokens, sum(inPeriod, (e) => e.outputTokens));
      assert.ok(Math.abs(total.cost - sum(inPeriod, (e) => e.cost)) < 1e-9);
    }
    assert.equal(body.month.errors, 1, "the 502");
    assert.ok(body.month.cost > 0);
    assert.equal(body.series.bucketMs, 3_600_000);
    assert.equal(sum(entries, () => 1), body.series.buckets.reduce((n, b) => n + b.calls, 0));
    const last = body.series.buckets.at(-1)!;
    assert.equal(last.at % 3_600_000, 0);
    assert.ok(last.overheadMsP50 !== null && last.overheadMsP95! >= last.overheadMsP50, "overhead percentiles from entries with an upstream time");
  });

  test("usage by key, project and model: one row per value, counts and cost as in the journal", async () => {
    for (const [by, pick] of [["key", (e: JournalEntry) => e.keyId], ["project", (e: JournalEntry) => e.project], ["model", (e: JournalEntry) => e.model]] as const) {
      const { status, body } = await dashboard<{ data: UsageGroup[] }>(`usage?by=${by}`);
      assert.equal(status, 200);
      const expected = new Map<string | null, JournalEntry[]>();
      for (const entry of entries) expected.set(pick(entry), [...(expected.get(pick(entry)) ?? []), entry]);
      assert.deepEqual(new Set(body.data.map((g) => g.group)), new Set(expected.keys()), by);
      for (const group of body.data) {
        const mine = expected.get(group.group)!;
        assert.equal(group.calls, mine.length, `${by} ${group.group}`);
        assert.ok(Math.abs(group.cost - sum(mine, (e) => e.cost)) < 1e-9);
        const totals = mine.map((e) => e.totalMs!).sort((a, b) => a - b);
        // Percentiles are interpolated within the histogram's bins: p95 lies between the lower edge of the fastest call's bin and the upper edge of the slowest's.
        const lowest = binIndex(totals[0]!);
        const highest = binIndex(totals.at(-1)!);
        const lowerEdge = lowest === 0 ? 0 : LATENCY_BINS[lowest - 1]!;
        const upperEdge = LATENCY_BINS[highest] ?? Infinity;
        assert.ok(group.totalMsP95! >= lowerEdge && group.totalMsP95! <= upperEdge, `p95 ${group.totalMsP95} within the bins of the observed times ${totals.join(", ")}`);
      }
    }
    const { body } = await dashboard<{ data: UsageGroup[] }>("usage?by=key&since=0&until=1");
    assert.deepEqual(body.data, [], "a range without entries");
  });

  test("bad parameters get a 400 naming the parameter; a wrong token a 401", async () => {
    const cases: Array<[string, RegExp]> = [
      ["usage?by=colour", /`by` must be one of key, project, model, provider, route/],
      ["usage?since=yesterday", /`since` must be an ISO 8601 time/],
      ["usage?since=10&until=5", /`since` must be before `until`/],
      ["overview?bucket_ms=10", /`bucket_ms` must be an integer of at least 1000/],
      ["overview?since=0&bucket_ms=1000", /more than 2000 buckets/],
    ];
    for (const [path, message] of cases) {
      const response = await fetch(`${relay.url}/admin/dashboard/${path}`, { headers: { authorization: `Bearer ${READ_TOKEN}` } });
      assert.equal(response.status, 400, path);
      const error = await errorOf(response);
      assert.equal(error.code, "invalid_request");
      assert.match(error.message, message);
    }
    const wrong = await fetch(`${relay.url}/admin/dashboard/overview`, { headers: { authorization: "Bearer not-a-token-at-all" } });
    assert.equal(wrong.status, 401);
    assert.equal((await errorOf(wrong)).code, "unauthorized");
  });
});

describe("GET /dashboard/: the page, from the executable's embedded assets", () => {
  test("served with a CSP allowing only this origin's scripts, and no inline script", async () => {
    const response = await fetch(`${relay.url}/dashboard/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
    const csp = response.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(await response.text(), /<script(?![^>]*\bsrc=)[^>]*>/, "every script is a separate asset");
    for (const [asset, marker] of [["uplot.js", "uPlot"], ["uplot.css", ".uplot"], ["dashboard.js", "textContent"], ["dashboard.css", ".card"]]) {
      const file = await fetch(`${relay.url}/dashboard/${asset}`);
      assert.equal(file.status, 200, asset);
      assert.equal(file.headers.get("x-content-type-options"), "nosniff");
      assert.ok((await file.text()).includes(marker!), asset);
    }
    assert.equal((await fetch(`${relay.url}/dashboard/secrets.json`)).status, 404);
  });

  test("a relay without admin tokens has no dashboard, as it has no admin routes", async () => {
    const bare = await startRelay(mockUrl);
    try {
      assert.equal((await fetch(`${bare.url}/dashboard/`)).status, 404);
      assert.equal((await fetch(`${bare.url}/admin/dashboard/overview`)).status, 404);
    } finally {
      await bare.stop();
    }
  });
});
