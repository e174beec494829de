/** Micro-benchmark of the per-call rate-limit check (admit, then end). `node_modules/.bin/bun bench/rate-limits.bench.ts` */
import { Bench } from "tinybench";
import { createRateLimiter, type RateCall } from "../src/limits/rate-limiter.ts";

const usage = { inputTokens: 52, cachedInputTokens: 0, outputTokens: 16 };
const call: RateCall = { keyId: "app-1", project: "support", model: "gpt-4o", tokens: 300, wire: "openai" };
const unlisted: RateCall = { ...call, keyId: "app-2", project: "other", model: "gpt-4o-mini" };

const none = createRateLimiter([]);
/** Limits large enough never to refuse during the run. */
const limited = createRateLimiter([
  { scope: { key: "app-1" }, requestsPerMinute: 1e9, tokensPerMinute: 1e12, concurrent: 1e6 },
  { scope: { project: "support" }, tokensPerMinute: 1e12 },
]);
const keyOnly = createRateLimiter([{ scope: { key: "app-1" }, requestsPerMinute: 1e9 }]);

const bench = new Bench({ name: "rate-limit check per call (admit + end)", time: 250, warmupTime: 50 });
bench
  .add("no rate limits configured", () => {
    none.admit(call).end(usage, true);
  })
  .add("limits configured, none applies to the call", () => {
    limited.admit(unlisted).end(usage, true);
  })
  .add("one key limit (rpm), OpenAI headers", () => {
    keyOnly.admit(call).end(usage, true);
  })
  .add("key rpm+tpm+concurrent and project tpm, OpenAI headers", () => {
    limited.admit(call).end(usage, true);
  })
  .add("key rpm+tpm+concurrent and project tpm, Anthropic headers", () => {
    limited.admit({ ...call, wire: "anthropic" }).end(usage, true);
  });

await bench.run();
console.log(bench.name);
console.table(bench.table());
