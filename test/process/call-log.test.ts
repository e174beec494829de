import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { startMockServer, TEST_KEY, type MockServer } from "../support/relay-harness.ts";
import { relayConfig, scratchDir, startRelayProcess, startRenio, writeConfig } from "../support/relay-process.ts";
import { join } from "node:path";

const PROVIDER_KEY = "sk-provider-secret-9d3f1c0b7a";
const WRONG_KEY = "sk-renio-wrong-secret-5e2a";
/** Sent in every request body: it must not show up in a log line. */
const BODY_MARKER = "body-marker-c41e8b";

let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.stop();
});

/** A JSON call line as `renio serve` writes it. */
interface CallLine {
  time: string;
  level: string;
  msg: string;
  requestId: string;
  entryId: string;
  keyId: string | null;
  project: string | null;
  route: string;
  model: string | null;
  provider: string | null;
  stream: boolean;
  status: number;
  outcome: string;
  errorCode: string | null;
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
  cost: number | null;
  ms: number;
  ttfbMs: number | null;
  upstreamMs: number | null;
}

test("renio serve writes one JSON line per call (stdout not a terminal), with ids, status, outcome, tokens, cost and times, and no secret or body", async () => {
  const dir = scratchDir();
  const raw = relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") }, {
    // The mock speaking the OpenAI API, reached as an OpenAI-compatible provider with a key.
    providers: { mock: { type: "openai", baseUrl: `${mock.url}/v1`, apiKey: PROVIDER_KEY, firstByteTimeoutMs: 15_000 } },
  });
  const relay = await startRelayProcess(writeConfig(dir, raw));
  const messages = [{ role: "user" as const, content: `hello ${BODY_MARKER}` }];
  const client = (apiKey: string) => new OpenAI({ baseURL: `${relay.url}/v1`, apiKey, maxRetries: 0 });
  const expected: Array<{ requestId: string; status: number; outcome: string; errorCode: string | null; stream: boolean }> = [];
  const call = async (requestId: string, apiKey: string, run: (c: OpenAI, headers: Record<string, string>) => Promise<unknown>) => {
    try {
      await run(client(apiKey), { "x-request-id": requestId });
    } catch (error) {
      if (!(error instanceof OpenAI.APIError)) throw error;
    }
  };
  try {
    await call("log-ok", TEST_KEY, (c, headers) => c.chat.completions.create({ model: "mock-gpt", messages, max_tokens: 20 }, { headers }));
    expected.push({ requestId: "log-ok", status: 200, outcome: "ok", errorCode: null, stream: false });
    await call("log-stream", TEST_KEY, async (c, headers) => {
      const stream = await c.chat.completions.create({ model: "mock-gpt", messages, max_tokens: 20, stream: true }, { headers });
      for await (const _chunk of stream) void _chunk;
    });
    expected.push({ requestId: "log-stream", status: 200, outcome: "ok", errorCode: null, stream: true });
    await call("log-502", TEST_KEY, (c, headers) => c.chat.completions.create({ model: "mock-gpt", messages }, { headers: { ...headers, "x-mock-fault": "status=502" } }));
    expected.push({ requestId: "log-502", status: 502, outcome: "upstream_error", errorCode: "upstream_502", stream: false });
    await call("log-401", WRONG_KEY, (c, headers) => c.chat.completions.create({ model: "mock-gpt", messages }, { headers }));
    expected.push({ requestId: "log-401", status: 401, outcome: "refused", errorCode: "invalid_api_key", stream: false });
    await call("log-404", TEST_KEY, (c, headers) => c.chat.completions.create({ model: "no-such-model", messages }, { headers }));
    expected.push({ requestId: "log-404", status: 404, outcome: "refused", errorCode: "model_not_found", stream: false });
  } finally {
    const exit = await relay.stop();
    assert.equal(exit.code, 0, relay.output());
  }

  const output = relay.output();
  for (const secret of [TEST_KEY, PROVIDER_KEY, WRONG_KEY, BODY_MARKER]) assert.ok(!output.includes(secret), `the output holds ${secret}`);
  assert.doesNotMatch(output, /\n\s+at /, "no stack trace");

  const lines = output.split("\n").filter((line) => line.startsWith("{"));
  const parsed = lines.map((line) => JSON.parse(line) as CallLine);
  // The provider's 502 is also one upstream-fault line (warn), before which comes the call's own.
  const faults = parsed.filter((line) => line.msg === "upstream fault");
  assert.deepEqual(faults.map((line) => [line.level, line.requestId, line.errorCode]), [["warn", "log-502", "upstream_502"]]);
  const calls = parsed.filter((line) => line.msg === "call");
  assert.deepEqual(
    calls.map(({ requestId, status, outcome, errorCode, stream }) => ({ requestId, status, outcome, errorCode, stream })),
    expected,
  );
  for (const line of calls) {
    assert.equal(line.msg, "call");
    assert.ok(!Number.isNaN(Date.parse(line.time)));
    assert.equal(line.level, line.status >= 500 ? "error" : line.status >= 400 ? "warn" : "info");
    assert.match(line.entryId, /\S/);
    assert.equal(line.route, "/v1/chat/completions");
    assert.equal(typeof line.ms, "number");
    if (line.errorCode === "invalid_api_key") {
      assert.equal(line.keyId, null);
      assert.equal(line.model, null);
    } else {
      assert.equal(line.keyId, "test");
      assert.equal(line.project, "tests");
    }
    if (line.outcome === "ok") {
      assert.equal(line.model, "mock-gpt");
      assert.equal(line.provider, "mock");
      assert.ok(line.outputTokens! > 0 && line.inputTokens! > 0, "tokens");
      assert.equal(line.cachedInputTokens, 0);
      assert.ok(line.cost! > 0, "cost");
      assert.ok(line.ttfbMs! > 0 && line.upstreamMs! > 0);
    }
  }
});

test("renio serve --log-format text --log-level warn writes text lines, and only for calls at warn or worse", async () => {
  const dir = scratchDir();
  const relay = await startRenio(["serve", "--config", writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") })), "--log-format", "text", "--log-level", "warn"]);
  const client = (apiKey: string) => new OpenAI({ baseURL: `${relay.url}/v1`, apiKey, maxRetries: 0 });
  try {
    await client(TEST_KEY).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }] }, { headers: { "x-request-id": "text-ok" } });
    await assert.rejects(client(WRONG_KEY).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }] }, { headers: { "x-request-id": "text-401" } }), OpenAI.AuthenticationError);
  } finally {
    const exit = await relay.stop();
    assert.equal(exit.code, 0, relay.output());
  }
  const output = relay.output();
  assert.match(output, /logging: text, level warn/);
  const callLines = output.split("\n").filter((line) => line.includes("text-ok") || line.includes("text-401"));
  assert.equal(callLines.length, 1, output);
  assert.ok(!callLines[0]!.startsWith("{"), "a text line, not JSON");
  assert.match(callLines[0]!, /text-401/);
  assert.match(callLines[0]!, /invalid_api_key/);
});
