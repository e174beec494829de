import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { formatAmount, formatNanos, fromNanos, sumAmounts, toNanos } from "../../src/shared/money.ts";
import { admin, ADMIN_TOKEN } from "../support/admin-api.ts";
import { startMockServer, type MockServer } from "../support/relay-harness.ts";
import { chatBody, mockStats, post } from "../support/relay-calls.ts";
import { relayConfig, runRenio, scratchDir, startRelayProcess, writeConfig } from "../support/relay-process.ts";

/**
 * Money leaves Renio printed from integer billionths: JSON, CLI text, metrics and headers show
 * the exact decimal, never the drift of a sum of binary fractions (0.1 + 0.2).
 */

describe("the money format", () => {
  test("integer billionths print as their exact decimal", () => {
    const cases: [number, string][] = [[0, "0"], [1, "0.000000001"], [-1, "-0.000000001"], [57_352_000, "0.057352"], [1_000_000_000, "1"], [-1_500_000_000, "-1.5"], [9_007_199_254_740_991, "9007199.254740991"]];
    for (const [nanos, text] of cases) assert.equal(formatNanos(nanos), text);
    assert.equal(formatAmount(0.1 + 0.2), "0.3");
    assert.equal(sumAmounts([0.1, 0.2]), 0.3);
  });

  test("for random amounts up to 2^23 units, the JSON number made from billionths prints the exact decimal", () => {
    // A small PRNG of our own (xorshift32), seeded: the same 20,000 amounts every run.
    let state = 0x9e3779b9;
    const next = () => ((state ^= state << 13), (state ^= state >>> 17), (state ^= state << 5), (state >>> 0) / 2 ** 32);
    for (let i = 0; i < 20_000; i++) {
      const nanos = Math.floor(next() * 2 ** 23 * 1e9 * (i % 3 === 0 ? 1e-6 : 1));
      const printed = JSON.stringify(fromNanos(nanos));
      assert.equal(printed.includes("e") ? formatNanos(toNanos(Number(printed))) : printed, formatNanos(nanos), String(nanos));
      // Sums of many amounts stay exact.
      assert.equal(toNanos(sumAmounts([fromNanos(nanos), 0.1, 0.2])), nanos + 300_000_000);
    }
  });
});

describe("money printed by a relay and its CLI", () => {
  let mock: MockServer;
  before(async () => {
    mock = await startMockServer();
  });
  after(() => mock.stop());

  test("reconciling reservations of 0.1 and 0.2 charges 0.3 in `--json`, the text, /admin/budgets and /metrics", async () => {
    const dir = scratchDir();
    const configPath = writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") }, {
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN, metricsToken: ADMIN_TOKEN },
      // 0.1 per output token and nothing for input: a call with max_tokens N reserves exactly N × 0.1.
      prices: { "mock-gpt": { input: 0, output: 100_000 } },
      budgets: [{ id: "all", scope: "total", period: "total", limit: 100 }],
    }));
    const relay = await startRelayProcess(configPath);
    const before = (await mockStats(mock.url)).received;
    // Held by the mock, then the relay is killed: both stay charged at their reservations.
    const held = [1, 2].map((tokens) => post(relay.url, "/v1/chat/completions", chatBody({ max_tokens: tokens }), { "x-mock-fault": "delay=3000" }).then((r) => r.body?.cancel(), () => undefined));
    const deadline = Date.now() + 10_000;
    while ((await mockStats(mock.url)).received - before < 2) {
      assert.ok(Date.now() < deadline, "the mock received both calls");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await relay.stop("SIGKILL");
    await Promise.all(held);
    // A start and stop marks them interrupted (pending reconciliation).
    const restarted = await startRelayProcess(configPath);
    assert.equal((await restarted.stop()).code, 0, restarted.output());

    const json = await runRenio(["budget", "reconcile", "--json", "--config", configPath]);
    assert.equal(json.code, 0, json.stderr);
    assert.match(json.stdout, /"charged":0\.3\b/);
    assert.doesNotMatch(json.stdout, /0000000/);
    assert.deepEqual(JSON.parse(json.stdout), { entries: 2, charged: 0.3, released: 0 });

    const relayAgain = await startRelayProcess(configPath);
    try {
      const listed = await fetch(`${relayAgain.url}/admin/budgets`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const text = await listed.text();
      assert.match(text, /"spent":0\.3[,}]/);
      assert.match(text, /"remaining":99\.7[,}]/);
      const metrics = await (await fetch(`${relayAgain.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
      assert.match(metrics, /^renio_budget_spent\{budget="all",period="total",mode="strict"\} 0\.3$/m);
      assert.match(metrics, /^renio_budget_remaining\{budget="all",period="total",mode="strict"\} 99\.7$/m);
      const status = await runRenio(["budget", "status", "--config", configPath]);
      assert.match(status.stdout, /\ball\s+total\s+total\s+strict\s+100\s+0\.3\s+0\s+99\.7\b/);
      const journal = await admin<{ data: { cost: number | null }[] }>(relayAgain.url, "GET", "/journal");
      assert.deepEqual(journal.body.data.map((entry) => entry.cost).sort(), [0.1, 0.2]);
    } finally {
      await relayAgain.stop();
    }
  });
});
