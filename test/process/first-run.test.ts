import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { freePort } from "../support/free-port.ts";
import { sourceCommand, startCommand, type RunningCli } from "../support/cli-process.ts";

let dir = "";

before(() => {
  dir = mkdtempSync(join(tmpdir(), "renio-first-run-"));
});

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The banner's example call: URL, key and body of the curl line `renio serve` prints. */
function curlOf(banner: string): { url: string; authorization: string; body: string } {
  const line = /^curl (\S+) -H '(Authorization: [^']+)' -H 'Content-Type: application\/json' -d '([^']+)'$/m.exec(banner);
  assert.ok(line, `a curl line in the banner:\n${banner}`);
  return { url: line[1]!, authorization: line[2]!.slice("Authorization: ".length), body: line[3]! };
}

/** Starts `renio serve --config default` in `cwd` and waits for the banner's last line (the curl example). */
async function serveDefault(cwd: string, env: Record<string, string>): Promise<{ serve: RunningCli; banner: string }> {
  const serve = startCommand([...sourceCommand(), "serve", "--config", "default", "--port", String(await freePort())], { cwd, env });
  await serve.waitFor(/^curl .*\n/m);
  return { serve, banner: serve.stdout() };
}

async function stopped(serve: RunningCli): Promise<string> {
  const result = await serve.stop();
  assert.equal(result.code, 0, `exit ${result.code} ${result.signal}; stderr: ${result.stderr}`);
  return result.stdout + result.stderr;
}

describe("a first run of renio serve: what the banner shows and what answers", () => {
  test("the banner's curl gets a one-sentence answer; the dashboard, the admin API and /metrics answer the token it prints once", async () => {
    const cwd = mkdtempSync(join(dir, "generated-"));
    const first = await serveDefault(cwd, { RENIO_ADMIN_TOKEN: "" });
    let token = "";
    try {
      const example = curlOf(first.banner);
      const response = await fetch(example.url, { method: "POST", headers: { authorization: example.authorization, "content-type": "application/json" }, body: example.body });
      assert.equal(response.status, 200);
      const completion = (await response.json()) as { choices: { message: { content: string } }[]; usage: { completion_tokens: number } };
      const content = completion.choices[0]!.message.content;
      assert.ok(content.length < 200, `a short answer, got ${content.length} characters`);
      assert.match(content, /^Hello\b[^]*\.$/, "one sentence, not filler");
      assert.ok(completion.usage.completion_tokens < 32, `a sentence's tokens, got ${completion.usage.completion_tokens}`);

      const dashboard = /^dashboard: (http:\/\/127\.0\.0\.1:\d+\/dashboard\/) \(sign in with an admin token\)$/m.exec(first.banner);
      assert.ok(dashboard, `the dashboard's URL in the banner:\n${first.banner}`);
      const shown = /^admin token: (renio-admin-\S+)$/m.exec(first.banner);
      assert.ok(shown, `the generated admin token in the banner:\n${first.banner}`);
      token = shown[1]!;
      const kept = join(cwd, ".renio", "admin-token");
      assert.ok(first.banner.includes(`kept in ${kept} (mode 0600)`), "the banner says where the token is kept");
      assert.equal(readFileSync(kept, "utf8").trim(), token);
      assert.equal(statSync(kept).mode & 0o777, 0o600);

      const page = await fetch(dashboard[1]!);
      assert.equal(page.status, 200);
      assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
      await page.text();
      const base = dashboard[1]!.slice(0, -"/dashboard/".length);
      const unsigned = await fetch(`${base}/admin/journal?limit=5`);
      assert.equal(unsigned.status, 401);
      await unsigned.text();
      const journal = await fetch(`${base}/admin/journal?limit=5`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(journal.status, 200);
      const entries = ((await journal.json()) as { data: { model: string }[] }).data;
      assert.ok(entries.some((entry) => entry.model === "mock-gpt"), "the example call is in the journal");
      assert.match(first.banner, new RegExp(`^metrics: ${base.replace(/\./g, "\\.")}/metrics `, "m"));
      const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(metrics.status, 200);
      assert.match(await metrics.text(), /^renio_/m);
    } finally {
      await stopped(first.serve);
    }

    // A restart keeps the token and never prints it again.
    const second = await serveDefault(cwd, { RENIO_ADMIN_TOKEN: "" });
    try {
      assert.ok(second.banner.includes(`admin token: kept in ${join(cwd, ".renio", "admin-token")}`), second.banner);
      const base = /^dashboard: (http:\/\/\S+)\/dashboard\//m.exec(second.banner)![1]!;
      const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(metrics.status, 200);
      await metrics.text();
    } finally {
      const output = await stopped(second.serve);
      assert.ok(!output.includes(token), "the kept token is not printed again");
    }
  });

  test("RENIO_ADMIN_TOKEN is the admin token when set: nothing generated, the secret not printed", async () => {
    const cwd = mkdtempSync(join(dir, "from-env-"));
    const secret = "first-run-admin-token-from-env";
    const run = await serveDefault(cwd, { RENIO_ADMIN_TOKEN: secret });
    try {
      assert.match(run.banner, /^admin token: the value of RENIO_ADMIN_TOKEN$/m);
      const base = /^dashboard: (http:\/\/\S+)\/dashboard\//m.exec(run.banner)![1]!;
      const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${secret}` } });
      assert.equal(metrics.status, 200);
      await metrics.text();
      assert.ok(!existsSync(join(cwd, ".renio", "admin-token")), "no token generated");
    } finally {
      const output = await stopped(run.serve);
      assert.ok(!output.includes(secret), "the token is never printed");
    }
  });

  test("a config file: the banner says where the dashboard is, or how to turn it on; nothing is generated", async () => {
    const cwd = mkdtempSync(join(dir, "config-"));
    const config = (server: Record<string, unknown>) => ({
      server: { port: 0, ...server },
      storage: { type: "sqlite", path: join(cwd, "relay.db") },
      providers: { mock: { type: "mock" } },
      models: { "mock-gpt": { provider: "mock" } },
      keys: [{ id: "k", secret: "sk-renio-first-run-key-0001" }],
    });
    writeFileSync(join(cwd, "with-admin.json"), JSON.stringify(config({ adminToken: "${RENIO_TEST_FIRST_RUN_ADMIN}" })));
    writeFileSync(join(cwd, "without.json"), JSON.stringify(config({})));
    const secret = "first-run-admin-token-in-config";
    const withAdmin = startCommand([...sourceCommand(), "serve", "--config", join(cwd, "with-admin.json")], { cwd, env: { RENIO_ADMIN_TOKEN: "", RENIO_TEST_FIRST_RUN_ADMIN: secret } });
    try {
      await withAdmin.waitFor(/^dashboard: .*\n/m);
      const banner = withAdmin.stdout();
      assert.match(banner, /^dashboard: http:\/\/127\.0\.0\.1:\d+\/dashboard\/ \(sign in with an admin token\)$/m);
      assert.doesNotMatch(banner, /^admin token:/m, "a config's token is not announced");
    } finally {
      assert.ok(!(await stopped(withAdmin)).includes(secret), "the token is never printed");
    }
    const without = startCommand([...sourceCommand(), "serve", "--config", join(cwd, "without.json")], { cwd, env: { RENIO_ADMIN_TOKEN: "" } });
    try {
      await without.waitFor(/^dashboard: .*\n/m);
      assert.match(without.stdout(), /^dashboard: off \(set RENIO_ADMIN_TOKEN, or server\.admin\.tokens in the config, to serve it at \/dashboard\/\)$/m);
    } finally {
      await stopped(without);
    }
    assert.ok(!existsSync(join(cwd, "admin-token")) && !existsSync(join(cwd, ".renio")), "nothing generated for a config file");
  });
});
