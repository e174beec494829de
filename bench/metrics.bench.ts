/**
 * What recording one call costs: the metrics observer (label sets resolved through nested
 * maps, counters and fixed-bucket histograms in typed arrays) and the call log line (built and
 * handed to a writer that drops it, so stdout is not measured).
 * `node_modules/.bin/bun bench/metrics.bench.ts`
 */
import { Bench } from "tinybench";
import { createCallMetrics } from "../src/observe/call-metrics.ts";
import { createLogger } from "../src/observe/call-log.ts";
import type { JournalCompletion, JournalStart } from "../src/shared/journal-records.ts";

/** 32 distinct label sets (4 models × 4 projects × 2 keys), as a relay with some traffic has. */
const starts: JournalStart[] = [];
for (let i = 0; i < 32; i++) {
  starts.push({
    id: `01JD${String(i).padStart(22, "0")}`,
    receivedAt: Date.now(),
    requestId: null,
    keyId: `key-${i % 2}`,
    project: `project-${(i >> 1) % 4}`,
    route: "/v1/chat/completions",
    model: `gpt-4o-mini-${(i >> 3) % 4}`,
    provider: "openai",
    upstreamModel: "gpt-4o-mini",
    stream: i % 2 === 0,
    requestBytes: 420,
    clientAddress: "127.0.0.1",
    requestBody: null,
  });
}
const ends: JournalCompletion[] = [200, 200, 200, 429, 200, 502, 200, 200].map((status, i) => ({
  outcome: status === 200 ? "ok" : status === 429 ? "refused" : "upstream_error",
  status,
  ttfbMs: status === 429 ? null : 180 + i,
  totalMs: 950 + i * 13,
  upstreamMs: status === 429 ? null : 948 + i * 13,
  usage: status === 200 ? { inputTokens: 1200 + i, cachedInputTokens: 64, outputTokens: 310 } : null,
  cost: status === 200 ? 0.00042 : null,
  errorCode: status === 200 ? null : status === 429 ? "budget_exceeded" : "upstream_502",
  responseBody: null,
}));

const metrics = createCallMetrics({ perKeyLabels: false, currency: "USD" });
const perKey = createCallMetrics({ perKeyLabels: true, currency: "USD" });
let dropped = 0;
const drop = (line: string): void => void (dropped += line.length);
const json = createLogger({ format: "json", level: "info" }, drop);
const text = createLogger({ format: "text", level: "info" }, drop);
const off = createLogger({ format: "json", level: "error" }, drop);

let n = 0;
const bench = new Bench({ name: "recording one call (32 label sets, 8 kinds of end)", time: 1000 });
bench
  .add("metrics", () => void metrics.ended(starts[n & 31]!, ends[n++ & 7]!))
  .add("metrics, per-key labels", () => void perKey.ended(starts[n & 31]!, ends[n++ & 7]!))
  .add("log line, JSON", () => void json.ended(starts[n & 31]!, ends[n++ & 7]!))
  .add("log line, text", () => void text.ended(starts[n & 31]!, ends[n++ & 7]!))
  .add("log line below the level (level error, a 200)", () => void off.ended(starts[0]!, ends[0]!));
await bench.run();
console.log(bench.name);
console.table(bench.table());

const scrape = new Bench({ name: "writing the call families of /metrics (32 label sets)", time: 1000 });
scrape.add("write", () => {
  const out: string[] = [];
  metrics.write(out);
  dropped += out.join("\n").length;
});
await scrape.run();
console.log(scrape.name);
console.table(scrape.table());
if (dropped < 0) console.log(dropped);
