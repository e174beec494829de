import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createSqlLedger } from "../../src/journal/sql-ledger.ts";
import { LATENCY_BINS, quantile } from "../../src/storage/queries/store-usage.ts";
import { journalStart, okCompletion } from "../support/journal-fixtures.ts";
import { backends } from "../support/store-targets.ts";

const HOUR = 3_600_000;
const H = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;

/** The bin of LATENCY_BINS holding `ms`, as [lower, upper]. */
function binAround(ms: number): [number, number] {
  const i = LATENCY_BINS.findIndex((bound) => ms <= bound);
  return [i === 0 ? 0 : LATENCY_BINS[i - 1]!, LATENCY_BINS[i]!];
}

describe("latency quantiles from a histogram", () => {
  it("interpolates within the bin holding the rank", () => {
    const counts = new Array<number>(LATENCY_BINS.length + 1).fill(0);
    const i = LATENCY_BINS.indexOf(10);
    counts[i] = 50; // 50 values in (7, 10]
    counts[i + 1] = 50; // 50 values in (10, 15]
    assert.equal(quantile(counts, 0.5), 10);
    assert.equal(quantile(counts, 0.75), 12.5);
    assert.equal(quantile(counts.map(() => 0), 0.5), null);
  });
});

for (const backend of backends) {
  describe(`dashboard aggregates: ${backend.name}`, () => {
    it("totals per group and per hour bucket, with percentiles from the bins", async () => {
      const store = await (await backend.target()).open();
      const ledger = createSqlLedger(store);
      const calls = [
        { at: H + 1_000, keyId: "k1", model: "a", totalMs: 9, upstreamMs: 7, outcome: "ok", cost: 0.25 },
        { at: H + 2_000, keyId: "k1", model: "b", totalMs: 9, upstreamMs: 7, outcome: "ok", cost: 0.5 },
        { at: H + 3_000, keyId: "k2", model: "a", totalMs: 120, upstreamMs: 119, outcome: "upstream_error", cost: 0 },
        { at: H + HOUR + 5, keyId: "k2", model: "a", totalMs: 30, upstreamMs: null, outcome: "ok", cost: 1 },
      ] as const;
      for (const call of calls) {
        const start = journalStart({ receivedAt: call.at, keyId: call.keyId, model: call.model });
        await ledger.admit(start, []);
        ledger.complete(start.id, okCompletion({ outcome: call.outcome, totalMs: call.totalMs, upstreamMs: call.upstreamMs, cost: call.cost }), [], call.cost);
      }
      await ledger.flush();
      const range = { since: H, until: H + 2 * HOUR };

      const [all] = await store.usageByGroup(range);
      assert.deepEqual(
        { group: all!.group, calls: all!.calls, ok: all!.ok, errors: all!.errors, refused: all!.refused, inFlight: all!.inFlight, input: all!.inputTokens, lastAt: all!.lastAt },
        { group: null, calls: 4, ok: 3, errors: 1, refused: 0, inFlight: 0, input: 40, lastAt: H + HOUR + 5 },
      );
      assert.ok(Math.abs(all!.cost - 1.75) < 1e-9);

      const byKey = await store.usageByGroup(range, "key");
      assert.deepEqual(byKey.map((g) => [g.group, g.calls, g.errors]), [["k1", 2, 0], ["k2", 2, 1]]);
      const k1 = byKey[0]!;
      const [low, high] = binAround(9);
      assert.ok(k1.totalMsP50! > low && k1.totalMsP50! <= high, `p50 ${k1.totalMsP50} in (${low}, ${high}]`);
      const [olow, ohigh] = binAround(2);
      assert.ok(k1.overheadMsP95! > olow && k1.overheadMsP95! <= ohigh, `overhead p95 ${k1.overheadMsP95} in (${olow}, ${ohigh}]`);
      const withoutLatency = await store.usageByGroup(range, "key", false);
      assert.equal(withoutLatency[0]!.totalMsP50, null);

      const series = await store.usageSeries({ ...range, bucketMs: HOUR });
      assert.deepEqual(series.map((b) => [b.at, b.calls, b.errors]), [[H, 3, 1], [H + HOUR, 1, 0]]);
      assert.equal(series[1]!.overheadMsP50, null, "no upstream time: no overhead");
      assert.ok(Math.abs(series[0]!.cost - 0.75) < 1e-9);
      await ledger.close();
    });
  });
}
