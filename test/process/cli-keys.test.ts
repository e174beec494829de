import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startRelayService } from "../../src/app/relay-service.ts";
import { validateConfig } from "../../src/config/config-load.ts";
import type { IssuedKey, KeyView } from "../../src/keys/key-admin.ts";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import type { AuditEvent } from "../../src/shared/audit.ts";
import { runCommand, sourceCommand, type CliResult } from "../support/cli-process.ts";
import { startMockServer, startRelay, type MockServer, type RelayUnderTest } from "../support/relay-harness.ts";
import { relayConfig, scratchDir, writeConfig } from "../support/relay-process.ts";

const ADMIN_TOKEN = "admin-token-for-cli-keys-0123456789";
let mock: MockServer;
let relay: RelayUnderTest;

before(async () => {
  mock = await startMockServer();
  relay = await startRelay(mock.url, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN } });
});

after(async () => {
  await relay.stop();
  await mock.stop();
});

function renio(args: readonly string[], env: Record<string, string> = { RENIO_ADMIN_TOKEN: ADMIN_TOKEN }): Promise<CliResult> {
  return runCommand([...sourceCommand(), ...args], { env, timeoutMs: 30_000 });
}

const chat = (baseURL: string, secret: string) =>
  new OpenAI({ apiKey: secret, baseURL: `${baseURL}/v1`, maxRetries: 0, timeout: 5_000 }).chat.completions.create({
    model: "mock-gpt",
    messages: [{ role: "user", content: "hi" }],
    max_tokens: 2,
  });

describe("renio keys and renio audit against a running relay (--url)", () => {
  test("create, list, rotate, revoke and the audit of it all", async () => {
    const created = await renio(["keys", "create", "--url", relay.url, "--id", "cli-app", "--project", "cli", "--model", "mock-gpt", "--metadata", '{"team":"x"}', "--json"]);
    assert.equal(created.code, 0, created.stderr);
    const issued = JSON.parse(created.stdout) as IssuedKey;
    assert.deepEqual([issued.key.id, issued.key.project, issued.key.models], ["cli-app", "cli", ["mock-gpt"]]);
    assert.equal((await chat(relay.url, issued.secret)).object, "chat.completion");

    const list = await renio(["keys", "list", "--url", relay.url]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^ID +SOURCE +PROJECT +STATUS +PREFIX/m);
    assert.match(list.stdout, new RegExp(`^cli-app +store +cli +active +${issued.key.prefix}`, "m"));
    assert.match(list.stdout, /^test +config +tests +active/m);
    assert.ok(!list.stdout.includes(issued.secret));

    const updated = await renio(["keys", "update", "cli-app", "--url", relay.url, "--model", "mock-gpt", "--model", "mock-claude", "--expires", "7d", "--json"]);
    assert.equal(updated.code, 0, updated.stderr);
    const changed = JSON.parse(updated.stdout) as KeyView;
    assert.deepEqual(changed.models, ["mock-gpt", "mock-claude"]);
    assert.ok(Date.parse(changed.expiresAt!) > Date.now() + 6 * 86_400_000);

    const rotate = ["keys", "rotate", "cli-app", "--url", relay.url, "--grace", "1h", "--idempotency-key", "cli-rotate-1"];
    const [first, again] = [await renio(rotate), await renio(rotate)];
    assert.equal(first.code, 0, first.stderr);
    const secret = /^secret: (rn-\S+)$/m.exec(first.stdout)?.[1];
    assert.ok(secret !== undefined && secret !== issued.secret, first.stdout);
    assert.match(first.stdout, /shown once/);
    assert.equal(/^secret: (rn-\S+)$/m.exec(again.stdout)?.[1], secret, "the same Idempotency-Key replays the same secret");
    assert.equal((await chat(relay.url, issued.secret)).object, "chat.completion", "old secret within its hour of grace");

    const revoked = await renio(["keys", "revoke", "cli-app", "--url", relay.url]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /^status: revoked$/m);
    await assert.rejects(chat(relay.url, secret), (error: { status?: number; message: string }) => error.status === 401 && /revoked/.test(error.message));

    const audit = await renio(["audit", "list", "--url", relay.url, "--target", "key:cli-app", "--json"]);
    assert.equal(audit.code, 0, audit.stderr);
    const events = JSON.parse(audit.stdout) as AuditEvent[];
    assert.deepEqual(events.map((e) => e.action), ["key.revoke", "key.rotate", "key.update", "key.create"]);
    assert.ok(events.every((e) => e.actor === "admin"));
    assert.ok(!audit.stdout.includes(issued.secret) && !audit.stdout.includes(secret));
  });

  test("mistakes: exit 2 with one line naming the problem; errors of the relay exit 1", async () => {
    const noToken = await renio(["keys", "list", "--url", relay.url], {});
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /^renio keys: --url needs the admin token in RENIO_ADMIN_TOKEN/);
    const both = await renio(["keys", "list", "--url", relay.url, "--config", "x.json"]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give --url \(a running relay\) or --config \(its store\), not both/);
    const badModel = await renio(["keys", "create", "--url", relay.url, "--model", "nope"]);
    assert.equal(badModel.code, 2);
    assert.match(badModel.stderr, /^renio keys: models\.0: unknown model "nope" \(see renio keys --help\)$/m);
    const unknown = await renio(["keys", "show", "missing", "--url", relay.url]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /404: no key with id "missing"/);
    const badGrace = await renio(["keys", "rotate", "x", "--grace", "soon", "--url", relay.url]);
    assert.equal(badGrace.code, 2);
    assert.match(badGrace.stderr, /--grace must be seconds or a duration like 1h, got "soon"/);
  });
});

describe("renio keys against the store (--config) of a running relay", () => {
  test("a key written to the SQLite store reaches the relay that owns it within server.keyRefreshMs", async () => {
    const configPath = writeConfig(relay.dir, relay.config as unknown as Record<string, unknown>);
    const created = await renio(["keys", "create", "--config", configPath, "--id", "side-door", "--json"], {});
    assert.equal(created.code, 0, created.stderr);
    const { secret } = JSON.parse(created.stdout) as IssuedKey;
    const deadline = Date.now() + 5 * relay.config.server.keyRefreshMs + 5_000;
    for (;;) {
      const response = await fetch(`${relay.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
      await response.arrayBuffer();
      if (response.status === 200) break;
      assert.ok(Date.now() < deadline, `still ${response.status}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal((await chat(relay.url, secret)).object, "chat.completion");
  });
});

describe("renio keys against the store (--config), the relay down", () => {
  test("a key created in the store works once a relay starts on it; the audit names the local user", async () => {
    const dir = scratchDir();
    const raw = relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") });
    const configPath = writeConfig(dir, raw);
    const created = await renio(["keys", "create", "--config", configPath, "--id", "offline", "--expires", "30d", "--json"], {});
    assert.equal(created.code, 0, created.stderr);
    const issued = JSON.parse(created.stdout) as IssuedKey;
    assert.ok(Date.parse(issued.key.expiresAt!) > Date.now() + 29 * 86_400_000);
    const shown = await renio(["keys", "show", "offline", "--config", configPath, "--json"], {});
    assert.equal((JSON.parse(shown.stdout) as KeyView).prefix, issued.key.prefix);

    const service = await startRelayService(validateConfig(raw, {}), await currentRuntime(), { log: false });
    try {
      assert.equal((await chat(service.url, issued.secret)).object, "chat.completion");
    } finally {
      await service.shutdown();
    }
    const audit = await renio(["audit", "list", "--config", configPath, "--json"], {});
    assert.equal(audit.code, 0, audit.stderr);
    const [event] = JSON.parse(audit.stdout) as AuditEvent[];
    assert.equal(event?.action, "key.create");
    assert.match(event!.actor, /^local:./);
  });
});
