import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ConfigError, formatProblem } from "../../src/config/config-error.ts";
import type { ConfigOverride } from "../../src/config/config-overrides.ts";
import { childEnvironment } from "../../src/config/child-environment.ts";
import { resolveConfig, type ConfigRequest, type ResolvedConfig } from "../../src/config/config-resolve.ts";
import { freePort } from "../support/free-port.ts";
import { runCommand, sourceCommand, startCommand } from "../support/cli-process.ts";

const dir = mkdtempSync(join(tmpdir(), "renio-config-env-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const ADMIN_TOKEN = "admin-token-from-env-0123";
const CLIENT_KEY = "sk-renio-client-0123456789";

/** A config file setting port 9000 and level warn, nothing else of what the environment overrides. */
const YAML_FILE = join(dir, "renio.yaml");
writeFileSync(
  YAML_FILE,
  `storage: { type: sqlite, path: ${join(dir, "yaml.db")} }
server:
  port: 9000
logging:
  level: warn
providers: { m: { type: mock } }
models: { mock-gpt: { provider: m } }
keys: [{ id: a, secret: ${CLIENT_KEY} }]
`,
);
const NO_KEYS_FILE = join(dir, "no-keys.jsonc");
writeFileSync(NO_KEYS_FILE, '{ "providers": { "m": { "type": "mock" } },\n  "models": {} }\n');

const port = (value: number): ConfigOverride => ({ path: ["server", "port"], value, from: "--port" });

async function problems(request: ConfigRequest): Promise<string[]> {
  try {
    await resolveConfig(request);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems.map(formatProblem);
  }
  assert.fail("resolved without a problem");
}

function source(resolved: ResolvedConfig, setting: string): string {
  const found = resolved.sources.find((entry) => entry.setting === setting);
  assert.ok(found, setting);
  return `${found.shown} from ${found.from}`;
}

describe("precedence: flag > environment > config file > default", () => {
  test("each layer wins over the ones below it, and its source is reported", async () => {
    const fileOnly = await resolveConfig({ file: YAML_FILE, env: {} });
    assert.equal(fileOnly.config.server.port, 9000);
    assert.equal(source(fileOnly, "server.port"), `9000 from ${YAML_FILE}`);
    assert.equal(source(fileOnly, "server.host"), "127.0.0.1 from default");
    assert.equal(source(fileOnly, "logging.level"), `warn from ${YAML_FILE}`);

    const env = { RENIO_PORT: "9100", RENIO_LOG_LEVEL: "debug", RENIO_HOST: "::1" };
    const withEnv = await resolveConfig({ file: YAML_FILE, env });
    assert.deepEqual([withEnv.config.server.port, withEnv.config.server.host, withEnv.config.logging.level], [9100, "::1", "debug"]);
    assert.equal(source(withEnv, "server.port"), "9100 from RENIO_PORT");
    assert.equal(source(withEnv, "logging.level"), "debug from RENIO_LOG_LEVEL");

    const withFlag = await resolveConfig({ file: YAML_FILE, env, flags: [port(9200)] });
    assert.equal(withFlag.config.server.port, 9200);
    assert.equal(source(withFlag, "server.port"), "9200 from --port");
    assert.equal(withFlag.config.logging.level, "debug", "a flag overrides only its own setting");
  });

  test("RENIO_CONFIG names the file when --config is absent; --config wins; empty means unset", async () => {
    const fromEnv = await resolveConfig({ env: { RENIO_CONFIG: YAML_FILE } });
    assert.equal(fromEnv.file, YAML_FILE);
    assert.equal(fromEnv.config.server.port, 9000);
    const given = await resolveConfig({ file: NO_KEYS_FILE, env: { RENIO_CONFIG: YAML_FILE } });
    assert.equal(given.file, NO_KEYS_FILE);
    const embedded = await resolveConfig({ env: { RENIO_CONFIG: "" } });
    assert.equal(embedded.file, undefined);
    assert.equal(source(embedded, "server.port"), "8080 from embedded default");
    assert.deepEqual(await problems({ env: { RENIO_CONFIG: join(dir, "missing.yaml") } }), [`RENIO_CONFIG: cannot read ${join(dir, "missing.yaml")}: no such file`]);
  });

  test("the admin token from RENIO_ADMIN_TOKEN (the same variable the CLI's admin client reads) is never shown", async () => {
    const resolved = await resolveConfig({ file: YAML_FILE, env: { RENIO_ADMIN_TOKEN: ADMIN_TOKEN } });
    assert.equal(resolved.config.server.adminToken, ADMIN_TOKEN);
    assert.equal(source(resolved, "server.adminToken"), "(set) from RENIO_ADMIN_TOKEN");
    assert.ok(!JSON.stringify(resolved.sources).includes(ADMIN_TOKEN));
    assert.equal(source(await resolveConfig({ file: YAML_FILE, env: {} }), "server.adminToken"), "(unset: no /admin routes) from default");
  });

  test("an environment value is taken as it is: ${VAR} in it is not interpolated", async () => {
    const token = "${HOME}-not-interpolated";
    assert.equal((await resolveConfig({ file: YAML_FILE, env: { RENIO_ADMIN_TOKEN: token, HOME: "/root" } })).config.server.adminToken, token);
  });
});

test("bench's child processes get the runtime's variables only: no override, no unrelated secret (they run with the config bench writes)", async () => {
  const env = childEnvironment({ PATH: "/bin", HOME: "/home/op", RENIO_CONFIG: YAML_FILE, RENIO_PORT: "1", RENIO_LOG_LEVEL: "verbose", RENIO_ADMIN_TOKEN: ADMIN_TOKEN, OPENAI_API_KEY: "sk-operator-secret-0001" });
  assert.deepEqual(env, { PATH: "/bin", HOME: "/home/op" });
  assert.equal((await resolveConfig({ file: YAML_FILE, env })).config.server.port, 9000);
});

describe("a bad environment value is a problem named after its variable", () => {
  test("each variable's value is checked, every problem reported with the file's own", async () => {
    const env = {
      RENIO_PORT: "abc",
      RENIO_HOST: "bad host",
      RENIO_LOG_FORMAT: "xml",
      RENIO_LOG_LEVEL: "verbose",
      RENIO_ADMIN_TOKEN: "short-secret",
    };
    writeFileSync(join(dir, "bad.yaml"), "providers: {}\nmodels: {}\nservre: {}\n");
    assert.deepEqual(await problems({ file: join(dir, "bad.yaml"), env }), [
      'RENIO_HOST: must be a host name or an IP address, got "bad host"',
      'RENIO_PORT: must be an integer from 0 to 65535, got "abc"',
      "RENIO_ADMIN_TOKEN: must be at least 16 characters (it has 12; the value is not shown)",
      'RENIO_LOG_FORMAT: must be json or text, got "xml"',
      'RENIO_LOG_LEVEL: must be one of error, warn, info, debug, got "verbose"',
      `${join(dir, "bad.yaml")}:3:1: servre: unknown key; did you mean "server"?`,
    ]);
    for (const value of ["-1", "65536", "80.5", " 80", "0x50"]) {
      assert.deepEqual(await problems({ env: { RENIO_PORT: value } }), [`RENIO_PORT: must be an integer from 0 to 65535, got ${JSON.stringify(value)}`]);
    }
  });

  test("a value that is valid alone but not with the rest is located at its variable", async () => {
    assert.deepEqual(await problems({ file: NO_KEYS_FILE, env: { RENIO_HOST: "0.0.0.0" } }), [
      "RENIO_HOST: server.host: Renio never listens on a non-loopback address (0.0.0.0) without keys configured (in keys, or issued at run time with server.adminToken)",
    ]);
    assert.deepEqual(await problems({ file: NO_KEYS_FILE, env: { RENIO_HOST: "0.0.0.0" }, flags: [{ path: ["server", "host"], value: "10.0.0.1", from: "--host" }] }), [
      "--host: server.host: Renio never listens on a non-loopback address (10.0.0.1) without keys configured (in keys, or issued at run time with server.adminToken)",
    ]);
  });
});

describe("renio serve and renio config check with the environment set, on the runtime running the tests", () => {
  test("serve: RENIO_CONFIG, RENIO_PORT, RENIO_LOG_LEVEL and RENIO_ADMIN_TOKEN are used; logs are JSON when stdout is not a terminal", async () => {
    const envPort = await freePort();
    const serve = startCommand([...sourceCommand(), "serve"], {
      cwd: dir,
      env: { RENIO_CONFIG: YAML_FILE, RENIO_PORT: String(envPort), RENIO_LOG_LEVEL: "debug", RENIO_ADMIN_TOKEN: ADMIN_TOKEN },
    });
    try {
      await serve.waitFor(new RegExp(`listening on http://127\\.0\\.0\\.1:${envPort}\\n`));
      await serve.waitFor(/^logging: json, level debug$/m);
      const admin = await fetch(`http://127.0.0.1:${envPort}/admin/budgets`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(admin.status, 200, await admin.text());
      const chat = await fetch(`http://127.0.0.1:${envPort}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${CLIENT_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 2 }),
      });
      assert.equal(chat.status, 200, "the file's keys and models are used");
      await chat.body?.cancel();
    } finally {
      const stopped = await serve.stop();
      assert.equal(stopped.code, 0, `exit ${stopped.code}; stderr: ${stopped.stderr}`);
      assert.ok(!stopped.stdout.includes(ADMIN_TOKEN) && !stopped.stderr.includes(ADMIN_TOKEN));
    }
  });

  test("serve: flags win over the environment", async () => {
    const [envPort, flagPort] = [await freePort(), await freePort()];
    const serve = startCommand(
      [...sourceCommand(), "serve", "--config", YAML_FILE, "--port", String(flagPort), "--log-format", "text", "--log-level", "error"],
      { cwd: dir, env: { RENIO_PORT: String(envPort), RENIO_LOG_FORMAT: "json", RENIO_LOG_LEVEL: "debug" } },
    );
    try {
      await serve.waitFor(new RegExp(`listening on http://127\\.0\\.0\\.1:${flagPort}\\n`));
      await serve.waitFor(/^logging: text, level error$/m);
    } finally {
      const stopped = await serve.stop();
      assert.equal(stopped.code, 0, `exit ${stopped.code}; stderr: ${stopped.stderr}`);
    }
  });

  test("serve: a bad environment value or flag stops it before it opens anything, exit 2", async () => {
    const cwd = mkdtempSync(join(dir, "bad-"));
    const [badEnv, badFlag, exposed] = await Promise.all([
      runCommand([...sourceCommand(), "serve"], { cwd, env: { RENIO_PORT: "abc" } }),
      runCommand([...sourceCommand(), "serve", "--log-level", "verbose"], { cwd }),
      runCommand([...sourceCommand(), "serve"], { cwd, env: { RENIO_HOST: "0.0.0.0" } }),
    ]);
    assert.equal(badEnv.code, 2);
    assert.equal(badEnv.stderr, 'config: RENIO_PORT: must be an integer from 0 to 65535, got "abc"\n');
    assert.equal(badFlag.code, 2);
    assert.equal(badFlag.stderr, 'renio serve: --log-level must be one of error, warn, info, debug, got "verbose" (see renio serve --help)\n');
    assert.equal(exposed.code, 2);
    assert.match(exposed.stderr, /embedded default .* only listen on loopback, not 0\.0\.0\.0 \(from RENIO_HOST\)/);
    assert.ok(!existsSync(join(cwd, ".renio")), "no store was opened");
  });

  test("config check: RENIO_CONFIG as the file, overrides applied, each setting's source listed", async () => {
    const done = await runCommand([...sourceCommand(), "config", "check"], {
      cwd: dir,
      env: { RENIO_CONFIG: YAML_FILE, RENIO_HOST: "0.0.0.0", RENIO_ADMIN_TOKEN: ADMIN_TOKEN },
    });
    assert.equal(done.code, 0, done.stderr);
    const lines = done.stdout.trimEnd().split("\n");
    assert.equal(lines[0], `${YAML_FILE}: ok (1 providers, 1 models, 1 keys, 0 budgets)`);
    const listed = lines.slice(1).map((line) => line.trim().split(/\s{2,}/));
    assert.deepEqual(listed, [
      ["server.host", "0.0.0.0", "from RENIO_HOST"],
      ["server.port", "9000", `from ${YAML_FILE}`],
      ["server.adminToken", "(set)", "from RENIO_ADMIN_TOKEN"],
      ["logging.format", "(unset: json unless stdout is a terminal)", "from default"],
      ["logging.level", "warn", `from ${YAML_FILE}`],
    ]);
    assert.ok(!done.stdout.includes(ADMIN_TOKEN));
  });
});
