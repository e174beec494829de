import assert from "node:assert/strict";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { freePort } from "../support/free-port.ts";
import { ON_DENO, REPO_ROOT, runCommand, startCommand } from "../support/cli-process.ts";

const SKIP = ON_DENO ? "the single executable is built with `bun build --compile`; CI builds it first and the Bun run of this file smoke-tests it" : false;

let dir = "";
let renio = "";

before(async () => {
  if (SKIP) {
    console.log(`test/process/executable.test.ts skipped on Deno: ${SKIP}`);
    return;
  }
  const built = join(REPO_ROOT, "dist", "renio");
  if (!existsSync(built)) {
    const build = await runCommand(["bash", join(REPO_ROOT, "scripts", "build.sh")], { timeoutMs: 120_000 });
    assert.equal(build.code, 0, `build failed: ${build.stderr}`);
  }
  dir = mkdtempSync(join(tmpdir(), "renio-exe-"));
  renio = join(dir, "renio");
  copyFileSync(built, renio);
  chmodSync(renio, 0o755);
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("dist/renio copied alone into an empty directory", () => {
  test("renio --help", { skip: SKIP }, async () => {
    assert.deepEqual(readdirSync(dir), ["renio"]);
    const done = await runCommand([renio, "--help"], { cwd: dir });
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /usage: renio <command>/);
    for (const command of ["serve", "mock", "config check", "config schema"]) assert.ok(done.stdout.includes(command), command);
  });

  test("renio config check on a good and a bad file", { skip: SKIP }, async () => {
    writeFileSync(join(dir, "good.jsonc"), '{ // ok\n "providers": { "m": { "type": "mock" } }, "models": { "x": { "provider": "m" } }, }');
    writeFileSync(join(dir, "bad.json"), '{ "providers": { "mistral": { "type": "openai", "baseUrl": "nope" } }, "models": {} }');
    const good = await runCommand([renio, "config", "check", "good.jsonc"], { cwd: dir });
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /^good\.jsonc: ok/);
    const bad = await runCommand([renio, "config", "check", "bad.json"], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, "bad.json:1:49: providers.mistral.baseUrl: Invalid URL\n");
  });

  test("renio config check on YAML (the yaml package is bundled), with RENIO_CONFIG and an override", { skip: SKIP }, async () => {
    writeFileSync(join(dir, "good.yaml"), "# ok\nproviders: { m: { type: mock } }\nmodels:\n  x: { provider: m }\n");
    writeFileSync(join(dir, "bad.yaml"), "providers:\n  m: { type: mock }\nmodels:\n  x: { provider: nope }\n");
    const good = await runCommand([renio, "config", "check"], { cwd: dir, env: { RENIO_CONFIG: "good.yaml", RENIO_PORT: "9191" } });
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /^good\.yaml: ok/);
    assert.match(good.stdout, /server\.port +9191 +from RENIO_PORT/);
    const bad = await runCommand([renio, "config", "check", "bad.yaml"], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'bad.yaml:4:8: models.x.provider: unknown provider "nope" (configured: m)\n');
  });

  test("renio mock serves both wire formats and stops cleanly on SIGTERM", { skip: SKIP }, async () => {
    const port = await freePort();
    const mock = startCommand([renio, "mock", "--port", String(port)], { cwd: dir });
    try {
      await mock.waitFor(new RegExp(`listening on http://127\\.0\\.0\\.1:${port}`));
      const chat = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 3 }),
      });
      assert.equal(chat.status, 200);
      assert.equal(((await chat.json()) as { object: string }).object, "chat.completion");
      const message = await fetch(`http://127.0.0.1:${port}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "c", messages: [{ role: "user", content: "hi" }], max_tokens: 3 }),
      });
      assert.equal(((await message.json()) as { type: string }).type, "message");
    } finally {
      const stopped = await mock.stop();
      assert.equal(stopped.code, 0, `exit ${stopped.code} ${stopped.signal}; stderr: ${stopped.stderr}`);
      assert.equal(stopped.stderr, "");
    }
  });

  test("renio serve without a config: embedded default, curl line, ./.renio/, a real chat completion", { skip: SKIP }, async () => {
    const port = await freePort();
    const serve = startCommand([renio, "serve", "--port", String(port)], { cwd: dir });
    try {
      const [, url, key] = await serve.waitFor(/curl (http:\/\/\S+)\/v1\/chat\/completions -H 'Authorization: Bearer (\S+)'.*\n/);
      assert.equal(url, `http://127.0.0.1:${port}`);
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "mock-gpt", messages: [{ role: "user", content: "Hello" }] }),
      });
      assert.equal(response.status, 200);
      const completion = (await response.json()) as { object: string; choices: { message: { content: string } }[] };
      assert.equal(completion.object, "chat.completion");
      assert.ok(completion.choices[0]!.message.content.length > 0);
      assert.ok(existsSync(join(dir, ".renio")), "./.renio/ created in the working directory");
      assert.ok(readdirSync(join(dir, ".renio")).some((name) => name.startsWith("renio.db")));
      const ready = await fetch(`${url}/readyz`);
      assert.equal(ready.status, 200);
    } finally {
      const stopped = await serve.stop();
      assert.equal(stopped.code, 0, `exit ${stopped.code} ${stopped.signal}; stderr: ${stopped.stderr}`);
      assert.match(stopped.stdout, /renio: stopped\n$/);
      assert.equal(stopped.stderr, "");
    }
  });

  test("renio serve refuses a non-loopback host without keys (exit 2)", { skip: SKIP }, async () => {
    writeFileSync(join(dir, "open.json"), JSON.stringify({ server: { host: "0.0.0.0" }, providers: { m: { type: "mock" } }, models: { x: { provider: "m" } } }));
    const done = await runCommand([renio, "serve", "--config", "open.json"], { cwd: dir, timeoutMs: 10_000 });
    assert.equal(done.code, 2);
    assert.match(done.stderr, /server\.host: .*non-loopback/);
  });
});
