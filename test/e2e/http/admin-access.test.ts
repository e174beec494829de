import assert from "node:assert/strict";
import { createHash, timingSafeEqual } from "node:crypto";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { validateConfig } from "../../../src/config/config-load.ts";
import { ConfigError, formatProblem } from "../../../src/config/config-error.ts";
import { adminTokensOf, matchAdminToken } from "../../../src/http/admin/admin-auth.ts";
import { startMockServer, startRelay, TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { chatBody, errorOf, post } from "../../support/relay-calls.ts";

const READ = "read-only-token-0123456789abcdef";
const KEYS = "keys-token-0123456789abcdef0000";
const ADMIN = "admin-role-token-0123456789abcd";
const LEGACY = "legacy-admin-token-0123456789ab";
const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
const TOKENS = [
  { id: "dashboard", secret: sha256(READ), roles: ["read"] },
  { id: "key-bot", secret: KEYS, roles: ["keys"] },
  { id: "ops", secret: sha256(ADMIN), roles: ["admin"] },
];

let mock: MockServer;

before(async () => {
  mock = await startMockServer();
});

after(() => mock.stop());

function adminCall(url: string, method: string, path: string, token: string | null): Promise<Response> {
  return fetch(`${url}${path}`, { method, headers: token === null ? {} : { authorization: `Bearer ${token}` } });
}

describe("admin tokens and roles", () => {
  let relay: RelayUnderTest;
  before(async () => {
    relay = await startRelay(mock.url, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: LEGACY, admin: { tokens: TOKENS } } });
  });
  after(() => relay.stop());

  test("a wrong, missing, truncated or lengthened token is 401 unauthorized; a model key is not an admin token", async () => {
    for (const token of [null, "", "wrong-token-0123456789abcdefgh", READ.slice(0, -1), `${READ}x`, sha256(READ), TEST_KEY]) {
      const response = await adminCall(relay.url, "GET", "/admin/journal", token);
      assert.equal(response.status, 401, `token ${JSON.stringify(token)}`);
      const error = await errorOf(response);
      assert.equal(error.code, "unauthorized");
      assert.doesNotMatch(error.message, new RegExp(READ), "the message never echoes a secret");
    }
  });

  test("every role reads: GET routes answer 200 for read, keys, admin and the legacy adminToken", async () => {
    for (const token of [READ, KEYS, ADMIN, LEGACY]) {
      for (const path of ["/admin/journal", "/admin/budgets"]) {
        const response = await adminCall(relay.url, "GET", path, token);
        assert.equal(response.status, 200, `${path} with ${token}`);
        await response.arrayBuffer();
      }
    }
  });

  test("a token without the admin role cannot POST /admin/reload (403 forbidden, naming the token id and role)", async () => {
    for (const [token, id] of [[READ, "dashboard"], [KEYS, "key-bot"]] as const) {
      const response = await adminCall(relay.url, "POST", "/admin/reload", token);
      assert.equal(response.status, 403);
      const error = await errorOf(response);
      assert.equal(error.code, "forbidden");
      assert.match(error.message, new RegExp(`\`${id}\`.*\`admin\``));
    }
    for (const token of [ADMIN, LEGACY]) {
      // Past the role check: this in-process relay has no config file to reload.
      const response = await adminCall(relay.url, "POST", "/admin/reload", token);
      assert.equal(response.status, 409, `${token} has the admin role`);
      assert.equal((await errorOf(response)).code, "reload_unavailable");
    }
  });
});

describe("a separate admin listener (server.admin.host/port)", () => {
  let relay: RelayUnderTest;
  before(async () => {
    relay = await startRelay(mock.url, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, admin: { host: "127.0.0.1", port: 0, tokens: TOKENS } } });
  });
  after(() => relay.stop());

  test("serves the admin routes; the model listener does not (404), and the admin listener serves no model route (404)", async () => {
    const adminUrl = relay.service.adminUrl!;
    assert.ok(adminUrl !== undefined && adminUrl !== relay.url);
    const there = await adminCall(adminUrl, "GET", "/admin/journal", READ);
    assert.equal(there.status, 200);
    await there.arrayBuffer();
    const notHere = await adminCall(relay.url, "GET", "/admin/journal", READ);
    assert.equal(notHere.status, 404);
    assert.equal((await errorOf(notHere)).code, "route_not_found");

    const noModels = await post(adminUrl, "/v1/chat/completions", chatBody());
    assert.equal(noModels.status, 404);
    assert.equal((await errorOf(noModels)).code, "route_not_found");
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
    const completion = await openai.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 3 });
    assert.equal(completion.choices.length, 1, "the model listener serves model calls");
  });
});

test("without an admin token no admin route exists (404)", async () => {
  const relay = await startRelay(mock.url);
  try {
    for (const [method, path] of [["GET", "/admin/journal"], ["GET", "/admin/budgets"], ["POST", "/admin/reload"]] as const) {
      const response = await adminCall(relay.url, method, path, LEGACY);
      assert.equal(response.status, 404, `${method} ${path}`);
      assert.equal((await errorOf(response)).code, "route_not_found");
    }
  } finally {
    await relay.stop();
  }
});

describe("admin config problems", () => {
  const base = {
    providers: { mock: { type: "mock" } },
    models: { m: { provider: "mock" } },
  };
  const problems = (server: Record<string, unknown>): string[] => {
    try {
      validateConfig({ ...base, server }, {});
      return [];
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems.map(formatProblem);
    }
  };

  test("an admin listener without a token, a duplicate token id, a bad hash, an unknown role, a shared address", () => {
    assert.deepEqual(problems({ admin: { port: 9090 } }), ["server.admin.port: an admin listener needs an admin token (server.admin.tokens or server.adminToken)"]);
    assert.deepEqual(problems({ adminToken: LEGACY, admin: { tokens: [{ id: "admin", secret: ADMIN, roles: ["read"] }] } }), [
      'server.admin.tokens[0].id: duplicate admin token id "admin" (server.adminToken acts as "admin")',
    ]);
    assert.deepEqual(problems({ admin: { tokens: [{ id: "x", secret: "sha256:ABCDEF0123456789", roles: ["read"] }] } }), [
      "server.admin.tokens[0].secret: sha256 secrets must be sha256: followed by 64 lowercase hex digits",
    ]);
    assert.equal(problems({ admin: { tokens: [{ id: "x", secret: ADMIN, roles: ["root"] }] } }).length, 1);
    assert.match(problems({ admin: { tokens: [{ id: "x", secret: ADMIN, roles: ["root"] }] } })[0]!, /^server\.admin\.tokens\[0\]\.roles\[0\]: /);
    assert.deepEqual(problems({ port: 8080, admin: { port: 8080, tokens: TOKENS } }), [
      "server.admin.port: the admin listener cannot share the model listener's address (127.0.0.1:8080)",
    ]);
    assert.deepEqual(problems({ admin: { host: "127.0.0.2", tokens: TOKENS } }), ["server.admin.host: a separate admin listener needs server.admin.port as well"]);
  });
});

test("admin tokens are compared with crypto.timingSafeEqual on equal-length sha256 digests, against every configured token", () => {
  const tokens = adminTokensOf(validateConfig({ providers: { mock: { type: "mock" } }, models: {}, server: { adminToken: LEGACY, admin: { tokens: TOKENS } } }, {}).server);
  for (const [presented, expected] of [[READ, "dashboard"], [ADMIN, "ops"], [LEGACY, "admin"], ["not-a-configured-token-0000", undefined]] as const) {
    const compared: number[] = [];
    const equal = (a: Buffer, b: Buffer): boolean => {
      compared.push(a.length, b.length);
      return timingSafeEqual(a, b);
    };
    assert.equal(matchAdminToken(tokens, presented, equal)?.id, expected);
    assert.deepEqual(compared, Array(tokens.length * 2).fill(32), `${presented}: every token compared, as 32-byte digests`);
  }
  assert.equal(matchAdminToken(tokens, READ)?.id, "dashboard", "the default comparison is crypto.timingSafeEqual");
});
