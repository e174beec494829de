import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { admin, ADMIN_TOKEN, errorIn } from "../../support/admin-api.ts";
import { startMockServer, TEST_KEY, type MockServer } from "../../support/relay-harness.ts";
import { allEntries, chatBody, errorOf, finishedEntries, post } from "../../support/relay-calls.ts";
import { relayConfig, runRenio, scratchDir, writeConfig } from "../../support/relay-process.ts";
import { backends } from "../../support/store-targets.ts";
import { openRelay, type RelayWithStore } from "../../support/with-relay.ts";

/**
 * Text that enters Renio and may reach the store (a model name, an admin id or filter, a config
 * name, a command-line value): control characters, lone surrogates and over-long values are
 * refused with a 400 naming the field, the same on SQLite and PostgreSQL; a refused model call is
 * journaled with the name escaped; the journal keeps moving.
 */

let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(() => mock.stop());

for (const backend of backends.filter((b) => b.name === "postgres" || b.name.startsWith("sqlite ("))) {
  describe(`the input boundary (${backend.name})`, () => {
    let opened: RelayWithStore;
    let url: string;
    before(async () => {
      const { storage } = await backend.target();
      opened = await openRelay(mock.url, {
        storage,
        server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
        budgets: [{ id: "all", scope: "total", period: "total", limit: 100 }],
        journal: { bodies: "request" },
      });
      url = opened.relay.url;
    });
    after(() => opened.stop());

    /** A good call; returns its entry once finished (ok, with a cost). */
    async function goodCall(requestId: string): Promise<void> {
      const response = await post(url, "/v1/chat/completions", chatBody(), { "x-request-id": requestId });
      assert.equal(response.status, 200, await response.text());
      const entry = (await finishedEntries(opened.store, [response.headers.get("x-request-id") === requestId ? await idOf(requestId) : requestId])).get(await idOf(requestId))!;
      assert.equal(entry.outcome, "ok");
      assert.ok(entry.cost !== null && entry.cost > 0);
    }

    /** The journal entry id of the call the client tagged `requestId`. */
    async function idOf(requestId: string): Promise<string> {
      const deadline = Date.now() + 5000;
      for (;;) {
        const entry = (await allEntries(opened.store)).find((e) => e.requestId === requestId);
        if (entry !== undefined) return entry.id;
        assert.ok(Date.now() < deadline, `no entry for ${requestId}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }

    const badModels: [string, string, RegExp][] = [
      ["NUL", "x\u0000", /The `model` field contains a control character \(U\+0000\) at character 2; remove it/],
      ["a control character", "mock-gpt\u001b[31m", /control character \(U\+001B\) at character 9/],
      ["a lone surrogate", "mock\ud800gpt", /a lone surrogate .* \(U\+D800\) at character 5/],
      ["10,000 characters", "m".repeat(10_000), /is 10000 characters long; the limit is 256/],
    ];
    for (const [what, model, message] of badModels) {
      test(`a model name with ${what} is refused with 400 on both wires, journaled escaped, and the next call is served`, async () => {
        for (const [path, body] of [["/v1/chat/completions", chatBody({ model })], ["/v1/messages", { model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] }]] as const) {
          const requestId = `bad-model-${what.replace(/\W+/g, "-")}-${path.length}`;
          const response = await post(url, path, body, { "x-request-id": requestId });
          assert.equal(response.status, 400);
          assert.match(response.headers.get("x-request-id") ?? "", /./);
          const raw = (await response.json()) as { type?: string; error: { code: string; message: string } };
          if (path === "/v1/messages") assert.equal(raw.type, "error", "Anthropic envelope");
          assert.equal(raw.error.code, "invalid_request");
          assert.match(raw.error.message, message);
          const entry = (await allEntries(opened.store)).find((e) => e.requestId === requestId);
          await finishedEntries(opened.store, [entry?.id ?? (await idOf(requestId))]);
          const journaled = (await allEntries(opened.store)).find((e) => e.requestId === requestId)!;
          assert.equal(journaled.outcome, "refused");
          assert.equal(journaled.status, 400);
          assert.equal(journaled.errorCode, "invalid_request");
          assert.ok(journaled.model !== null && !/[\u0000-\u001f\ud800-\udfff]/.test(journaled.model), JSON.stringify(journaled.model));
          assert.ok(journaled.model.length <= 257 * 6);
        }
        await goodCall(`good-after-${what.replace(/\W+/g, "-")}`);
      });
    }

    test("the escaped form of a refused model keeps what was sent, readable", async () => {
      const response = await post(url, "/v1/chat/completions", chatBody({ model: "a\u0000b" }), { "x-request-id": "escaped-form" });
      assert.equal(response.status, 400);
      await finishedEntries(opened.store, [await idOf("escaped-form")]);
      const entry = (await allEntries(opened.store)).find((e) => e.requestId === "escaped-form")!;
      assert.equal(entry.model, "a\\u0000b");
      assert.equal(entry.requestBody, JSON.stringify(chatBody({ model: "a\u0000b" })), "the stored body is the JSON text the client sent (escapes included)");
    });

    test("admin ids, filters and bodies with control characters or lone surrogates get 400 naming the field", async () => {
      const cases: [string, string, unknown, RegExp][] = [
        ["POST", "/budgets", { id: "b1", scope: { project: "p\u0000" }, period: "total", limit: 1 }, /`scope\.project`: contains a control character \(U\+0000\)/],
        ["POST", "/budgets", { id: "b1", scope: { key: "k\ud800" }, period: "total", limit: 1 }, /`scope\.key`: contains a lone surrogate/],
        ["POST", "/budgets", { id: "b".repeat(300), scope: "total", period: "total", limit: 1 }, /`id`: must be at most 256 characters/],
        ["PATCH", "/budgets/a%00b", { limit: 2 }, /Path segment 3 contains a control character \(U\+0000\)/],
        ["DELETE", "/budgets/%1F", undefined, /Path segment 3 contains a control character \(U\+001F\)/],
        ["GET", "/journal?key=%00", undefined, /Query parameter `key` contains a control character \(U\+0000\)/],
        ["GET", "/journal?request_id=a%01&outcome=ok", undefined, /Query parameter `request_id` contains a control character \(U\+0001\)/],
        ["GET", `/journal?cursor=${"c".repeat(2000)}`, undefined, /Query parameter `cursor` is 2000 characters long; the limit is 1024/],
        ["GET", "/journal/%00", undefined, /Path segment 3 contains a control character/],
        ["GET", "/audit?actor=%1b", undefined, /Query parameter `actor` contains a control character \(U\+001B\)/],
        ["GET", "/keys?project=%00", undefined, /Query parameter `project`/],
        ["POST", "/keys", { project: "team\u0007" }, /project: contains a control character \(U\+0007\)/],
        ["POST", "/keys", { models: ["mock-gpt\u0000"] }, /models\.0: contains a control character/],
        ["POST", "/keys", { metadata: { team: "a\u0000" } }, /metadata\.team: contains a control character/],
        ["POST", "/keys", { metadata: { "t\ud800": "a" } }, /metadata\.t\\ud800|metadata\..*lone surrogate/],
        ["PATCH", "/keys/x%00", { project: "p" }, /Path segment 3/],
      ];
      for (const [method, path, body, message] of cases) {
        const answer = await admin(url, method, path, body);
        assert.equal(answer.status, 400, `${method} ${path}: ${JSON.stringify(answer.body)}`);
        const { code, message: text } = errorIn(answer);
        assert.equal(code, "invalid_request", `${method} ${path}`);
        assert.match(text, message, `${method} ${path}`);
      }
      // A body over the admin bound is refused before it is parsed.
      const big = await fetch(`${url}/admin/keys`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: JSON.stringify({ metadata: { x: "y".repeat(1024 * 1024) } }) });
      assert.equal(big.status, 413);
      assert.equal((await errorOf(big)).code, "request_too_large");
      // Nothing of that reached the store; the journal and the budgets still answer, a call is served.
      assert.equal((await admin(url, "GET", "/journal")).status, 200);
      assert.equal((await admin(url, "GET", "/budgets")).status, 200);
      await goodCall("good-after-admin");
    });

    test("ids that are ordinary text, RTL and emoji included, are accepted", async () => {
      for (const id of ["عربي", "emoji-🚀", "a'b\"c;--", "{}[]\\"]) {
        const created = await admin(url, "POST", "/budgets", { id: id.replace(/[^A-Za-z0-9_.:-]/g, "x"), scope: { project: id }, period: "total", limit: 1 });
        assert.equal(created.status, 201, `${id}: ${JSON.stringify(created.body)}`);
        const key = await admin<{ key: { project: string } }>(url, "POST", "/keys", { project: id, metadata: { note: id } });
        assert.equal(key.status, 201, JSON.stringify(key.body));
        assert.equal(key.body.key.project, id);
      }
      await goodCall("good-after-rtl");
    });
  });
}

describe("the same rules in the config file and on the command line", () => {
  test("`renio config check` refuses control characters in a key's project and an over-long model name", async () => {
    const dir = scratchDir();
    const path = writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: `${dir}/renio.db` }, {
      keys: [{ id: "k\u0000", secret: TEST_KEY, project: "p\u0007" }],
      models: { ["m".repeat(300)]: { provider: "mock" } },
    }));
    const check = await runRenio(["config", "check", path]);
    assert.equal(check.code, 2, check.stdout + check.stderr);
    const output = check.stdout + check.stderr;
    assert.match(output, /keys\[0\]\.id: contains a control character \(U\+0000\) at character 2; remove it/);
    assert.match(output, /keys\[0\]\.project: contains a control character \(U\+0007\)/);
    assert.match(output, /is 300 characters long; the limit is 256/);
    assert.ok(!output.includes("\u0000") && !output.includes("\u0007"), "the output never echoes the character");
  });

  test("a command-line value with a control character is a usage error naming it", async () => {
    const dir = scratchDir();
    const path = writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: `${dir}/renio.db` }));
    const journal = await runRenio(["journal", "list", "--config", path, "--key", "a\u0001b"]);
    assert.equal(journal.code, 2, journal.stdout + journal.stderr);
    assert.match(journal.stderr, /--key contains a control character \(U\+0001\) at character 2; remove it/);
    const budgets = await runRenio(["budgets", "set", "b1", "--scope", "project:x\u001b", "--limit", "1", "--config", path]);
    assert.equal(budgets.code, 2, budgets.stdout + budgets.stderr);
    assert.match(budgets.stderr, /--scope contains a control character \(U\+001B\)/);
  });
});
