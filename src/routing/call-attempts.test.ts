import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CallAttempts } from "./call-attempts.ts";
import { testRouter } from "../../test/support/routing-test-support.ts";
import type { Target } from "./route-plan.ts";
import { circuitState } from "./target-health.ts";

const NOW = Date.UTC(2026, 11, 4, 12, 0, 0);
const COOLDOWN = { failures: 2, windowMs: 60_000, cooldownMs: 30_000 };
/** Targets a and b of a fresh router (their health new). */
function twoTargets(): [Target, Target] {
  const { router, key } = testRouter({ m: [{ provider: "a" }, { provider: "b" }] });
  return router.resolve(key, "m", "openai").targets as [Target, Target];
}

describe("a call's attempts: records, charges, the ceiling of a strict budget", () => {
  test("an attempt that may have been billed is charged its bound; one that cannot, nothing", () => {
    const [a, b] = twoTargets();
    const attempts = new CallAttempts({ boundOf: () => 0.5, ceiling: undefined }, () => NOW, COOLDOWN);
    attempts.begin(a);
    attempts.failed(503, "upstream_503", false, "failed");
    attempts.begin(b);
    attempts.failed(null, "upstream_reset", true, "failed");
    assert.deepEqual(attempts.records.map((r) => [r.provider, r.status, r.errorCode, r.cost]), [["a", 503, "upstream_503", 0], ["b", null, "upstream_reset", 0.5]]);
    assert.equal(attempts.charged, 0.5);
    assert.equal(attempts.estimated, true);
    assert.equal(attempts.count, 2);
  });

  test("under a strict budget the next attempt must fit the reservation with what was (or may have been) charged", () => {
    const [a, b] = twoTargets();
    const attempts = new CallAttempts({ boundOf: () => 1, ceiling: 2 }, () => NOW, COOLDOWN);
    attempts.begin(a);
    assert.equal(attempts.roomFor(b, true), true, "the open attempt's bound plus the next fit 2");
    attempts.failed(null, "upstream_timeout", true, "failed");
    attempts.begin(b);
    assert.equal(attempts.roomFor(a, false), true, "an error answer charges nothing: 1 + 1 fits");
    assert.equal(attempts.roomFor(a, true), false, "a second possibly billed attempt would make 3 > 2");
    const unbounded = new CallAttempts({ boundOf: () => 1, ceiling: undefined }, () => NOW, COOLDOWN);
    unbounded.begin(a);
    assert.equal(unbounded.roomFor(b, true), true, "without a strict budget there is no ceiling");
  });

  test("failures feed the target's cooldown; the call's end closes its last attempt", () => {
    const [a, b] = twoTargets();
    const attempts = new CallAttempts({ boundOf: () => null, ceiling: undefined }, () => NOW, COOLDOWN);
    for (let i = 0; i < 2; i++) {
      attempts.begin(a);
      attempts.failed(502, "upstream_502", false, "failed");
    }
    assert.equal(circuitState(a.health, NOW), "open");
    attempts.begin(b);
    assert.equal(b.health.inFlight, 1);
    attempts.finish({ kind: "completed", status: 200, usage: null, usageFinal: false, mayHaveBeenBilled: true, firstByteAt: null, upstreamMs: 3, responseBody: null }, null);
    assert.equal(b.health.inFlight, 0);
    assert.deepEqual(attempts.records.at(-1), { ...attempts.records.at(-1)!, provider: "b", status: 200, errorCode: null, cost: null });
    assert.equal(attempts.summary(), "a upstream_502, a upstream_502, b 200");
  });
});
