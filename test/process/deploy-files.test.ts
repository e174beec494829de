import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { parse } from "yaml";
import { resolveConfig } from "../../src/config/config-resolve.ts";
import { freePort } from "../support/free-port.ts";
import { REPO_ROOT, runCommand, sourceCommand, startCommand } from "../support/cli-process.ts";
import { testPostgresUrl } from "../support/postgres.ts";
import { pgExec } from "../support/store-targets.ts";

// There is no Docker daemon nor systemd as PID 1 where these tests run: they check what can be
// checked without them. The files' configs are valid with the environment they are given, the
// compose relay runs on a real PostgreSQL, the image's health check command works against a
// relay, and systemd-analyze accepts the unit.

const dir = mkdtempSync(join(tmpdir(), "renio-deploy-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");
const DOCKERFILE = read("Dockerfile");
/** The Dockerfile's instructions of the run stage, continuation lines joined. */
const runStage = DOCKERFILE.slice(DOCKERFILE.lastIndexOf("\nFROM "))
  .replace(/\\\n/g, " ")
  .split("\n")
  .filter((line) => line.trim() !== "" && !line.startsWith("#"));
const instruction = (name: string): string[] => runStage.filter((line) => line.startsWith(`${name} `)).map((line) => line.slice(name.length + 1).trim());

/** `ENV A=1 B=2` of the run stage. */
const IMAGE_ENV = Object.fromEntries(instruction("ENV").flatMap((line) => line.split(/\s+/).map((pair) => pair.split("=") as [string, string])));
/** The argv of `HEALTHCHECK … CMD [json]`. */
const HEALTHCHECK = JSON.parse(/CMD (\[.*\])$/.exec(instruction("HEALTHCHECK")[0] ?? "")?.[1] ?? "null") as string[];

const SECRETS = { RENIO_ADMIN_TOKEN: "admin-token-0123456789", RENIO_CLIENT_KEY: "sk-renio-client-0123456789", OPENAI_API_KEY: "sk-openai-test", POSTGRES_PASSWORD: "pw0123456789" };

interface ComposeService {
  image?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition?: string }>;
  healthcheck?: { test?: string[] };
  volumes?: string[];
}
const COMPOSE = parse(read("deploy/compose.yaml")) as { services: Record<string, ComposeService> };

/** The relay's environment as compose would pass it, `${NAME}` and `${NAME:?message}` taken from `values`. */
function composeRelayEnv(values: Readonly<Record<string, string>>): Record<string, string> {
  const env = COMPOSE.services["relay"]?.environment ?? {};
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [
      name,
      String(value).replace(/\$\{([A-Z_]+)(:\?[^}]*)?\}/g, (_, variable: string) => {
        assert.ok(variable in values, `compose needs ${variable}`);
        return values[variable]!;
      }),
    ]),
  );
}

function healthy(port: number): number | null {
  return spawnSync(HEALTHCHECK[0]!, HEALTHCHECK.slice(1), { env: { ...process.env, RENIO_PORT: String(port) }, timeout: 10_000 }).status;
}

describe("Dockerfile", () => {
  test("the image's config is valid with the image's environment, listens on the exposed port and keeps SQLite in the volume", async () => {
    assert.ok(instruction("COPY").includes(`deploy/renio.yaml ${IMAGE_ENV["RENIO_CONFIG"]}`), "the config is copied where RENIO_CONFIG points");
    const { config, sources } = await resolveConfig({ env: { ...IMAGE_ENV, ...SECRETS, RENIO_CONFIG: join(REPO_ROOT, "deploy/renio.yaml") } });
    assert.equal(config.server.host, "0.0.0.0");
    assert.deepEqual(instruction("EXPOSE"), [String(config.server.port)]);
    assert.equal(sources.find((source) => source.setting === "server.port")?.from, "RENIO_PORT");
    const [volume] = JSON.parse(instruction("VOLUME")[0] ?? "[]") as string[];
    assert.ok(config.storage.type === "sqlite" && volume !== undefined && config.storage.path.startsWith(`${volume}/`), "the database is in the volume");
    assert.deepEqual(instruction("USER"), ["renio"], "not root");
  });

  test("the HEALTHCHECK command passes against a running relay and fails when nothing answers", async () => {
    const port = await freePort();
    const serve = startCommand([...sourceCommand(), "serve", "--port", String(port)], { cwd: mkdtempSync(join(dir, "health-")) });
    try {
      await serve.waitFor(/listening on /);
      assert.equal(healthy(port), 0);
    } finally {
      await serve.stop();
    }
    assert.notEqual(healthy(port), 0);
  });
});

describe("deploy/compose.yaml", () => {
  test("the relay waits for a healthy PostgreSQL; its environment gives every ${VAR} its config uses", async () => {
    const relay = COMPOSE.services["relay"]!;
    assert.equal(relay.depends_on?.["postgres"]?.condition, "service_healthy");
    assert.ok(COMPOSE.services["postgres"]?.healthcheck?.test?.join(" ").includes("pg_isready"));
    assert.ok(relay.volumes?.includes(`./renio-postgres.yaml:${relay.environment?.["RENIO_CONFIG"]}:ro`));
    const { config } = await resolveConfig({ env: { ...composeRelayEnv(SECRETS), RENIO_CONFIG: join(REPO_ROOT, "deploy/renio-postgres.yaml") } });
    assert.ok(config.storage.type === "postgres" && new URL(config.storage.url).host === "postgres:5432");
    assert.equal(config.server.adminToken, SECRETS.RENIO_ADMIN_TOKEN);
  });

  test("the relay's config and environment run against a real PostgreSQL", async () => {
    const database = `renio_deploy_${process.pid}`;
    const base = testPostgresUrl();
    await pgExec(base, `drop database if exists ${database}`);
    await pgExec(base, `create database ${database}`);
    const url = new URL(base);
    url.pathname = `/${database}`;
    const port = await freePort();
    const env = { ...composeRelayEnv(SECRETS), RENIO_CONFIG: join(REPO_ROOT, "deploy/renio-postgres.yaml"), DATABASE_URL: url.toString(), RENIO_HOST: "127.0.0.1", RENIO_PORT: String(port) };
    const serve = startCommand([...sourceCommand(), "serve"], { cwd: dir, env });
    try {
      await serve.waitFor(new RegExp(`listening on http://127\\.0\\.0\\.1:${port}\\n`));
      await serve.waitFor(/^storage: postgres/m);
      assert.equal(healthy(port), 0);
      const budgets = await fetch(`http://127.0.0.1:${port}/admin/budgets`, { headers: { authorization: `Bearer ${SECRETS.RENIO_ADMIN_TOKEN}` } });
      assert.equal(budgets.status, 200);
      assert.match(await budgets.text(), /"month"/);
    } finally {
      const stopped = await serve.stop();
      assert.equal(stopped.code, 0, stopped.stderr);
      await pgExec(base, `drop database if exists ${database}`);
    }
  });
});

const SYSTEMD_ANALYZE = spawnSync("systemd-analyze", ["--version"]).status === 0;

describe("deploy/renio.service", () => {
  const unit = read("deploy/renio.service");
  test("systemd-analyze verify accepts it (every key known), with ExecStart at an executable", { skip: SYSTEMD_ANALYZE ? false : "systemd-analyze is not installed" }, () => {
    const copy = join(dir, "renio.service");
    writeFileSync(copy, unit.replace("ExecStart=/usr/local/bin/renio", `ExecStart=${process.execPath}`));
    const verify = spawnSync("systemd-analyze", ["verify", copy], { encoding: "utf8" });
    assert.equal(verify.status, 0, verify.stderr);
    assert.equal(verify.stderr.trim(), "", "no warning (an unknown key is only a warning)");
  });

  test("runs renio serve with the state directory the config's database is in; reload sends SIGHUP", async () => {
    assert.match(unit, /^ExecStart=\/usr\/local\/bin\/renio serve$/m);
    assert.match(unit, /^ExecReload=\/bin\/kill -HUP \$MAINPID$/m);
    assert.match(unit, /^Restart=on-failure$/m);
    const state = /^StateDirectory=(\S+)$/m.exec(unit)?.[1];
    const configPath = /^Environment=RENIO_CONFIG=(\S+)$/m.exec(unit)?.[1];
    assert.equal(configPath, "/etc/renio/renio.yaml");
    const { config } = await resolveConfig({ env: { ...SECRETS, RENIO_CONFIG: join(REPO_ROOT, "deploy/renio.yaml") } });
    assert.ok(config.storage.type === "sqlite" && config.storage.path.startsWith(`/var/lib/${state}/`));
  });
});

// `renio config check` itself on the shipped files, as an operator would run it.
test("renio config check deploy/renio.yaml with the secrets set", async () => {
  const done = await runCommand([...sourceCommand(), "config", "check", "deploy/renio.yaml"], { env: SECRETS });
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stdout, /^deploy\/renio\.yaml: ok \(1 providers, 1 models, 1 keys, 1 budgets\)\n/);
});
