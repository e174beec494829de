import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import { runCommand, sourceCommand } from "../support/cli-process.ts";
import { startMockServer, type MockServer } from "../support/relay-harness.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig, type RenioProcess } from "../support/relay-process.ts";

const ADMIN_TOKEN = "admin-token-for-secret-scan-0123456789";
let mock: MockServer;
let relay: RenioProcess;
let dir: string;

before(async () => {
  mock = await startMockServer();
  dir = scratchDir();
  const raw = relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") }, {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN },
    journal: { bodies: "full" },
  });
  relay = await startRelayProcess(writeConfig(dir, raw));
});

after(async () => {
  await mock.stop();
});

/** Every answer the relay gave, as text (status line, headers, body), and whether it is one allowed to carry a secret. */
const answers: { what: string; text: string; issuesSecret: boolean }[] = [];

async function record(what: string, response: Response, issuesSecret = false, parsed?: unknown): Promise<string> {
  const body = parsed === undefined ? await response.text() : JSON.stringify(parsed);
  answers.push({ what, text: `${response.status}\n${[...response.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${body}`, issuesSecret });
  return body;
}

async function adminCall(method: string, path: string, body?: unknown): Promise<Response> {
  return await fetch(`${relay.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Raw calls with `secret`: JSON, stream, a refused model, a bad body, an unknown route, /v1/models. */
async function exercise(secret: string, label: string): Promise<void> {
  const calls: [string, RequestInit & { path: string }][] = [
    ["chat", { path: "/v1/chat/completions", method: "POST", body: JSON.stringify({ model: "mock-gpt", messages: [{ role: "user", content: `hi ${label}` }], max_tokens: 3 }) }],
    ["stream", { path: "/v1/chat/completions", method: "POST", body: JSON.stringify({ model: "mock-gpt", stream: true, messages: [{ role: "user", content: "hi" }] }) }],
    ["unknown model", { path: "/v1/chat/completions", method: "POST", body: JSON.stringify({ model: "nope", messages: [] }) }],
    ["bad json", { path: "/v1/messages", method: "POST", body: "{not json" }],
    ["unknown route", { path: "/v1/nothing", method: "POST", body: "{}" }],
    ["models", { path: "/v1/models", method: "GET" }],
  ];
  for (const [what, { path, ...init }] of calls) {
    const response = await fetch(`${relay.url}${path}`, { ...init, headers: { authorization: `Bearer ${secret}`, "x-api-key": secret, "content-type": "application/json" } });
    await record(`${label} ${what}`, response);
  }
}

/** Every file under `root`, read as text (SQLite database, WAL, admission log segments). */
function filesUnder(root: string): { path: string; text: string }[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .map((name) => join(root, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path).toString("latin1") }));
}

describe("stored keys' secrets appear only in the create and rotate answers", () => {
  test("responses, journal, audit, database files and the relay's output hold no secret and no hash", async () => {
    const secrets: string[] = [];
    const createdBody = await record("create", await adminCall("POST", "/keys", { id: "scanned", metadata: { purpose: "scan" } }), true);
    secrets.push((JSON.parse(createdBody) as { secret: string }).secret);
    await exercise(secrets[0]!, "first");
    const openai = new OpenAI({ apiKey: secrets[0], baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
    const completion = await openai.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "sdk" }], max_tokens: 2 }).withResponse();
    await record("openai sdk", completion.response, false, completion.data);

    const rotatedBody = await record("rotate", await adminCall("POST", "/keys/scanned/rotate", { graceSeconds: 3600 }), true);
    secrets.push((JSON.parse(rotatedBody) as { secret: string }).secret);
    await exercise(secrets[0]!, "old in grace");
    await exercise(secrets[1]!, "new");
    const anthropic = new Anthropic({ apiKey: secrets[1], baseURL: relay.url, maxRetries: 0, timeout: 5_000 });
    const message = await anthropic.messages.create({ model: "mock-claude", max_tokens: 2, messages: [{ role: "user", content: "sdk" }] }).withResponse();
    await record("anthropic sdk", message.response, false, message.data);

    await record("patch", await adminCall("PATCH", "/keys/scanned", { models: ["mock-gpt"] }));
    await exercise(secrets[1]!, "restricted");
    await record("revoke", await adminCall("DELETE", "/keys/scanned"));
    await exercise(secrets[0]!, "old revoked");
    await exercise(secrets[1]!, "new revoked");
    await record("bad admin body", await adminCall("POST", "/keys", { id: "x", secret: secrets[1] }));
    for (const path of ["/keys", "/keys/scanned", "/audit?limit=1000", "/journal?limit=1000"]) await record(`GET ${path}`, await adminCall("GET", path));

    const cli = await runCommand([...sourceCommand(), "keys", "list", "--url", relay.url, "--json"], { env: { RENIO_ADMIN_TOKEN: ADMIN_TOKEN } });
    assert.equal(cli.code, 0, cli.stderr);
    const audit = JSON.parse(answers.find((a) => a.what === "GET /audit?limit=1000")!.text.split("\n\n").slice(1).join("\n\n")) as { data: { action: string }[] };
    assert.deepEqual(audit.data.map((e) => e.action), ["key.revoke", "key.update", "key.rotate", "key.create"]);
    const journal = answers.find((a) => a.what === "GET /journal?limit=1000")!.text;
    assert.ok(journal.includes('"keyId":"scanned"'), "the calls were journaled under the key id");

    assert.equal((await relay.stop()).code, 0, relay.output());
    const db = (await currentRuntime()).openSqlite(join(dir, "renio.db"));
    const serverSecret = (db.prepare("select value from renio_meta where key = 'key_secret'").all([]) as { value: string }[])[0]!.value;
    db.close();
    const hashes = secrets.map((secret) => createHmac("sha256", serverSecret).update(secret).digest("hex"));

    const allowed = answers.filter((a) => a.issuesSecret);
    assert.equal(allowed.length, 2);
    allowed.forEach((answer, i) => assert.ok(answer.text.includes(secrets[i]!), `${answer.what} answers its secret`));
    const places = [
      ...answers.filter((a) => !a.issuesSecret).map((a) => ({ where: `response to ${a.what}`, text: a.text })),
      ...allowed.map((a) => ({ where: `response to ${a.what} (besides its own secret)`, text: a.text.replace(secrets[a.what === "create" ? 0 : 1]!, "") })),
      { where: "the relay's stdout and stderr", text: relay.output() },
      { where: "renio keys list", text: cli.stdout + cli.stderr },
      ...filesUnder(dir).map((file) => ({ where: file.path, text: file.text })),
    ];
    for (const { where, text } of places) {
      for (const [i, secret] of secrets.entries()) assert.ok(!text.includes(secret), `secret ${i + 1} found in ${where}`);
    }
    for (const { where, text } of places.filter((p) => !p.where.startsWith(dir))) {
      for (const hash of hashes) assert.ok(!text.includes(hash), `a secret's hash found in ${where}`);
    }
  });
});
