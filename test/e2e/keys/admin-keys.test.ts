import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { KeyView } from "../../../src/keys/key-admin.ts";
import type { AuditEvent } from "../../../src/shared/audit.ts";
import { startMockServer, startRelay, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { errorOf } from "../../support/relay-calls.ts";

const ADMIN_TOKEN = "admin-token-for-keys-0123456789";
let mock: MockServer;
let relay: RelayUnderTest;
/** The relay's clock: real time plus what a test adds (grace periods and expiry without sleeping). */
let skewMs = 0;

before(async () => {
  mock = await startMockServer();
  relay = await startRelay(
    mock.url,
    { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN }, models: { "mock-gpt": { provider: "mock" }, "mock-claude": { provider: "mock" } } },
    { clock: () => Date.now() + skewMs },
  );
});

after(async () => {
  await relay.stop();
  await mock.stop();
});

/** An admin API call with the admin token. */
async function adminCall(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return await fetch(`${relay.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
}

async function created(body: Record<string, unknown>): Promise<{ key: KeyView; secret: string }> {
  const response = await adminCall("POST", "/keys", body);
  assert.equal(response.status, 201, await response.clone().text());
  assert.equal(response.headers.get("cache-control"), "no-store");
  return (await response.json()) as { key: KeyView; secret: string };
}

const openai = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
const anthropic = (secret: string) => new Anthropic({ apiKey: secret, baseURL: relay.url, maxRetries: 0, timeout: 5_000 });
const chat = (secret: string) => openai(secret).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 2 });
const message = (secret: string) => anthropic(secret).messages.create({ model: "mock-claude", messages: [{ role: "user", content: "hi" }], max_tokens: 2 });

/** The status, code and message an SDK call failed with. */
async function sdkFailure(call: Promise<unknown>): Promise<{ status: number | undefined; code: string; message: string }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status?: number; code?: string; error?: { error?: { code?: string } }; message: string };
    return { status: e.status, code: e.code ?? e.error?.error?.code ?? "", message: e.message };
  }
  assert.fail("the call succeeded");
}

describe("keys in the store, through the admin API and the official SDKs", () => {
  test("a created key works at once on both wire formats; its secret is shown once", async () => {
    const { key, secret } = await created({ id: "app-1", project: "apps", metadata: { team: "search" } });
    assert.match(secret, /^rn-[A-Za-z0-9_-]{43}$/);
    assert.equal(key.prefix, secret.slice(0, 10));
    assert.deepEqual([key.source, key.status, key.project, key.models, key.metadata], ["store", "active", "apps", ["*"], { team: "search" }]);
    assert.equal((await chat(secret)).object, "chat.completion");
    assert.equal((await message(secret)).type, "message");
    const shown = await (await adminCall("GET", "/keys/app-1")).text();
    assert.ok(!shown.includes(secret) && !shown.includes("hash"), shown);
    const list = (await (await adminCall("GET", "/keys")).json()) as { data: KeyView[] };
    assert.deepEqual(list.data.find((k) => k.id === "test")?.source, "config");
    assert.equal(list.data.find((k) => k.id === "app-1")?.prefix, key.prefix);
  });

  test("an id is generated when none is given; scopes are enforced and changed by PATCH", async () => {
    const { key, secret } = await created({ models: ["mock-claude"] });
    assert.match(key.id, /^key-[0-9a-f]{16}$/);
    const refused = await sdkFailure(chat(secret));
    assert.equal(refused.status, 403);
    assert.equal(refused.code, "model_not_allowed");
    const patched = await adminCall("PATCH", `/keys/${key.id}`, { models: ["mock-gpt", "mock-claude"], metadata: { owner: "x" } });
    assert.equal(patched.status, 200);
    assert.deepEqual(((await patched.json()) as KeyView).models, ["mock-gpt", "mock-claude"]);
    assert.equal((await chat(secret)).object, "chat.completion");
  });

  test("rotate with grace: the old secret works during the grace period and is refused after it", async () => {
    const { secret: old } = await created({ id: "rotating" });
    const response = await adminCall("POST", "/keys/rotating/rotate", { graceSeconds: 60 });
    assert.equal(response.status, 200);
    const { key, secret } = (await response.json()) as { key: KeyView; secret: string };
    assert.notEqual(secret, old);
    assert.ok(key.previousSecretValidUntil !== null);
    assert.equal((await chat(old)).object, "chat.completion", "old secret within grace");
    assert.equal((await chat(secret)).object, "chat.completion");
    skewMs += 61_000;
    try {
      const refused = await sdkFailure(chat(old));
      assert.equal(refused.status, 401);
      assert.equal(refused.code, "key_rotated");
      assert.match(refused.message, /rotated/);
      assert.equal((await message(secret)).type, "message");
    } finally {
      skewMs -= 61_000;
    }
  });

  test("rotate is idempotent on Idempotency-Key: one rotation, the same answer replayed", async () => {
    const { secret: first } = await created({ id: "idem" });
    const headers = { "idempotency-key": "rotate-idem-1" };
    const a = await adminCall("POST", "/keys/idem/rotate", undefined, headers);
    const b = await adminCall("POST", "/keys/idem/rotate", undefined, headers);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal(b.headers.get("idempotent-replayed"), "true");
    const [answerA, answerB] = [(await a.json()) as { secret: string; key: KeyView }, (await b.json()) as { secret: string; key: KeyView }];
    assert.deepEqual(answerB, answerA);
    assert.equal((await chat(answerA.secret)).object, "chat.completion");
    assert.equal((await sdkFailure(chat(first))).code, "key_rotated", "no grace: the old secret stops at once");
    const audit = (await (await adminCall("GET", "/audit?target=key:idem&action=key.rotate")).json()) as { data: AuditEvent[] };
    assert.equal(audit.data.length, 1, "rotated once");
    const reused = await adminCall("POST", "/keys/idem/rotate", { graceSeconds: 5 }, headers);
    assert.equal(reused.status, 409);
    assert.equal((await errorOf(reused)).code, "idempotency_key_reused");
  });

  test("create is idempotent on Idempotency-Key: a retried create issues one key and answers the same secret", async () => {
    const headers = { "idempotency-key": "create-once-1" };
    const body = { project: "retried", models: ["mock-gpt"] };
    const [a, b] = [await adminCall("POST", "/keys", body, headers), await adminCall("POST", "/keys", body, headers)];
    assert.deepEqual([a.status, b.status], [201, 201]);
    assert.equal(b.headers.get("idempotent-replayed"), "true");
    const [first, again] = [(await a.json()) as { key: KeyView; secret: string }, (await b.json()) as { key: KeyView; secret: string }];
    assert.deepEqual(again, first, "same generated id, same secret");
    const list = (await (await adminCall("GET", "/keys?project=retried")).json()) as { data: KeyView[] };
    assert.equal(list.data.length, 1, "one key");
    assert.equal((await chat(first.secret)).object, "chat.completion");
    const other = await adminCall("POST", "/keys", { ...body, project: "other" }, headers);
    assert.equal(other.status, 409);
    assert.equal((await errorOf(other)).code, "idempotency_key_reused");
  });

  test("revoke takes effect at once: 401 revoked, in each route's envelope", async () => {
    const { secret } = await created({ id: "to-revoke" });
    assert.equal((await chat(secret)).object, "chat.completion");
    const revoked = await adminCall("DELETE", "/keys/to-revoke");
    assert.equal(revoked.status, 200);
    assert.equal(((await revoked.json()) as KeyView).status, "revoked");
    const viaOpenai = await sdkFailure(chat(secret));
    assert.deepEqual([viaOpenai.status, viaOpenai.code], [401, "key_revoked"]);
    assert.match(viaOpenai.message, /revoked/);
    const raw = await fetch(`${relay.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": secret, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "mock-claude", max_tokens: 2, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(raw.status, 401);
    const envelope = (await raw.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(envelope.type, "error");
    assert.equal(envelope.error.type, "authentication_error");
    assert.match(envelope.error.message, /revoked/);
    assert.equal((await adminCall("DELETE", "/keys/to-revoke")).status, 200, "revoking twice is harmless");
    const revokedOnly = (await (await adminCall("GET", "/keys?status=revoked&source=store")).json()) as { data: KeyView[] };
    assert.ok(revokedOnly.data.some((k) => k.id === "to-revoke") && revokedOnly.data.every((k) => k.status === "revoked" && k.source === "store"));
    const configOnly = (await (await adminCall("GET", "/keys?source=config&project=tests")).json()) as { data: KeyView[] };
    assert.deepEqual(configOnly.data.map((k) => k.id), ["test"]);
    const badFilter = await adminCall("GET", "/keys?status=gone");
    assert.equal(badFilter.status, 400);
    assert.match((await errorOf(badFilter)).message, /^status: /);
    const rotate = await adminCall("POST", "/keys/to-revoke/rotate");
    assert.equal(rotate.status, 409);
    assert.equal((await errorOf(rotate)).code, "key_revoked");
  });

  test("an expired key gets 401 expired", async () => {
    const { secret } = await created({ id: "short-lived", expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    assert.equal((await chat(secret)).object, "chat.completion");
    skewMs += 3_601_000;
    try {
      const refused = await sdkFailure(message(secret));
      assert.equal(refused.status, 401);
      assert.match(refused.message, /expired/);
      assert.equal(((await (await adminCall("GET", "/keys/short-lived")).json()) as KeyView).status, "expired");
    } finally {
      skewMs -= 3_601_000;
    }
  });

  test("bad bodies get 400 naming the field; unknown ids 404; duplicates and config keys 409", async () => {
    const cases: [string, string, unknown, RegExp][] = [
      ["POST", "/keys", { models: "mock-gpt" }, /^models: /],
      ["POST", "/keys", { models: ["nope"] }, /^models\.0: unknown model "nope"/],
      ["POST", "/keys", { id: "has space" }, /^id: /],
      ["POST", "/keys", { expiresAt: "2001-01-01T00:00:00Z" }, /^expiresAt: must be in the future/],
      ["POST", "/keys", { expiresAt: "tomorrow" }, /^expiresAt: /],
      ["POST", "/keys", { secret: "rn-chosen" }, /unknown field "secret"/],
      ["POST", "/keys", "{not json", /not valid JSON/],
      ["PATCH", "/keys/app-1", {}, /at least one of/],
      ["PATCH", "/keys/app-1", { regions: [] }, /^regions: /],
      ["POST", "/keys/app-1/rotate", { graceSeconds: -1 }, /^graceSeconds: /],
    ];
    for (const [method, path, body, message] of cases) {
      const response = await adminCall(method, path, body);
      assert.equal(response.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      assert.match((await errorOf(response)).message, message);
    }
    const badHeader = await adminCall("POST", "/keys/app-1/rotate", undefined, { "idempotency-key": "x".repeat(300) });
    assert.equal(badHeader.status, 400);
    assert.match((await errorOf(badHeader)).message, /^Idempotency-Key: /);
    for (const [method, path] of [["GET", "/keys/missing"], ["PATCH", "/keys/missing"], ["POST", "/keys/missing/rotate"], ["DELETE", "/keys/missing"]] as const) {
      const response = await adminCall(method, path, method === "PATCH" ? { project: "p" } : undefined);
      assert.equal(response.status, 404, `${method} ${path}`);
      assert.equal((await errorOf(response)).code, "key_not_found");
    }
    for (const id of ["app-1", "test"]) {
      const response = await adminCall("POST", "/keys", { id });
      assert.equal(response.status, 409);
      assert.equal((await errorOf(response)).code, "key_exists");
    }
    const configKey = await adminCall("DELETE", "/keys/test");
    assert.equal(configKey.status, 409);
    assert.equal((await errorOf(configKey)).code, "key_read_only");
    const noToken = await fetch(`${relay.url}/admin/keys`, { method: "POST", body: "{}" });
    assert.equal(noToken.status, 401);
  });

  test("the audit lists every key action, newest first, paged, with before/after and no secret", async () => {
    const { secret } = await created({ id: "audited", project: "a" });
    await adminCall("PATCH", "/keys/audited", { project: "b" });
    const rotated = (await (await adminCall("POST", "/keys/audited/rotate", { graceSeconds: 1 })).json()) as { secret: string };
    await adminCall("DELETE", "/keys/audited");
    const first = (await (await adminCall("GET", "/audit?target=key:audited&limit=3")).json()) as { data: AuditEvent[]; next_cursor: string | null };
    assert.deepEqual(first.data.map((e) => e.action), ["key.revoke", "key.rotate", "key.update"]);
    assert.ok(first.next_cursor !== null);
    const rest = (await (await adminCall(`GET`, `/audit?target=key:audited&cursor=${encodeURIComponent(first.next_cursor)}`)).json()) as { data: AuditEvent[]; next_cursor: null };
    assert.deepEqual(rest.data.map((e) => e.action), ["key.create"]);
    assert.equal(rest.next_cursor, null);
    const [create] = rest.data;
    assert.equal(create!.actor, "admin");
    assert.equal(create!.before, null);
    assert.equal((create!.after as KeyView).project, "a");
    const update = first.data[2]!;
    assert.deepEqual([(update.before as KeyView).project, (update.after as KeyView).project], ["a", "b"]);
    const text = JSON.stringify([...first.data, ...rest.data]);
    for (const leaked of [secret, rotated.secret, "Hash", "hash"]) assert.ok(!text.includes(leaked), `audit holds ${leaked.slice(0, 6)}`);
    const byAction = (await (await adminCall("GET", "/audit?action=key.create&limit=1000")).json()) as { data: AuditEvent[] };
    assert.ok(byAction.data.length >= 5 && byAction.data.every((e) => e.action === "key.create"));
    const bad = await adminCall("GET", "/audit?limit=0");
    assert.equal(bad.status, 400);
  });
});
