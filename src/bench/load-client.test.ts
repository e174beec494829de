import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { chatHandler, startTestServer, type TestServer } from "../../test/support/bench-test-support.ts";
import { benchRequestBody, createDataScanner, createLoadTarget, createTextScanner, runInterleaved, runRound } from "./load-client.ts";

describe("createDataScanner", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it("finds data: inside one chunk and across chunk boundaries", () => {
    assert.equal(createDataScanner()(bytes(": ping\n\ndata: {}\n\n")), true);
    const split = createDataScanner();
    assert.equal(split(bytes("event: x\nda")), false);
    assert.equal(split(bytes("t")), false);
    assert.equal(split(bytes("a: {}")), true);
  });

  it("does not match look-alikes and recovers after a false start", () => {
    assert.equal(createDataScanner()(bytes("dat a: date: metadata")), false);
    assert.equal(createDataScanner()(bytes("ddata:")), true);
  });
});

describe("createTextScanner", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it("finds the first chunk with a non-empty content, inside one chunk and across chunk boundaries", () => {
    assert.equal(createTextScanner()(bytes('data: {"choices":[{"delta":{"content":" lorem"}}]}\n\n')), true);
    assert.equal(createTextScanner()(bytes('data: {"choices":[{"delta":{"content": "x"}}]}\n\n')), true, "a space after the colon");
    const split = createTextScanner();
    assert.equal(split(bytes('data: {"choices":[{"delta":{"cont')), false);
    assert.equal(split(bytes('ent":')), false);
    assert.equal(split(bytes('"')), false);
    assert.equal(split(bytes("l")), true);
  });

  it("passes over a role chunk with empty content and chunks without content", () => {
    const scan = createTextScanner();
    assert.equal(scan(bytes('data: {"choices":[{"delta":{"role":"assistant","content":"","refusal":null}}]}\n\n')), false);
    assert.equal(scan(bytes('data: {"choices":[{"delta":{"content":null}}]}\n\n: ping\n\n')), false);
    assert.equal(scan(bytes('data: {"choices":[{"delta":{"content":"\\"quoted"}}]}\n\n')), true, "text starting with an escaped quote");
  });
});

describe("benchRequestBody", () => {
  it("is an OpenAI chat completion with a ~200-byte message and 16 output tokens", () => {
    const body = JSON.parse(benchRequestBody("mock-gpt", true)) as { model: string; messages: Array<{ content: string }>; max_tokens: number; stream: boolean };
    assert.equal(body.model, "mock-gpt");
    assert.equal(body.max_tokens, 16);
    assert.equal(body.stream, true);
    const size = new TextEncoder().encode(body.messages[0]!.content).length;
    assert.ok(size >= 180 && size <= 220, `message is ${size} bytes`);
  });
});

describe("runRound", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer((request, body, response) => {
      if (request.headers["x-fail"] === "1") {
        response.writeHead(503, { "content-type": "application/json" });
        response.end('{"error":"busy"}');
        return;
      }
      if (body.includes('"stream":true') && request.headers["x-slow-tail"] === "1") {
        // A role chunk at once, the first text 150 ms later, the end 300 ms after that.
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(": comment\n\n");
        response.write('data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\n\n');
        setTimeout(() => {
          response.write('data: {"choices":[{"delta":{"content":"hi"}}]}\n\n');
          setTimeout(() => response.end("data: [DONE]\n\n"), 300);
        }, 150);
        return;
      }
      chatHandler(request, body, response);
    });
  });
  after(() => server.close());

  it("sends exactly count requests with the same body and headers, and records each latency", async () => {
    const before = server.seen.length;
    const target = createLoadTarget("t", `${server.url}/v1/chat/completions`, benchRequestBody("m", false), [["authorization", "Bearer k"]]);
    const result = await runRound(target, { concurrency: 4, count: 25, stream: false, signal: AbortSignal.timeout(10_000) });
    assert.equal(result.errors, 0);
    assert.equal(result.latencies.length, 25);
    assert.ok(result.latencies.every((ms) => ms > 0 && ms < 10_000));
    const seen = server.seen.slice(before);
    assert.equal(seen.length, 25);
    assert.ok(seen.every((r) => r.method === "POST" && r.path === "/v1/chat/completions" && r.headers.authorization === "Bearer k"));
    assert.ok(seen.every((r) => r.body === benchRequestBody("m", false) && r.headers["content-type"] === "application/json"));
  });

  it("stops a streaming latency at the first chunk carrying text (not the role chunk before it), then drains the rest", async () => {
    const target = createLoadTarget("t", `${server.url}/v1/chat/completions`, benchRequestBody("m", true), [["x-slow-tail", "1"]]);
    const started = performance.now();
    const result = await runRound(target, { concurrency: 1, count: 2, stream: true, signal: AbortSignal.timeout(10_000) });
    const wall = performance.now() - started;
    assert.equal(result.errors, 0);
    assert.equal(result.latencies.length, 2);
    assert.ok(wall >= 900, "both streams were drained to their end");
    assert.ok(result.latencies.every((ms) => ms >= 145), `the role chunk did not stop the clock: ${[...result.latencies]}`);
    assert.ok(result.latencies.every((ms) => ms < 450), `the first text before the tail: ${[...result.latencies]}`);
  });

  it("counts non-2xx answers as errors, not samples", async () => {
    const target = createLoadTarget("t", `${server.url}/v1/chat/completions`, benchRequestBody("m", false), [["x-fail", "1"]]);
    const result = await runRound(target, { concurrency: 2, count: 6, stream: false, signal: AbortSignal.timeout(10_000) });
    assert.equal(result.errors, 6);
    assert.equal(result.latencies.length, 0);
    assert.match(result.firstError ?? "", /HTTP 503/);
  });

  it("interleaves several targets call by call, each getting count requests and its own latencies and errors", async () => {
    const before = server.seen.length;
    const first = createLoadTarget("a", `${server.url}/v1/chat/completions`, benchRequestBody("m", false), [["authorization", "Bearer a"]]);
    const second = createLoadTarget("b", `${server.url}/v1/chat/completions`, benchRequestBody("m", false), [["authorization", "Bearer b"], ["x-fail", "1"]]);
    const [a, b] = await runInterleaved([first, second], { concurrency: 1, count: 5, stream: false, signal: AbortSignal.timeout(10_000) });
    assert.equal(a!.latencies.length, 5);
    assert.equal(a!.errors, 0);
    assert.equal(b!.latencies.length, 0);
    assert.equal(b!.errors, 5);
    // One at a time, the targets alternate: a b a b ...
    const order = server.seen.slice(before).map((r) => r.headers.authorization);
    assert.deepEqual(order, ["Bearer a", "Bearer b", "Bearer a", "Bearer b", "Bearer a", "Bearer b", "Bearer a", "Bearer b", "Bearer a", "Bearer b"]);
  });

  it("stops at the deadline", async () => {
    const controller = new AbortController();
    controller.abort();
    const target = createLoadTarget("t", `${server.url}/v1/chat/completions`, benchRequestBody("m", false), []);
    const result = await runRound(target, { concurrency: 2, count: 1000, stream: false, signal: controller.signal });
    assert.equal(result.latencies.length + result.errors, 0);
  });
});
