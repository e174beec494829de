/**
 * Micro-benchmark of routing: caller key lookup, model resolution, and picking a call's target
 * (weighted, least busy, with cooldowns to skip) and pricing its route.
 * `node_modules/.bin/bun bench/routing.bench.ts`
 */
import { Bench } from "tinybench";
import { validateConfig } from "../src/config/config-load.ts";
import { createProviders } from "../src/providers/provider-registry.ts";
import { createKeyring, presentedSecret } from "../src/keys/keyring.ts";
import { createModelRouter } from "../src/routing/model-router.ts";
import { createCallPricing } from "../src/pricing/call-pricing.ts";
import { RouteCursor } from "../src/routing/route-plan.ts";
import { quoteRoute } from "../src/pricing/route-quote.ts";
import { seededRandom } from "../test/support/routing-test-support.ts";
import { attemptEnded, attemptStarted } from "../src/routing/target-health.ts";
import { ROUTES } from "../src/shared/route-spec.ts";

/** A mid-sized deployment: 40 models over 3 providers, 200 keys (some restricted by model and region). */
const models: Record<string, unknown> = {};
for (let i = 0; i < 40; i++) models[`model-${i}`] = i % 4 === 0 ? [{ provider: "eu", model: `m-${i}` }, { provider: "us" }] : { provider: i % 2 === 0 ? "us" : "mock" };
models["mock-gpt"] = { provider: "mock" };
// Three deployments in one group (weights 5:3:2), a backup group, and the same behind least-busy routing.
const deployments = [{ provider: "us", model: "gpt-x", weight: 5 }, { provider: "eu", model: "gpt-x", weight: 3 }, { provider: "mock", model: "gpt-x", weight: 2 }, { provider: "mock", model: "gpt-y", priority: -1 }];
models["pool"] = { targets: deployments, fallbacks: ["mock-gpt"] };
models["pool-busy"] = { targets: deployments, strategy: "least-busy" };
// Three distinctly priced deployments, the cheapest picked first: the reservation is the dearest's.
models["tiered"] = { targets: [{ provider: "us", model: "gpt-cheap" }, { provider: "eu", model: "gpt-mid" }, { provider: "mock", model: "gpt-dear" }] };
const keys = Array.from({ length: 200 }, (_, i) => ({
  id: `key-${i}`,
  secret: `renio-secret-${i.toString().padStart(8, "0")}`,
  project: `project-${i % 10}`,
  ...(i % 3 === 0 ? { models: ["mock-gpt", "model-0", "model-4"], regions: ["eu", "local"] } : {}),
}));
const config = validateConfig({
  providers: {
    us: { type: "openai", baseUrl: "http://127.0.0.1:1/v1", region: "us" },
    eu: { type: "openai", baseUrl: "http://127.0.0.1:2/v1", region: "eu" },
    mock: { type: "mock", baseUrl: "http://127.0.0.1:3" },
  },
  models,
  keys,
  prices: {
    "gpt-x": { input: 1, output: 2 }, "gpt-y": { input: 1, output: 2 }, "mock-gpt": { input: 1, output: 2 },
    "gpt-cheap": { input: 0.5, output: 1 }, "gpt-mid": { input: 1, output: 4 }, "gpt-dear": { input: 3, output: 12 },
  },
  budgets: [{ id: "bench-total", scope: "total", period: "total", limit: 1e6, mode: "strict" }],
});
const providers = createProviders(config, () => Promise.reject(new Error("no network in benchmarks")));
const keyring = createKeyring(config.keys);
const router = createModelRouter(config, providers);

const SECRET = "renio-secret-00000099";
const RESTRICTED_SECRET = "renio-secret-00000099".replace("99", "09");
const headers = new Headers({ authorization: `Bearer ${SECRET}`, "content-type": "application/json", "user-agent": "OpenAI/JS 7.59.0" });
const key = keyring.find(SECRET)!;
const restricted = keyring.find(RESTRICTED_SECRET)!;
if (key === undefined || restricted === undefined || restricted.regions === null) throw new Error("benchmark setup: keys not found");

const random = seededRandom(1);
/** A key without model or region restrictions. */
const open = keyring.find("renio-secret-00000001")!;
const now = Date.now();
const mockPlan = router.resolve(open, "mock-gpt", "openai");
const poolPlan = router.resolve(open, "pool", "openai");
const busyPlan = router.resolve(open, "pool-busy", "openai");
const tieredPlan = router.resolve(open, "tiered", "openai");
// One deployment of the pool cools down: the pick must skip it.
const cooling = router.resolve(open, "model-0", "openai");
const settings = { failures: 1, windowMs: 60_000, cooldownMs: 3_600_000 };
attemptEnded(cooling.targets[0]!.health, attemptStarted(cooling.targets[0]!.health, now), "failed", now, settings, "upstream_503");
if (new RouteCursor(cooling.stages, random).next(now)?.provider.id !== "us") throw new Error("benchmark setup: the cooling target was picked");
const pricing = createCallPricing(config);
const route = ROUTES.get("/v1/chat/completions")!;
const quoteInput = { key: open, route, requestBytes: 260, maxOutputTokens: 16, now: new Date() };

const bench = new Bench({ name: "routing (200 keys, 40 models)", time: 250, warmupTime: 50 });
bench
  .add("presentedSecret(headers)", () => {
    if (presentedSecret(headers) === undefined) throw new Error("no secret");
  })
  .add("keyring.find (sha256 of the secret)", () => {
    if (keyring.find(SECRET) === undefined) throw new Error("no key");
  })
  .add("keyring.find, unknown secret", () => {
    if (keyring.find("renio-not-a-key-0000") !== undefined) throw new Error("found");
  })
  .add("router.resolve (cached)", () => {
    router.resolve(key, "mock-gpt", "openai");
  })
  .add("router.resolve, region-restricted key, 2 targets", () => {
    router.resolve(restricted, "model-4", "openai");
  })
  .add("auth + route: presentedSecret + find + resolve", () => {
    const found = keyring.find(presentedSecret(headers)!);
    router.resolve(found!, "mock-gpt", "openai");
  })
  .add("first target, 1 target (resolve + cursor + pick)", () => {
    const plan = router.resolve(key, "mock-gpt", "openai");
    if (new RouteCursor(plan.stages, random, plan.targets.length > 1).next(now) === undefined) throw new Error("no target");
  })
  .add("pick, 3 weighted targets + backup group", () => {
    if (new RouteCursor(poolPlan.stages, random).next(now) === undefined) throw new Error("no target");
  })
  .add("pick, 3 targets least busy", () => {
    if (new RouteCursor(busyPlan.stages, random).next(now) === undefined) throw new Error("no target");
  })
  .add("pick, 2 targets, one cooling down", () => {
    if (new RouteCursor(cooling.stages, random).next(now) === undefined) throw new Error("no target");
  })
  .add("quoteRoute, 1 target (= one pricing.quote)", () => {
    quoteRoute(pricing, mockPlan, mockPlan.targets[0]!, quoteInput);
  })
  .add("quoteRoute, 4 targets and a fallback (3 prices)", () => {
    quoteRoute(pricing, poolPlan, poolPlan.targets[0]!, quoteInput);
  })
  .add("quoteRoute, 3 distinctly priced targets, the cheapest first", () => {
    quoteRoute(pricing, tieredPlan, tieredPlan.targets[0]!, quoteInput);
  })
  .add("router.modelsFor (GET /v1/models)", () => {
    if (router.modelsFor(restricted, "openai").length !== 3) throw new Error("models");
  });

await bench.run();
console.log(bench.name);
console.table(bench.table());
