import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { scriptFails } from "./mock-script.ts";
import { createMock, type Mock, type MockOptions } from "./mock-server.ts";
import { postJson } from "../../../test/support/mock-test-support.ts";

const FAST: MockOptions = { latencyMs: 0, chunkIntervalMs: 0, chunks: 2 };
const CHAT = { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 8 };

async function statuses(mock: Mock, calls: number, path = "/v1/chat/completions"): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < calls; i++) {
    const response = await mock.fetch(postJson(path, CHAT));
    await response.arrayBuffer();
    out.push(response.status);
  }
  return out;
}

describe("mock fault scripts", () => {
  test("fail the first N calls; fail X % of them, spread evenly and the same every run", () => {
    assert.deepEqual([0, 1, 2, 3].map((n) => scriptFails({ failFirst: 2 }, n)), [true, true, false, false]);
    const half = Array.from({ length: 10 }, (_, n) => scriptFails({ failPercent: 50 }, n));
    assert.deepEqual(half, [false, true, false, true, false, true, false, true, false, true]);
    assert.equal(Array.from({ length: 1000 }, (_, n) => scriptFails({ failPercent: 30 }, n)).filter(Boolean).length, 300);
    assert.equal(scriptFails({ status: 500 }, 7), true, "a script without a selector fails every call");
  });

  test("failing calls answer the script's status with its retry-after headers; the others are served", async () => {
    const mock = createMock({ ...FAST, script: { failFirst: 2, status: 429, retryAfter: 3, retryAfterMs: 2500 } });
    const first = await mock.fetch(postJson("/v1/chat/completions", CHAT));
    assert.equal(first.status, 429);
    assert.equal(first.headers.get("retry-after"), "3");
    assert.equal(first.headers.get("retry-after-ms"), "2500");
    assert.equal(((await first.json()) as { error: { type: string } }).error.type, "rate_limit_error");
    assert.deepEqual(await statuses(mock, 3), [429, 200, 200]);
  });

  test("the context-window answer in each wire format", async () => {
    const mock = createMock({ ...FAST, script: { promptTooLong: true } });
    const openai = await mock.fetch(postJson("/v1/chat/completions", CHAT));
    assert.equal(openai.status, 400);
    assert.equal(((await openai.json()) as { error: { code: string } }).error.code, "context_length_exceeded");
    const anthropic = await mock.fetch(postJson("/v1/messages", CHAT));
    assert.equal(anthropic.status, 400);
    assert.match(((await anthropic.json()) as { error: { message: string } }).error.message, /prompt is too long/);
  });

  test("POST /_mock/script replaces the script and restarts its count; {} clears it", async () => {
    const mock = createMock(FAST);
    assert.deepEqual(await statuses(mock, 1), [200]);
    const set = await mock.fetch(postJson("/_mock/script", { failFirst: 1, status: 502 }));
    assert.equal(set.status, 200);
    assert.deepEqual(await statuses(mock, 2), [502, 200]);
    await mock.fetch(postJson("/_mock/script", { status: 500 }));
    assert.deepEqual(await statuses(mock, 2), [500, 500]);
    await mock.fetch(postJson("/_mock/script", {}));
    assert.deepEqual(await statuses(mock, 1), [200]);
    const bad = await mock.fetch(postJson("/_mock/script", [1]));
    assert.equal(bad.status, 400);
  });
});
