import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { guardrailAnswer, type GuardrailAnswer } from "../../support/guardrail-upstream.ts";
import { allSamples } from "../../support/pii-samples.ts";
import { TEST_KEY } from "../../support/relay-harness.ts";
import { scratchDir, startRelayProcess, writeConfig, type RenioProcess } from "../../support/relay-process.ts";
import { startAnsweringUpstream, type ScriptedUpstream } from "../../support/scripted-upstream.ts";

/**
 * Seen, never leaked: a relay process (journal with full bodies, debug logging) handles calls
 * full of personal data and credentials on every wire format, JSON and streamed, through
 * translation, with tool arguments and results, blocked requests and blocked answers. Then a
 * scan of every artefact it leaves (the database and admission log files, its stdout and stderr,
 * /metrics, the admin and dashboard API) and of everything that reached the provider finds
 * none of the values; what fired is there, by policy, detector and action.
 */

const ADMIN = "secret-scan-admin-token-0123456789";
const METRICS = "secret-scan-metrics-token-0123";
const samples = allSamples(42);
/** One valid value of each built-in detector (the credentials among them are blocked). */
const PII: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(samples).map(([id, s]) => [id, s.valid[1]!]));
const PERSONAL = ["email", "phone", "iban", "payment_card", "nl_bsn", "es_dni", "it_codice_fiscale", "fr_nir", "de_steuer_id", "be_national_number", "pl_pesel"];
const IP = "203.0.113.77";
/** An address only the model writes (redacted in the answer). */
const MODEL_EMAIL = "someone.else@example.org";
const prose = `Customer file: ${PERSONAL.map((id) => `${id} ${PII[id]}`).join("; ")}; last login from ${IP}.`;
const values = [...PERSONAL.map((id) => PII[id]!), IP, MODEL_EMAIL, PII["openai_key"]!, PII["jwt"]!, PII["aws_access_key"]!];

let upstream: ScriptedUpstream;
let relay: RenioProcess;
let dir: string;
const answer: GuardrailAnswer = { text: `Noted: {{last}} (copy ${MODEL_EMAIL})`, pieceSize: 5 };

before(async () => {
  upstream = await startAnsweringUpstream((request) => guardrailAnswer(request, answer));
  dir = scratchDir();
  relay = await startRelayProcess(
    writeConfig(dir, {
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN, metricsToken: METRICS },
      storage: { type: "sqlite", path: join(dir, "renio.db") },
      logging: { level: "debug", format: "json" },
      journal: { bodies: "full" },
      providers: {
        eu: { type: "openai", baseUrl: `${upstream.url}/v1`, apiKey: "sk-upstream-eu-0000", region: "eu" },
        claude: { type: "anthropic", baseUrl: upstream.url, apiKey: "sk-upstream-claude-0000", region: "eu" },
      },
      models: { gpt: { provider: "eu", model: "gpt-4o" }, claude: { provider: "claude", model: "claude-x" }, "claude-as-gpt": { provider: "claude", model: "claude-x", translate: true } },
      keys: [{ id: "test", secret: TEST_KEY, project: "tests" }],
      guardrails: {
        policies: [
          { id: "keys", detectors: ["credentials"], request: "block", answer: "block" },
          { id: "personal", detectors: ["pii"], request: "pseudonymise", answer: "redact" },
        ],
      },
    }),
  );
});

after(async () => {
  // The test stops the relay itself; this covers a test that failed before.
  if (relay !== undefined && relay.child.exitCode === null && relay.child.signalCode === null) await relay.stop();
  await upstream?.stop();
});

function filesUnder(root: string): { path: string; text: string }[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .map((name) => join(root, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path).toString("latin1") }));
}

const refused = (promise: Promise<unknown>) => promise.then(() => "answered", (error: unknown) => (error instanceof Error ? error.message : String(error)));

describe("guardrails: a secret scan over every artefact", () => {
  test("no value reaches the provider, the journal files, the logs, /metrics or the admin API; the caller gets its own values back", async () => {
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 10_000 });
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: relay.url, maxRetries: 0, timeout: 10_000 });
    const json = await openai.chat.completions.create({ model: "gpt", messages: [{ role: "system", content: `Owner ${PII["email"]}` }, { role: "user", content: prose }] });
    assert.equal(json.choices[0]!.message.content, `Noted: ${prose} (copy [EMAIL_2])`, "the caller gets its own values back, the model's address redacted");
    let streamed = "";
    for await (const chunk of await openai.chat.completions.create({ model: "claude-as-gpt", stream: true, messages: [{ role: "user", content: prose }] })) streamed += chunk.choices[0]?.delta.content ?? "";
    assert.equal(streamed, `Noted: ${prose} (copy [EMAIL_2])`);
    for await (const event of await openai.responses.create({ model: "gpt", input: prose, stream: true })) void event;
    await openai.responses.create({ model: "gpt", input: prose });
    await anthropic.messages.stream({ model: "claude", max_tokens: 100, messages: [{ role: "user", content: prose }] }).finalMessage();
    await anthropic.messages.create({
      model: "claude",
      max_tokens: 100,
      messages: [
        { role: "user", content: "look them up" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "crm", input: { card: PII["payment_card"], ip: IP } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: prose }] },
      ],
    });
    assert.match(await refused(openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: `keys: ${PII["openai_key"]} ${PII["aws_access_key"]} ${PII["jwt"]}` }] })), /Policy `keys` blocked this request/);
    answer.text = `Your token: ${PII["jwt"]}`;
    assert.match(await refused((async () => { for await (const chunk of await openai.chat.completions.create({ model: "gpt", stream: true, messages: [{ role: "user", content: "token?" }] })) void chunk; })()), /Policy `keys` blocked this answer/);
    assert.match(await refused(openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: "token?" }] })), /Policy `keys` blocked this answer/);

    const admin = { authorization: `Bearer ${ADMIN}` };
    const api: { where: string; text: string }[] = [];
    for (const path of ["/admin/journal?limit=1000", "/admin/journal?guardrails=1", "/admin/dashboard/guardrails", "/admin/dashboard/overview", "/admin/dashboard/usage?by=model"]) {
      api.push({ where: `GET ${path}`, text: await (await fetch(`${relay.url}${path}`, { headers: admin })).text() });
    }
    const metrics = await (await fetch(`${relay.url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })).text();
    assert.match(metrics, /renio_guardrail_matches_total\{policy="personal",detector="iban",action="pseudonymise",on="request"\}/);
    assert.match(metrics, /renio_guardrail_calls_total\{policy="keys",detector="jwt",action="block",on="answer"\} 2/);
    const journal = JSON.parse(api[0]!.text) as { data: { guardrails: { policy: string; detector: string }[] | null; requestBody: string | null }[] };
    assert.equal(journal.data.length, 9);
    assert.ok(journal.data.every((e) => e.guardrails !== null), "every call has what fired");
    assert.ok(journal.data.some((e) => e.requestBody?.includes("[IBAN_1]")), "the journal keeps the bodies, masked");

    assert.equal((await relay.stop()).code, 0, relay.output());
    const places = [
      { where: "what reached the provider", text: JSON.stringify(upstream.bodies) },
      { where: "the relay's stdout and stderr", text: relay.output() },
      { where: "GET /metrics", text: metrics },
      ...api,
      ...filesUnder(dir).filter((file) => !file.path.endsWith("renio.json")).map((file) => ({ where: file.path, text: file.text })),
    ];
    assert.ok(places.length > 6);
    for (const { where, text } of places) {
      for (const value of values) assert.ok(!text.includes(value), `${value} found in ${where}`);
    }
  });
});
