import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { currentRuntime } from "../runtime/current-runtime.ts";
import type { Server } from "../runtime/runtime.ts";
import { mockServerFetch } from "../providers/mock/mock-serve.ts";
import { createMock } from "../providers/mock/mock-server.ts";
import { benchRequestBody } from "./load-client.ts";
import { createStreamTarget, runStreamRound } from "./stream-load.ts";

describe("runStreamRound (the capacity load client)", () => {
  let server: Server;
  let url: string;
  before(async () => {
    const runtime = await currentRuntime();
    // 5 content chunks 20 ms apart.
    server = await runtime.serve({ hostname: "127.0.0.1", port: 0, fetch: mockServerFetch(createMock({ latencyMs: 1, chunkIntervalMs: 20, chunks: 5 })) });
    url = `http://127.0.0.1:${server.port}/v1/chat/completions`;
  });
  after(() => server.stop());

  it("holds one stream per worker, times the first data: piece and the gaps after it, over kept-alive connections", async () => {
    const target = createStreamTarget("mock", url, benchRequestBody("mock-gpt", true), []);
    const result = await runStreamRound(target, { concurrency: 300, warmupPerWorker: 1, callsPerWorker: 2, staggerMs: 50, signal: new AbortController().signal });
    assert.equal(result.errors, 0, result.firstError);
    assert.equal(result.calls, 600, "300 workers at once: more than the 256 a runtime fetch would hold");
    assert.equal(result.firstToken.length, 600);
    assert.ok(result.firstToken.every((ms) => ms >= 0 && ms < 30_000));
    // The paced chunks arrive apart, each timed on its own: the median gap shows the mock's pacing (20 ms; more on a busy machine).
    const sorted = Float64Array.from(result.gaps).sort();
    const median = sorted[sorted.length >> 1]!;
    assert.ok(result.gaps.length >= 100 && sorted[0]! >= 0 && median >= 5, `${result.gaps.length} gaps, median ${median} ms`);
    assert.ok(result.seconds > 0);
  });

  it("counts an error status as a failed call, with its body in the message", async () => {
    const target = createStreamTarget("mock", url, benchRequestBody("mock-gpt", true), [["x-mock-fault", "status=503"]]);
    const result = await runStreamRound(target, { concurrency: 2, warmupPerWorker: 0, callsPerWorker: 2, staggerMs: 0, signal: new AbortController().signal });
    assert.deepEqual([result.calls, result.errors], [0, 4]);
    assert.match(result.firstError!, /^HTTP 503: .*injected fault/);
  });
});
