import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import type { StorageConfig } from "../../../src/config/config-schema.ts";
import type { KeyView } from "../../../src/keys/key-admin.ts";
import { StoreOpenError } from "../../../src/shared/store-open-error.ts";
import type { AuditEvent } from "../../../src/shared/audit.ts";
import { testPostgresUrl } from "../../support/postgres.ts";
import { chatBody, post } from "../../support/relay-calls.ts";
import { startMockServer, startRelay, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { pgExec } from "../../support/store-targets.ts";

const ADMIN_TOKEN = "admin-token-for-pg-keys-0123456789";
/** The stated delay: a relay polls for other instances' key changes every `server.keyRefreshMs` (default 1000). */
const REFRESH_MS = 1000;
let mock: MockServer;
let storage: StorageConfig;
let a: RelayUnderTest;
let b: RelayUnderTest;

const overrides = () => ({ server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN, keyRefreshMs: REFRESH_MS }, storage });

before(async () => {
  mock = await startMockServer();
  const base = testPostgresUrl();
  const name = `renio_keys_${process.pid}`;
  await pgExec(base, `drop database if exists ${name}`);
  await pgExec(base, `create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  storage = { type: "postgres", url: url.toString(), poolSize: 4 };
  [a, b] = await Promise.all([startRelay(mock.url, overrides()), startRelay(mock.url, overrides())]);
});

after(async () => {
  await a?.stop();
  await b?.stop();
  await mock.stop();
});

function adminCall(relay: RelayUnderTest, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${relay.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Calls `relay` with `secret` until it answers `status` (bounded); returns how long that took after `since`. */
async function untilStatus(relay: RelayUnderTest, secret: string, status: number, since: number): Promise<number> {
  const deadline = since + 5 * REFRESH_MS + 5_000;
  for (;;) {
    const response = await post(relay.url, "/v1/chat/completions", chatBody({ max_tokens: 2 }), { authorization: `Bearer ${secret}` });
    await response.arrayBuffer();
    if (response.status === status) return performance.now() - since;
    assert.ok(performance.now() < deadline, `still ${response.status}, not ${status}, after ${Math.round(performance.now() - since)} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("two relays on one PostgreSQL see each other's keys", () => {
  test("a key created on one works on the other, a revocation on the other reaches the first, within the refresh delay", async () => {
    const startedAt = performance.now();
    const created = await adminCall(a, "POST", "/keys", { id: "shared" });
    assert.equal(created.status, 201);
    const { secret } = (await created.json()) as { secret: string };
    const seenAfter = await untilStatus(b, secret, 200, startedAt);
    const client = new Anthropic({ apiKey: secret, baseURL: b.url, maxRetries: 0, timeout: 5_000 });
    assert.equal((await client.messages.create({ model: "mock-claude", max_tokens: 2, messages: [{ role: "user", content: "hi" }] })).type, "message");

    const revokedAt = performance.now();
    assert.equal((await adminCall(b, "DELETE", "/keys/shared")).status, 200);
    const refusedAfter = await untilStatus(a, secret, 401, revokedAt);
    const refusal = await post(a.url, "/v1/chat/completions", chatBody(), { authorization: `Bearer ${secret}` });
    assert.equal(((await refusal.json()) as { error: { code: string } }).error.code, "key_revoked");
    console.log(`keys across relays on PostgreSQL (keyRefreshMs ${REFRESH_MS}): created → usable on the other relay after ${Math.round(seenAfter)} ms; revoked → refused after ${Math.round(refusedAfter)} ms`);
    for (const delay of [seenAfter, refusedAfter]) assert.ok(delay <= 5 * REFRESH_MS + 5_000);
  });

  test("the same id created on both at once: one 201, one 409", async () => {
    const answers = await Promise.all([a, b].map((relay) => adminCall(relay, "POST", "/keys", { id: "raced" })));
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 409]);
  });

  test("one Idempotency-Key rotating on both relays at once rotates once and both answer the same secret", async () => {
    assert.equal((await adminCall(a, "POST", "/keys", { id: "rotated-twice" })).status, 201);
    const headers = { "idempotency-key": "pg-rotate-1" };
    const answers = await Promise.all([a, b].map((relay) => adminCall(relay, "POST", "/keys/rotated-twice/rotate", { graceSeconds: 0 }, headers)));
    assert.deepEqual(answers.map((r) => r.status), [200, 200]);
    const [first, second] = (await Promise.all(answers.map((r) => r.json()))) as { secret: string; key: KeyView }[];
    assert.equal(first!.secret, second!.secret);
    const audit = (await (await adminCall(b, "GET", "/audit?target=key:rotated-twice&action=key.rotate")).json()) as { data: AuditEvent[] };
    assert.equal(audit.data.length, 1);
    await untilStatus(b, first!.secret, 200, performance.now());
  });

  test("a relay whose server.keySecret differs from the store's refuses to start", async () => {
    await assert.rejects(
      startRelay(mock.url, { ...overrides(), server: { ...overrides().server, keySecret: "a-different-secret-of-32-characters!!" } }),
      (error: unknown) => error instanceof StoreOpenError && /server\.keySecret is not the secret this store's keys were hashed with/.test(error.message),
    );
  });
});
