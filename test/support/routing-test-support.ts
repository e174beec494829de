/** Helpers for the routing tests and benchmark: a seeded random source, and a router over a config's models. */
import { validateConfig } from "../../src/config/config-load.ts";
import type { Config } from "../../src/config/config-schema.ts";
import { createProviders } from "../../src/providers/provider-registry.ts";
import { createKeyring, type CallerKey } from "../../src/keys/keyring.ts";
import { createModelRouter, type ModelRouter } from "../../src/routing/model-router.ts";
import { createTargetHealthBook, type TargetHealthBook } from "../../src/routing/target-health.ts";

/** Draws in [0, 1) from a fixed seed (mulberry32): the same sequence every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A router over `models` with in-process mock providers `a`, `b`, `c` (regions eu, us, us) and the key that may call everything. */
export interface TestRouter {
  readonly config: Config;
  readonly router: ModelRouter;
  readonly health: TargetHealthBook;
  readonly key: CallerKey;
}

/** Builds {@link TestRouter} (extra raw config sections merged over the defaults). */
export function testRouter(models: Record<string, unknown>, extra: Record<string, unknown> = {}): TestRouter {
  const config = validateConfig({
    providers: { a: { type: "mock", region: "eu" }, b: { type: "mock", region: "us" }, c: { type: "mock", region: "us" } },
    models,
    keys: [{ id: "any", secret: "sk-routing-test-key-0001" }],
    ...extra,
  }, {});
  const health = createTargetHealthBook();
  const router = createModelRouter(config, createProviders(config, () => Promise.reject(new Error("no network in routing tests"))), health);
  return { config, router, health, key: createKeyring(config.keys).find("sk-routing-test-key-0001")! };
}
