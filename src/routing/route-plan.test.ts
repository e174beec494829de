import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RouteCursor, type RoutePlan, type Target } from "./route-plan.ts";
import { seededRandom, testRouter } from "../../test/support/routing-test-support.ts";
import { attemptEnded, attemptStarted } from "./target-health.ts";

const NOW = Date.UTC(2026, 11, 4, 12, 0, 0);
const COOLDOWN = { failures: 1, windowMs: 60_000, cooldownMs: 30_000 };

function planOf(models: Record<string, unknown>, model = Object.keys(models)[0]!): RoutePlan {
  const { router, key } = testRouter(models);
  return router.resolve(key, model, "openai");
}

/** The provider each of `calls` first attempts goes to, counted. */
function spread(plan: RoutePlan, calls: number, random: () => number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < calls; i++) {
    const target = new RouteCursor(plan.stages, random).next(NOW)!;
    counts.set(target.provider.id, (counts.get(target.provider.id) ?? 0) + 1);
  }
  return counts;
}

function failOnce(target: Target): void {
  attemptEnded(target.health, attemptStarted(target.health, NOW), "failed", NOW, COOLDOWN, "upstream_503");
}

describe("target selection", () => {
  test("weighted random inside the group: 3:1 weights give about 3:1 over 10,000 draws", () => {
    const plan = planOf({ m: { targets: [{ provider: "a", weight: 3 }, { provider: "b", weight: 1 }] } });
    const counts = spread(plan, 10_000, seededRandom(7));
    const a = counts.get("a") ?? 0;
    // Binomial(10000, 0.75): sd 43; 5 sd either side.
    assert.ok(Math.abs(a - 7500) < 220, `a got ${a} of 10000`);
    assert.equal(a + (counts.get("b") ?? 0), 10_000);
  });

  test("a plain list is an ordered failover: its first target serves while usable; `targets` of the object form are one group", () => {
    assert.deepEqual([...spread(planOf({ m: [{ provider: "a" }, { provider: "b" }] }), 100, seededRandom(8)).keys()], ["a"]);
    assert.deepEqual([...spread(planOf({ m: { targets: [{ provider: "a" }, { provider: "b" }] } }), 100, seededRandom(8)).keys()].sort(), ["a", "b"]);
  });

  test("the highest priority group is used while it has a usable target; lower groups only after", () => {
    const plan = planOf({ m: { targets: [{ provider: "a", priority: 0 }, { provider: "b", priority: 5 }, { provider: "c", priority: 5 }] } });
    assert.deepEqual([...spread(plan, 200, seededRandom(1)).keys()].sort(), ["b", "c"]);
    const cursor = new RouteCursor(plan.stages, seededRandom(2));
    const order: string[] = [];
    for (let target = cursor.next(NOW); target !== undefined && order.length < 3; target = cursor.next(NOW)) {
      cursor.started(target);
      order.push(target.provider.id);
    }
    // Untried targets first, highest group first: b and c (in either order), then a.
    assert.deepEqual(order.slice(0, 2).sort(), ["b", "c"]);
    assert.equal(order[2], "a");
  });

  test("maxAttempts bounds the attempts on a model; then its fallbacks follow, each model once", () => {
    const plan = planOf({
      m: { targets: [{ provider: "a" }], fallbacks: ["n", "o"], retry: { maxAttempts: 2 } },
      n: { targets: [{ provider: "b" }], fallbacks: ["o"] },
      o: { provider: "c" },
    });
    assert.deepEqual(plan.stages.map((stage) => stage.model), ["m", "n", "o"]);
    const cursor = new RouteCursor(plan.stages, seededRandom(3));
    const order: string[] = [];
    for (let target = cursor.next(NOW); target !== undefined; target = cursor.next(NOW)) {
      cursor.started(target);
      order.push(`${target.model}:${target.provider.id}`);
    }
    assert.deepEqual(order, ["m:a", "m:a", "n:b", "o:c"]);
  });

  test("a cooling-down target is skipped while another is usable; a route of one target ignores cooldowns", () => {
    const plan = planOf({ m: [{ provider: "a" }, { provider: "b" }] });
    failOnce(plan.targets[0]!);
    assert.deepEqual([...spread(plan, 50, seededRandom(4)).keys()], ["b"]);
    const single = planOf({ s: { provider: "a" } });
    failOnce(single.targets[0]!);
    assert.equal(new RouteCursor(single.stages, Math.random, false).next(NOW)?.provider.id, "a");
    assert.equal(new RouteCursor(single.stages, Math.random, true).next(NOW), undefined);
  });

  test("a target excluded (its retry-after too long) is not tried again in its stage", () => {
    const plan = planOf({ m: { targets: [{ provider: "a" }, { provider: "b" }], retry: { maxAttempts: 5 } } });
    const cursor = new RouteCursor(plan.stages, seededRandom(5));
    const a = plan.targets[0]!;
    cursor.started(a);
    cursor.exclude(a);
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const target = cursor.next(NOW)!;
      cursor.started(target);
      seen.add(target.provider.id);
    }
    assert.deepEqual([...seen], ["b"]);
  });

  test("least busy: the target with the fewest attempts in flight", () => {
    const plan = planOf({ m: { targets: [{ provider: "a" }, { provider: "b" }, { provider: "c" }], strategy: "least-busy" } });
    const [a, b] = plan.targets as [Target, Target, Target];
    attemptStarted(a.health, NOW);
    attemptStarted(b.health, NOW);
    assert.deepEqual([...spread(plan, 50, seededRandom(6)).keys()], ["c"]);
  });
});
