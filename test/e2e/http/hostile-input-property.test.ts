import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import type { StorageConfig } from "../../../src/config/config-schema.ts";
import { fromNanos, toNanos } from "../../../src/shared/money.ts";
import { ADMIN_TOKEN } from "../../support/admin-api.ts";
import { bodyBytes, hostileRequest, type HostileRequest } from "../../support/hostile-requests.ts";
import { testPostgresUrl } from "../../support/postgres.ts";
import { Prng, propertySeed, propertySize } from "../../support/prng.ts";
import { startMockServer, TEST_KEY, type MockServer } from "../../support/relay-harness.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig, type RenioProcess } from "../../support/relay-process.ts";
import { pgExec } from "../../support/store-targets.ts";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";

/**
 * A seeded, bounded property run over the public API and the admin API, on SQLite and on
 * PostgreSQL: requests whose ids, names, fields, paths, queries and headers are drawn from
 * Object.prototype member names, control characters, lone surrogates, 10,000-character strings,
 * RTL text and emoji, SQL and JSON metacharacters and values of the wrong type. After every one:
 * no 5xx from Renio, an error answer in the provider-style envelope with an `x-request-id`, and a
 * good call right after it journaled `ok` with its exact cost; every RESTART_EVERY inputs and at
 * the end the relay restarts, and at the end the total budget's spend equals the journal's sum.
 *
 * RENIO_PROPERTY_SEED repeats a run (the seed is printed); RENIO_PROPERTY_SIZE sets the inputs
 * per backend (default 120).
 */

const SEED = propertySeed();
const SIZE = propertySize(120);
const RESTART_EVERY = 40;
console.log(`hostile-input property run: seed ${SEED} (RENIO_PROPERTY_SEED=${SEED} repeats it), ${SIZE} inputs per backend, a restart every ${RESTART_EVERY}`);

const runtime = (await currentRuntime()).name;
/** A request head over this many bytes gets the runtime parser's bare answer (README, HTTP API): Bun 431 over 16 KiB, Deno 400 over 64 KiB. */
const HEAD_LIMIT = runtime === "bun" ? 16 * 1024 : 64 * 1024;
const BARE_STATUS = runtime === "bun" ? 431 : 400;

/** Prices of both models: 1 per million input tokens (cached too), 2 per million output: a call costs (input + cached) × 1000 + output × 2000 nanos. */
const PRICE = { input: 1, cachedInput: 1, output: 2 };

let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(() => mock.stop());

/** A storage of each backend for one run. */
const BACKENDS: { name: string; storage: (dir: string) => Promise<StorageConfig> }[] = [
  { name: "sqlite", storage: (dir) => Promise.resolve({ type: "sqlite", path: `${dir}/renio.db` }) },
  {
    name: "postgres",
    storage: async () => {
      const base = testPostgresUrl();
      const name = `renio_property_${process.pid}_${SEED}`;
      await pgExec(base, `drop database if exists ${name}`);
      await pgExec(base, `create database ${name}`);
      const url = new URL(base);
      url.pathname = `/${name}`;
      return { type: "postgres", url: url.toString(), poolSize: 4 };
    },
  },
];

/** What came back: status, the headers Renio sets, and the body as text. */
interface Answer {
  status: number;
  requestId: string | null;
  contentType: string | null;
  text: string;
}

async function send(url: string, request: HostileRequest): Promise<Answer> {
  const body = request.method === "GET" ? undefined : bodyBytes(request);
  const response = await fetch(`${url}${request.target}`, { method: request.method, headers: request.headers, ...(body === undefined ? {} : { body }) });
  return { status: response.status, requestId: response.headers.get("x-request-id"), contentType: response.headers.get("content-type"), text: await response.text() };
}

/** The error envelope of either wire: OpenAI `{"error":{message,type,code}}` or Anthropic `{"type":"error","error":{type,message}}`. */
function assertEnvelope(answer: Answer, context: string): void {
  assert.match(answer.contentType ?? "", /^application\/json/, `${context}: an error answer is JSON`);
  const body = JSON.parse(answer.text) as { type?: unknown; error?: { message?: unknown; type?: unknown; code?: unknown } };
  assert.ok(typeof body.error === "object" && body.error !== null, `${context}: an error envelope: ${answer.text.slice(0, 300)}`);
  assert.equal(typeof body.error.message, "string", context);
  assert.equal(typeof body.error.type, "string", context);
  if (body.type !== undefined) assert.equal(body.type, "error", context);
  else assert.equal(typeof body.error.code, "string", context);
  assert.doesNotMatch(body.error.message as string, /[\u0000-\u001f]/, `${context}: no raw control character in the message`);
}

interface EntryView {
  id: string;
  requestId: string | null;
  outcome: string;
  cost: number | null;
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
}

/** An admin GET, parsed. */
async function adminGet<T>(url: string, path: string): Promise<T> {
  const response = await fetch(`${url}/admin${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const text = await response.text();
  assert.equal(response.status, 200, `GET /admin${path}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** One good call; asserts it is served and journaled `ok` at its exact cost. */
async function goodCall(url: string, requestId: string, context: string): Promise<void> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json", "x-request-id": requestId },
    body: JSON.stringify({ model: "mock-gpt", messages: [{ role: "user", content: "hello" }], max_tokens: 16 }),
  });
  const text = await response.text();
  assert.equal(response.status, 200, `${context}: the good call after it: ${text.slice(0, 300)}`);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { data } = await adminGet<{ data: EntryView[] }>(url, `/journal?request_id=${requestId}`);
    const entry = data[0];
    if (entry !== undefined && entry.outcome !== "started") {
      assert.equal(entry.outcome, "ok", `${context}: the good call's entry`);
      const nanos = ((entry.inputTokens ?? 0) + (entry.cachedInputTokens ?? 0)) * 1000 + (entry.outputTokens ?? 0) * 2000;
      assert.ok(nanos > 0, context);
      assert.equal(entry.cost, fromNanos(nanos), `${context}: the good call's exact cost`);
      return;
    }
    assert.ok(Date.now() < deadline, `${context}: the good call's entry did not finish`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Every journal entry, once none is in flight. */
async function settledJournal(url: string): Promise<EntryView[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const entries: EntryView[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: EntryView[]; next_cursor: string | null } = await adminGet(url, `/journal?limit=1000${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`);
      entries.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor !== null);
    if (entries.every((entry) => entry.outcome !== "started")) return entries;
    assert.ok(Date.now() < deadline, "entries still in flight");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("hostile input, a property run", () => {
  for (const backend of BACKENDS) {
    test(`public and admin API on ${backend.name}: no 5xx, an envelope, the next good call journaled at its exact cost, restarts succeed`, async () => {
      const rng = new Prng(SEED);
      const dir = scratchDir();
      const storage = await backend.storage(dir);
      const configPath = writeConfig(dir, relayConfig(mock.url, storage, {
        server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN },
        prices: { "mock-gpt": PRICE, "mock-claude": PRICE },
        budgets: [{ id: "all", scope: "total", period: "total", limit: 9_000_000, mode: "observe" }],
        journal: { bodies: "full" },
      }));
      let relay: RenioProcess = await startRelayProcess(configPath);
      const restart = async (context: string) => {
        const exit = await relay.stop();
        assert.equal(exit.code, 0, `${context}: the relay stops cleanly: ${relay.output().slice(-2000)}`);
        relay = await startRelayProcess(configPath);
      };
      try {
        for (let i = 0; i < SIZE; i++) {
          const request = hostileRequest(rng, { key: TEST_KEY, adminToken: ADMIN_TOKEN });
          const context = `seed ${SEED}, ${backend.name} input ${i}: ${request.method} ${request.target.slice(0, 200)} (${request.name})`;
          const answer = await send(relay.url, request);
          const head = request.target.length + Object.entries(request.headers).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 100);
          if (head > HEAD_LIMIT) {
            // Too large for the runtime's parser: its own bare answer, before Renio (nothing journaled).
            assert.deepEqual([answer.status, answer.requestId], [BARE_STATUS, null], `${context}: the parser's answer to a ${head}-byte head`);
          } else {
            assert.ok(answer.status < 500, `${context}: ${answer.status} ${answer.text.slice(0, 300)}`);
            assert.ok(answer.requestId !== null && answer.requestId !== "", `${context}: an x-request-id`);
            if (answer.status >= 400) assertEnvelope(answer, context);
          }
          await goodCall(relay.url, `good-${backend.name}-${i}`, context);
          if ((i + 1) % RESTART_EVERY === 0) await restart(context);
        }
        await restart(`seed ${SEED}, ${backend.name} at the end`);
        await goodCall(relay.url, `good-${backend.name}-final`, `seed ${SEED}, after the last restart`);

        // The books: the total budget's spend is the journal's cost, to the billionth; nothing is held.
        const entries = await settledJournal(relay.url);
        const journalNanos = entries.reduce((sum, entry) => sum + (entry.cost === null ? 0 : toNanos(entry.cost)), 0);
        const { data: budgets } = await adminGet<{ data: { budgetId: string; spent: number; reserved: number }[] }>(relay.url, "/budgets");
        const all = budgets.find((row) => row.budgetId === "all")!;
        assert.equal(toNanos(all.spent), journalNanos, `seed ${SEED}: spent = Σ journal cost`);
        assert.equal(all.reserved, 0, `seed ${SEED}: nothing reserved once every call ended`);
        assert.ok(entries.length >= SIZE + 1, "every good call is in the journal");
      } finally {
        await relay.stop();
      }
    });
  }
});
