import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import { admin, ADMIN_TOKEN } from "../../support/admin-api.ts";
import { startMockServer, TEST_KEY, type MockServer } from "../../support/relay-harness.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig, type RenioProcess } from "../../support/relay-process.ts";
import { chatBody, post } from "../../support/relay-calls.ts";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";

/**
 * Requests that break HTTP framing or exceed a size, sent over a raw TCP socket to a real relay
 * process. Where the runtime's HTTP parser answers before any handler runs, the answer is its own
 * bare one; the test pins which inputs those are (README, HTTP API), that none of them reaches the
 * journal, and that the relay keeps serving. Where Renio sees the request, the answer is its
 * envelope with an `x-request-id`.
 */

let mock: MockServer;
let relay: RenioProcess;
const AUTH = `authorization: Bearer ${TEST_KEY}\r\n`;

before(async () => {
  mock = await startMockServer();
  const dir = scratchDir();
  relay = await startRelayProcess(writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: `${dir}/renio.db` }, {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN },
  })));
});

after(async () => {
  assert.equal((await relay.stop()).code, 0, relay.output());
  await mock.stop();
});

/** A raw answer: its status, headers (lower-case names) and body as text. */
interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/**
 * Sends `bytes` on a fresh connection and reads the first answer: the head, then the body by its
 * content-length (an answer without one ends at the close). Bounded: the relay closes or answers.
 */
function rawRequest(bytes: string): Promise<RawAnswer> {
  const { port, hostname } = new URL(relay.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 10 s: ${JSON.stringify(received.toString("latin1").slice(0, 200))}`));
    }, 10_000);
    const done = (answer: RawAnswer) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const parse = (closed: boolean): void => {
      const text = received.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        if (closed) {
          clearTimeout(timer);
          reject(new Error(`closed without an answer: ${JSON.stringify(text.slice(0, 200))}`));
        }
        return;
      }
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      const length = headers.has("content-length") ? Number(headers.get("content-length")) : undefined;
      const body = received.subarray(end + 4);
      if (length !== undefined && body.length >= length) return done({ status: Number(statusLine!.split(" ")[1]), headers, body: body.subarray(0, length).toString("utf8") });
      if (length === undefined && closed) return done({ status: Number(statusLine!.split(" ")[1]), headers, body: body.toString("utf8") });
    };
    socket.on("data", (data: Buffer) => {
      received = Buffer.concat([received, data]);
      parse(false);
    });
    socket.on("end", () => parse(true));
    socket.on("close", () => parse(true));
    socket.on("error", () => {});
    socket.write(bytes, "latin1");
  });
}

/** The journal's entry count (through the admin API). */
async function journalCount(): Promise<number> {
  const answer = await admin<{ data: unknown[] }>(relay.url, "GET", "/journal?limit=1000");
  assert.equal(answer.status, 200);
  return answer.body.data.length;
}

const runtime = (await currentRuntime()).name;

/**
 * Inputs the runtime's HTTP parser answers itself, bare (no body, no `x-request-id`), before
 * Renio's handler runs: Bun (the `renio` executable) and Deno (from source) differ in their
 * limits and statuses.
 */
const BARE: Record<string, { bytes: string; status: number }> = {
  [`a request head over ${runtime === "bun" ? "16" : "64"} KiB (a long URL)`]: { bytes: `GET /v1/models?${"a".repeat(runtime === "bun" ? 20_000 : 70_000)} HTTP/1.1\r\nhost: x\r\n\r\n`, status: runtime === "bun" ? 431 : 400 },
  [`a request head over ${runtime === "bun" ? "16" : "64"} KiB (one header)`]: { bytes: `GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${"b".repeat(runtime === "bun" ? 20_000 : 70_000)}\r\n\r\n`, status: runtime === "bun" ? 431 : 400 },
  "a request line that is not HTTP": { bytes: "HELLO\r\n\r\n", status: 400 },
  "an HTTP version other than 1.x": { bytes: "GET /healthz HTTP/9.9\r\nhost: x\r\n\r\n", status: runtime === "bun" ? 505 : 400 },
  "a NUL in the request line": { bytes: "GET /healthz\u0000 HTTP/1.1\r\nhost: x\r\n\r\n", status: runtime === "bun" ? 505 : 400 },
  "a header name with a space": { bytes: "GET /healthz HTTP/1.1\r\nhost: x\r\nbad header: 1\r\n\r\n", status: 400 },
  "a Content-Length that is not a number": { bytes: `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n${AUTH}content-length: abc\r\n\r\n`, status: 400 },
  "both Content-Length and Transfer-Encoding": { bytes: `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n${AUTH}content-length: 5\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n`, status: 400 },
};

/**
 * A body whose chunked framing breaks after a good head: the handler has started (it reads the
 * body), then the parser ends the body stream as it does for a client that hung up, and Bun
 * answers 400 itself (Deno closes the connection without an answer).
 */
const BROKEN_CHUNK = `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n${AUTH}transfer-encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n`;

interface EntryView {
  requestId: string | null;
  outcome: string;
  status: number | null;
  errorCode: string | null;
  reservedCost: number | null;
}

/** The journal's entries, newest first (through the admin API). */
async function entries(): Promise<EntryView[]> {
  const answer = await admin<{ data: EntryView[] }>(relay.url, "GET", "/journal?limit=1000");
  assert.equal(answer.status, 200);
  return answer.body.data;
}

describe("the runtime parser's own answers", () => {
  test("each malformed or oversized head gets the parser's bare answer, none reaches the journal, and the relay keeps serving", async () => {
    const before = await journalCount();
    for (const [name, { bytes, status }] of Object.entries(BARE)) {
      const answer = await rawRequest(bytes);
      assert.equal(answer.status, status, name);
      assert.equal(answer.headers.has("x-request-id"), false, `${name}: answered by the parser, not by Renio`);
    }
    // The relay still serves, and journaled none of them.
    const good = await post(relay.url, "/v1/chat/completions", chatBody(), { "x-request-id": "after-malformed" });
    assert.equal(good.status, 200, await good.text());
    assert.equal((await fetch(`${relay.url}/healthz`)).status, 200);
    const deadline = Date.now() + 5000;
    while ((await journalCount()) !== before + 1) {
      assert.ok(Date.now() < deadline, `only the good call is journaled: ${JSON.stringify(await entries())}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(await journalCount(), before + 1);
  });

  test("a chunked body broken after the head: the parser's answer; on Bun journaled as a client gone mid-body (never admitted, nothing reserved)", async () => {
    const before = (await entries()).length;
    if (runtime === "bun") {
      const answer = await rawRequest(BROKEN_CHUNK);
      assert.equal(answer.status, 400);
      assert.equal(answer.headers.has("x-request-id"), false);
    } else {
      await assert.rejects(rawRequest(BROKEN_CHUNK), /closed without an answer/);
    }
    const good = await post(relay.url, "/v1/chat/completions", chatBody(), { "x-request-id": "after-broken-chunk" });
    assert.equal(good.status, 200, await good.text());
    // Bun has started the handler when the framing breaks; Deno refuses the body before it.
    const expected = runtime === "bun" ? [["client_aborted", 499, "client_aborted", null], ["ok", 200, null, null]] : [["ok", 200, null, null]];
    const deadline = Date.now() + 5000;
    for (;;) {
      const added = (await entries()).slice(0, -before || undefined).reverse();
      if (added.length === expected.length && added.every((entry) => entry.outcome !== "started")) {
        assert.deepEqual(added.map((e) => [e.outcome, e.status, e.errorCode, e.reservedCost]), expected);
        assert.equal(added.at(-1)!.requestId, "after-broken-chunk");
        break;
      }
      assert.ok(Date.now() < deadline, `journal after the broken body: ${JSON.stringify(added)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  test("what Renio sees is answered in the route's envelope with an x-request-id", async () => {
    const cases: { name: string; bytes: string; status: number; code: string }[] = [
      { name: "a 10 KB URL", bytes: `GET /v1/models?q=${"a".repeat(10_000)} HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`, status: 414, code: "uri_too_long" },
      { name: "a body declared larger than any limit", bytes: `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ncontent-length: 209715200\r\n\r\n{"model":`, status: 413, code: "request_too_large" },
      { name: "a NUL in a path segment", bytes: `DELETE /admin/budgets/a%00b HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`, status: 400, code: "invalid_request" },
      { name: "a lone surrogate in a query value", bytes: `GET /admin/journal?key=%ED%A0%80x&outcome=%01 HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`, status: 400, code: "invalid_request" },
      { name: "an Anthropic route", bytes: `POST /v1/messages?x=%00 HTTP/1.1\r\nhost: x\r\n${AUTH}content-length: 2\r\n\r\n{}`, status: 400, code: "invalid_request" },
    ];
    for (const { name, bytes, status, code } of cases) {
      const answer = await rawRequest(bytes);
      assert.equal(answer.status, status, `${name}: ${answer.body}`);
      assert.match(answer.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/, name);
      assert.equal(answer.headers.get("content-type"), "application/json", name);
      const body = JSON.parse(answer.body) as { error: { code: string; message: string; type: string } };
      assert.equal(body.error.code, code, name);
      assert.ok(!body.error.message.includes("\u0000"), name);
    }
    const anthropic = JSON.parse((await rawRequest(cases[4]!.bytes)).body) as { type?: string; request_id?: string };
    assert.equal(anthropic.type, "error", "the Anthropic route's envelope");
  });
});

describe("a refusal keeps the connection usable", () => {
  test("a good call after an oversized one on another connection is served and journaled", async () => {
    const big = await post(relay.url, "/v1/chat/completions", "x".repeat(11 * 1024 * 1024));
    assert.equal(big.status, 413);
    assert.match(big.headers.get("x-request-id") ?? "", /./);
    const good = await post(relay.url, "/v1/chat/completions", chatBody());
    assert.equal(good.status, 200, await good.text());
  });
});
