import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { freePort } from "../support/free-port.ts";
import { startMockServer, type MockServer } from "../support/relay-harness.ts";
import { runCommand, sourceCommand, startCommand } from "../support/cli-process.ts";

let dir = "";
let mock: MockServer;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "renio-cli-serve-"));
  mock = await startMockServer();
});

after(async () => {
  await mock.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("renio serve from source, on the runtime running the tests", () => {
  test("--config FILE --port N: relays to the configured provider; SIGTERM stops it cleanly", async () => {
    const config = {
      storage: { type: "sqlite", path: join(dir, "relay.db") },
      providers: { upstream: { type: "openai", baseUrl: `${mock.url}/v1`, apiKey: "${RENIO_TEST_PROVIDER_KEY}" }, claude: { type: "anthropic", baseUrl: mock.url } },
      models: { "gpt-x": { provider: "upstream", model: "mock-gpt" }, "claude-x": { provider: "claude" } },
      keys: [{ id: "cli", secret: "${RENIO_TEST_CLIENT_KEY}" }],
    };
    writeFileSync(join(dir, "renio.jsonc"), `// from the test\n${JSON.stringify(config, null, 2)}\n`);
    const port = await freePort();
    const serve = startCommand([...sourceCommand(), "serve", "--config", join(dir, "renio.jsonc"), "--port", String(port)], {
      cwd: dir,
      env: { RENIO_TEST_PROVIDER_KEY: "sk-provider-from-env", RENIO_TEST_CLIENT_KEY: "sk-renio-client-from-env" },
    });
    try {
      await serve.waitFor(new RegExp(`listening on http://127\\.0\\.0\\.1:${port}\\n`));
      assert.ok(!serve.stdout().includes("curl"), "no dev-key curl line with a config file");
      const openai = new OpenAI({ apiKey: "sk-renio-client-from-env", baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0, timeout: 5_000 });
      const completion = await openai.chat.completions.create({ model: "gpt-x", messages: [{ role: "user", content: "hi" }], max_tokens: 3 });
      assert.equal(completion.model, "mock-gpt", "the upstream model name was sent");
      const anthropic = new Anthropic({ apiKey: "sk-renio-client-from-env", baseURL: `http://127.0.0.1:${port}`, maxRetries: 0, timeout: 5_000 });
      const message = await anthropic.messages.create({ model: "claude-x", max_tokens: 3, messages: [{ role: "user", content: "hi" }] });
      assert.equal(message.usage.output_tokens, 3);
    } finally {
      const stopped = await serve.stop();
      assert.equal(stopped.code, 0, `exit ${stopped.code} ${stopped.signal}; stderr: ${stopped.stderr}`);
      assert.match(stopped.stdout, /renio: stopped\n$/);
      assert.ok(!stopped.stdout.includes("sk-provider-from-env") && !stopped.stderr.includes("sk-provider-from-env"), "the provider key is never printed");
    }
  });

  test("no config: the embedded default refuses a non-loopback --host (its development key is public)", async () => {
    const cwd = mkdtempSync(join(dir, "exposed-"));
    const result = await runCommand([...sourceCommand(), "serve", "--host", "0.0.0.0", "--port", String(await freePort())], { cwd, timeoutMs: 20_000 });
    assert.equal(result.code, 2, `exit ${result.code}; stderr: ${result.stderr}`);
    assert.match(result.stderr, /embedded default .* only listen on loopback, not 0\.0\.0\.0/);
    assert.ok(!existsSync(join(cwd, ".renio")), "nothing was opened");
  });

  test("no config: the embedded default prints a curl line whose key works; ./.renio/ is created", async () => {
    const cwd = mkdtempSync(join(dir, "embedded-"));
    const port = await freePort();
    const serve = startCommand([...sourceCommand(), "serve", "--port", String(port)], { cwd });
    try {
      const [, url, key] = await serve.waitFor(/curl (http:\/\/\S+)\/v1\/chat\/completions -H 'Authorization: Bearer (\S+)'.*\n/);
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "mock-gpt", messages: [{ role: "user", content: "Hello" }] }),
      });
      assert.equal(response.status, 200);
      assert.equal(((await response.json()) as { object: string }).object, "chat.completion");
      assert.ok(existsSync(join(cwd, ".renio")));
    } finally {
      const stopped = await serve.stop();
      assert.equal(stopped.code, 0, `exit ${stopped.code} ${stopped.signal}; stderr: ${stopped.stderr}`);
    }
  });
});
