/**
 * The delay the stream guard's holdback adds: two relays in this process on loopback, one with a
 * guardrail policy on answers (every built-in detector, redact) and one without, in front of the
 * same mock streaming a word per chunk at a provider's pace (one chunk every CHUNK_MS). Measures,
 * per call, the time to the first chunk with text (first token) and to the end of the stream,
 * in alternating calls. `node_modules/.bin/bun bench/guardrails-holdback.bench.ts [chunkMs] [calls]`.
 * Figures in docs/guardrails.md.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { startRelayService, type RelayService } from "../src/app/relay-service.ts";
import { validateConfig } from "../src/config/config-load.ts";
import { mockServerFetch } from "../src/providers/mock/mock-serve.ts";
import { createMock } from "../src/providers/mock/mock-server.ts";
import { currentRuntime } from "../src/runtime/current-runtime.ts";

const CHUNK_MS = Number(process.argv[2] ?? 20);
const CALLS = Number(process.argv[3] ?? 60);
const KEY = "renio-holdback-bench-key";

const runtime = await currentRuntime();
const mock = createMock({ latencyMs: 5, chunkIntervalMs: CHUNK_MS, chunks: 16 });
const mockServer = await runtime.serve({ hostname: "127.0.0.1", port: 0, fetch: mockServerFetch(mock) });
const mockUrl = `http://127.0.0.1:${mockServer.port}`;

async function relay(guardrails: unknown): Promise<{ service: RelayService; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "renio-holdback-"));
  const config = validateConfig(
    {
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000 },
      storage: { type: "sqlite", path: join(dir, "renio.db") },
      providers: { mock: { type: "mock", baseUrl: mockUrl } },
      models: { "mock-gpt": { provider: "mock" } },
      keys: [{ id: "bench", secret: KEY }],
      guardrails,
    },
    {},
  );
  return { service: await startRelayService(config, runtime, { log: false }), dir };
}

const plain = await relay({});
const guarded = await relay({ policies: [{ id: "all", detectors: ["pii", "credentials"], answer: "redact" }] });

/** ms to the first chunk carrying text, and to the end of the stream. */
async function call(url: string): Promise<{ first: number; total: number }> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "mock-gpt", stream: true, max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let first = NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (Number.isNaN(first) && /"content":"[^"]/.test(decoder.decode(value))) first = performance.now() - started;
  }
  return { first, total: performance.now() - started };
}

const results = { plain: [] as { first: number; total: number }[], guarded: [] as { first: number; total: number }[] };
for (let i = 0; i < 5; i++) await Promise.all([call(plain.service.url), call(guarded.service.url)]);
for (let i = 0; i < CALLS; i++) {
  results.plain.push(await call(plain.service.url));
  results.guarded.push(await call(guarded.service.url));
}

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
console.log(`mock: 16 words, one chunk every ${CHUNK_MS} ms; ${CALLS} calls each, alternating; ${runtime.name}`);
console.log("relay                     first token p50 / p95      whole stream p50 / p95");
for (const [name, list] of Object.entries(results)) {
  const first = list.map((r) => r.first);
  const total = list.map((r) => r.total);
  console.log(`${name.padEnd(24)}  ${quantile(first, 0.5).toFixed(1).padStart(7)} / ${quantile(first, 0.95).toFixed(1).padStart(7)} ms   ${quantile(total, 0.5).toFixed(1).padStart(7)} / ${quantile(total, 0.95).toFixed(1).padStart(7)} ms`);
}
const added = quantile(results.guarded.map((r) => r.first), 0.5) - quantile(results.plain.map((r) => r.first), 0.5);
console.log(`added to the first token (p50): ${added.toFixed(1)} ms (${(added / CHUNK_MS).toFixed(2)} chunk intervals)`);

await plain.service.shutdown();
await guarded.service.shutdown();
await mockServer.stop();
for (const dir of [plain.dir, guarded.dir]) rmSync(dir, { recursive: true, force: true });
