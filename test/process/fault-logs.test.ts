import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { admin, ADMIN_TOKEN } from "../support/admin-api.ts";
import { TEST_KEY } from "../support/relay-harness.ts";
import { relayConfig, scratchDir, startRelayProcess, startRenio, writeConfig, type RenioProcess } from "../support/relay-process.ts";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";

const runtime = (await currentRuntime()).name;

/**
 * Every fault the mock provider can inject, per request (`x-mock-fault`) and by its script, on
 * both wire formats, streamed and not, through a real relay process in front of a real
 * `renio mock` process. What both print is scanned: no stack trace, no source, nothing on the
 * relay's stderr; the relay writes one warn line per failed upstream attempt, naming the entry
 * and the error code, and they match the journal's attempts.
 */

const FIRST_BYTE_TIMEOUT_MS = 400;
let mock: RenioProcess;
let relay: RenioProcess;

before(async () => {
  mock = await startRenio(["mock", "--port", "0", "--chunks", "6"]);
  const dir = scratchDir();
  relay = await startRelayProcess(
    writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: `${dir}/renio.db` }, {
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN },
      providers: {
        mock: { type: "mock", baseUrl: mock.url, firstByteTimeoutMs: FIRST_BYTE_TIMEOUT_MS },
        claude: { type: "anthropic", baseUrl: mock.url, apiKey: "sk-mock-not-secret", firstByteTimeoutMs: FIRST_BYTE_TIMEOUT_MS },
      },
      models: { "mock-gpt": { provider: "mock" }, "mock-claude": { provider: "claude" } },
      // One attempt per call: each fault is one attempt, its line and its journal record.
      routing: { retry: { maxAttempts: 1 } },
    })),
  );
});

after(async () => {
  await relay?.stop();
  await mock?.stop();
});

/** A fault: set per request with the `x-mock-fault` header, or by the mock's script for the next call; `streams`: it cuts a stream (a JSON answer is whole). */
type Fault = ({ header: string } | { script: Record<string, unknown> }) & { streams?: true };

const FAULTS: Record<string, Fault> = {
  "status 500": { header: "status=500" },
  "status 503": { header: "status=503" },
  "status 429": { header: "status=429" },
  "status 400": { header: "status=400" },
  "a first byte later than the time-out": { header: `delay=${FIRST_BYTE_TIMEOUT_MS * 3}` },
  "a stream cut before its first event": { header: "cut=0", streams: true },
  "a stream cut after two events": { header: "cut=2", streams: true },
  "a slow stream cut": { header: "slow=20;cut=3", streams: true },
  "a reset connection": { header: "reset" },
  "script: fail the first call with 503 and retry-after": { script: { failFirst: 1, status: 503, retryAfter: 1 } },
  "script: reset the first call": { script: { failFirst: 1, reset: true } },
  "script: context window exceeded": { script: { failFirst: 1, promptTooLong: true } },
  "script: cut the first stream": { script: { failFirst: 1, cutAfterChunks: 1 }, streams: true },
  "script: a late first byte": { script: { failFirst: 1, delayMs: FIRST_BYTE_TIMEOUT_MS * 3 } },
};

/** The OpenAI and the Anthropic wire. */
const WIRES = [
  { path: "/v1/chat/completions", body: (stream: boolean) => ({ model: "mock-gpt", stream, messages: [{ role: "user", content: "hi" }], max_tokens: 20 }) },
  { path: "/v1/messages", body: (stream: boolean) => ({ model: "mock-claude", stream, max_tokens: 20, messages: [{ role: "user", content: "hi" }] }) },
] as const;

/** A stack frame, a source excerpt (`12 | code`, a caret line) or a run of minified code. */
const STACK_OR_SOURCE = [/^\s+at\s+\S/m, /^\s*\d+\s+\|\s/m, /^\s*\^\s*$/m, /\b(?:function|var|let|const)\b[^\n]{0,40}=>[^\n]{200}/];

interface Attempt {
  errorCode: string | null;
}
interface Entry {
  id: string;
  requestId: string | null;
  outcome: string;
  attempts: Attempt[] | null;
}

describe("upstream faults in the logs", () => {
  test("every mock fault on both wires: no stack or source anywhere, one warn line per failed attempt naming the entry and the code", async () => {
    const sent: string[] = [];
    /** Request id → whether its call meets its fault (a cut needs a stream). */
    const faulty = new Map<string, boolean>();
    for (const fault of Object.values(FAULTS)) {
      for (const { path, body } of WIRES) {
        for (const stream of [true, false]) {
          const requestId = `fault-${sent.length}`;
          if ("script" in fault) {
            const set = await fetch(`${mock.url}/_mock/script`, { method: "POST", body: JSON.stringify(fault.script) });
            assert.equal(set.status, 200);
          }
          const headers: Record<string, string> = { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json", "x-request-id": requestId };
          if ("header" in fault) headers["x-mock-fault"] = fault.header;
          try {
            const response = await fetch(`${relay.url}${path}`, { method: "POST", headers, body: JSON.stringify(body(stream)) });
            await response.text();
          } catch {
            // A cut stream ends with an error on the client side.
          }
          sent.push(requestId);
          faulty.set(requestId, stream || fault.streams !== true);
          if ("script" in fault) assert.equal((await fetch(`${mock.url}/_mock/script`, { method: "POST", body: "{}" })).status, 200);
        }
      }
    }

    // Every call journaled as finished, then the lines compared with the journal's attempts.
    const deadline = Date.now() + 10_000;
    let entries: Entry[] = [];
    for (;;) {
      const answer = await admin<{ data: Entry[] }>(relay.url, "GET", "/journal?limit=1000");
      entries = answer.body.data.filter((entry) => entry.requestId !== null && sent.includes(entry.requestId));
      if (entries.length === sent.length && entries.every((entry) => entry.outcome !== "started")) break;
      assert.ok(Date.now() < deadline, `${entries.length} of ${sent.length} calls finished`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const lines = relay.output().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
    const faultLines = lines.filter((line) => line["msg"] === "upstream fault");
    for (const entry of entries) {
      const failed = (entry.attempts ?? []).filter((attempt) => attempt.errorCode !== null);
      assert.equal(failed.length, faulty.get(entry.requestId!) ? 1 : 0, `${entry.requestId}: one failed attempt when the fault applies: ${JSON.stringify(entry)}`);
      const logged = faultLines.filter((line) => line["entryId"] === entry.id);
      assert.deepEqual(logged.map((line) => [line["level"], line["errorCode"]]), failed.map((attempt) => ["warn", attempt.errorCode]), `${entry.requestId}: ${JSON.stringify(entry)}`);
    }
    const codes = new Set(faultLines.map((line) => line["errorCode"]));
    for (const code of ["upstream_500", "upstream_503", "upstream_429", "upstream_400", "upstream_timeout", "upstream_stream_cut", "upstream_reset"]) assert.ok(codes.has(code), `${code} logged`);

    for (const [name, text] of [["relay", relay.output()], ["mock", mock.output()]] as const) {
      for (const pattern of STACK_OR_SOURCE) assert.doesNotMatch(text, pattern, `${name} printed a stack or source`);
    }
    assert.equal(relay.stderr(), "", "the relay printed nothing on stderr");
    // Bun drops a cut or reset connection silently; Deno prints the body's error, one line per fault.
    const mockLines = mock.stderr().split("\n").filter((line) => line !== "");
    if (runtime === "bun") assert.deepEqual(mockLines, []);
    for (const line of mockLines) assert.match(line, /^\[?(MockResetError|TypeError): mock: (connection reset|stream cut) \(fault\)\]?$/);
  });
});
