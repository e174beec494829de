import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { guardrailsSchema } from "../../../src/config/guardrails-schema.ts";
import { createGuardrails, type Guardrails } from "../../../src/guardrails/guardrails.ts";
import { RelayError } from "../../../src/shared/relay-error.ts";

/**
 * The request side of the guardrails on their own: which strings of each wire format are
 * scanned as which part (messages, system prompt, tool arguments, tool results), what each
 * action does to the body that leaves, how policies combine, and the conditions on key,
 * project, model and target region (the key's home region included).
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const EMAIL = "jan.de.vries@example.nl";
const IBAN = "NL91ABNA0417164300";
const CALLER = { keyId: "k1", project: "shop", model: "gpt" };

function guardrails(section: unknown): Guardrails {
  const built = createGuardrails(guardrailsSchema.parse(section));
  assert.ok(built !== undefined);
  return built;
}

async function guarded(rails: Guardrails, body: unknown, path = "/v1/chat/completions", regions: readonly string[] = ["eu"]) {
  const call = rails.forCall(CALLER);
  assert.ok(call !== undefined, "a policy applies");
  return await call.request(encoder.encode(typeof body === "string" ? body : JSON.stringify(body)), path, regions);
}

const sent = (bytes: Uint8Array | undefined) => JSON.parse(decoder.decode(bytes)) as Record<string, unknown>;
const redactAll = (parts?: string[]) => guardrails({ policies: [{ id: "pii", detectors: ["email", "iban"], request: "redact", ...(parts ? { parts } : {}) }] });

describe("request parts per wire format", () => {
  test("OpenAI chat: system and developer messages, user text parts, assistant tool call arguments, tool results", async () => {
    const body = {
      model: "gpt",
      messages: [
        { role: "system", content: `Escalate to ${EMAIL}` },
        { role: "developer", content: [{ type: "text", text: `IBAN ${IBAN}` }] },
        { role: "user", content: [{ type: "text", text: `I am ${EMAIL}` }, { type: "image_url", image_url: { url: "https://example.com/a.png" } }] },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "pay", arguments: JSON.stringify({ iban: IBAN }) } }] },
        { role: "tool", tool_call_id: "c1", content: `paid from ${IBAN}` },
      ],
    };
    for (const [parts, expected] of [
      [undefined, ["messages[0].content", "messages[1].content[0].text", "messages[2].content[0].text", "messages[3].tool_calls[0].function.arguments", "messages[4].content"]],
      [["toolArguments"], ["messages[3].tool_calls[0].function.arguments"]],
      [["toolResults", "system"], ["messages[0].content", "messages[1].content[0].text", "messages[4].content"]],
    ] as const) {
      const call = await guarded(redactAll(parts ? [...parts] : undefined), body);
      call.bodyFor("eu");
      const where = call.records()!.flatMap((r) => r.at.map((p) => p.part));
      assert.deepEqual(where.sort(), [...expected].sort(), `parts ${String(parts)}`);
      const out = decoder.decode(call.bodyFor("eu"));
      assert.equal(out.includes(EMAIL) || out.includes(IBAN), parts !== undefined, "only the scanned parts changed");
    }
    const out = sent((await guarded(redactAll(), body)).bodyFor("eu"));
    const messages = out["messages"] as { content: unknown; tool_calls?: { function: { arguments: string } }[] }[];
    assert.equal(messages[0]!.content, "Escalate to [EMAIL_1]");
    assert.deepEqual(JSON.parse(messages[3]!.tool_calls![0]!.function.arguments), { iban: "[IBAN_1]" }, "arguments stay valid JSON");
    assert.equal(messages[4]!.content, "paid from [IBAN_1]", "the same value gets the same placeholder");
  });

  test("OpenAI Responses: instructions, input messages, function call arguments and outputs", async () => {
    const body = {
      model: "gpt",
      instructions: `Reply to ${EMAIL}`,
      input: [
        { role: "user", content: [{ type: "input_text", text: `my IBAN is ${IBAN}` }] },
        { type: "function_call", call_id: "c1", name: "lookup", arguments: JSON.stringify({ email: EMAIL }) },
        { type: "function_call_output", call_id: "c1", output: `found ${EMAIL}` },
      ],
    };
    const call = await guarded(redactAll(), body, "/v1/responses");
    call.bodyFor("eu");
    assert.deepEqual(call.records()!.flatMap((r) => r.at.map((p) => p.part)).sort(), ["input[0].content[0].text", "input[1].arguments", "input[2].output", "instructions"]);
    const out = decoder.decode(call.bodyFor("eu"));
    assert.ok(!out.includes(EMAIL) && !out.includes(IBAN));
    const string = await guarded(redactAll(["messages"]), { model: "gpt", input: `hi ${EMAIL}` }, "/v1/responses");
    assert.equal(sent(string.bodyFor("eu"))["input"], "hi [EMAIL_1]");
  });

  test("Anthropic: system (string and blocks), text, tool_use input strings at any depth, tool_result content; thinking untouched", async () => {
    const body = {
      model: "claude",
      system: [{ type: "text", text: `Owner: ${EMAIL}` }],
      messages: [
        { role: "user", content: `pay ${IBAN}` },
        { role: "assistant", content: [{ type: "thinking", thinking: `the user's ${IBAN}`, signature: "sig" }, { type: "tool_use", id: "t1", name: "pay", input: { to: { iban: IBAN, note: ["for", EMAIL] } } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: `receipt sent to ${EMAIL}` }] }] },
      ],
    };
    const call = await guarded(redactAll(), body, "/v1/messages");
    call.bodyFor("eu");
    assert.deepEqual(call.records()!.flatMap((r) => r.at.map((p) => p.part)).sort(), [
      "messages[0].content",
      "messages[1].content[1].input.to.iban",
      "messages[1].content[1].input.to.note[1]",
      "messages[2].content[0].content[0].text",
      "system[0].text",
    ]);
    const out = sent(call.bodyFor("eu"));
    const blocks = (out["messages"] as { content: { type: string; thinking?: string; input?: unknown }[] }[])[1]!.content;
    assert.equal(blocks[0]!.thinking, `the user's ${IBAN}`, "a signed thinking block cannot be changed: it is left as it is");
    assert.deepEqual(blocks[1]!.input, { to: { iban: "[IBAN_1]", note: ["for", "[EMAIL_1]"] } });
    const string = await guarded(redactAll(["system"]), { model: "claude", system: `call ${EMAIL}`, messages: [] }, "/v1/messages/count_tokens");
    assert.equal(sent(string.bodyFor("eu"))["system"], "call [EMAIL_1]");
  });

  test("legacy completions prompts and embedding inputs are messages", async () => {
    assert.deepEqual(sent((await guarded(redactAll(), { model: "gpt", prompt: [`a ${EMAIL}`, "b"] }, "/v1/completions")).bodyFor("eu"))["prompt"], ["a [EMAIL_1]", "b"]);
    assert.deepEqual(sent((await guarded(redactAll(), { model: "gpt", input: `e ${IBAN}` }, "/v1/embeddings")).bodyFor("eu"))["input"], "e [IBAN_1]");
  });
});

describe("request actions", () => {
  const body = { model: "gpt", messages: [{ role: "user", content: `mail ${EMAIL}, again ${EMAIL}, IBAN ${IBAN}, or bob@example.com` }] };

  test("redact: typed placeholders, the same value the same one, every other byte kept (a large integer too)", async () => {
    // A seed JSON.parse would round (2^64 + …): a rewrite that re-serialized the body would change it.
    const raw = `{"seed": 12345678901234567890,  ${JSON.stringify(body).slice(1)}`;
    const call = await guarded(redactAll(), raw);
    const out = decoder.decode(call.bodyFor("eu"));
    assert.equal(out, raw.replace(`mail ${EMAIL}, again ${EMAIL}, IBAN ${IBAN}, or bob@example.com`, "mail [EMAIL_1], again [EMAIL_1], IBAN [IBAN_1], or [EMAIL_2]"));
    assert.ok(out.startsWith('{"seed": 12345678901234567890,  '));
    const [email, iban] = call.records()!;
    assert.deepEqual({ ...email, at: email!.at.length }, { policy: "pii", on: "request", detector: "email", action: "redact", count: 3, at: 3 });
    assert.deepEqual(iban!.at, [{ part: "messages[0].content", start: 66, length: IBAN.length }]);
    assert.ok(!JSON.stringify(call.records()).includes(EMAIL), "findings never carry the value");
  });

  test("block: refused before it leaves, naming the policy, the detector and where, never the text; the journal's copy is masked", async () => {
    const rails = guardrails({ policies: [{ id: "no-iban", detectors: ["iban"], request: "block" }] });
    const call = await guarded(rails, body);
    assert.equal(call.bodyFor("eu"), undefined);
    const refusal = call.refusal("eu");
    assert.ok(refusal instanceof RelayError && refusal.status === 400 && refusal.code === "guardrail_blocked");
    assert.match(refusal.message, /Policy `no-iban` blocked this request: `iban` found in messages\[0\]\.content at character 66/);
    assert.ok(!refusal.message.includes(IBAN));
    assert.ok(!decoder.decode(call.journalBody()).includes(IBAN));
  });

  test("pseudonymise keeps the values to restore; log changes nothing but is recorded and masked in the journal's copy", async () => {
    const rails = guardrails({ policies: [{ id: "p", detectors: ["email"], request: "pseudonymise" }, { id: "audit", detectors: ["iban"], request: "log" }] });
    const call = await guarded(rails, body);
    const out = decoder.decode(call.bodyFor("eu"));
    assert.ok(out.includes(IBAN) && !out.includes(EMAIL));
    assert.ok(call.answerFor("eu") !== undefined, "an answer guard restores the pseudonymised values");
    assert.deepEqual(call.records()!.map((r) => [r.policy, r.detector, r.action, r.count]), [["p", "email", "pseudonymise", 3], ["audit", "iban", "log", 1]]);
    const journal = decoder.decode(call.journalBody());
    assert.ok(!journal.includes(IBAN) && !journal.includes(EMAIL));
  });

  test("policies combine: each records its own action, the strongest applies to the match", async () => {
    const rails = guardrails({ policies: [{ id: "audit", detectors: ["pii"], request: "log" }, { id: "strict", detectors: ["email"], request: "redact" }] });
    const call = await guarded(rails, body);
    assert.ok(!decoder.decode(call.bodyFor("eu")).includes(EMAIL) && decoder.decode(call.bodyFor("eu")).includes(IBAN));
    assert.deepEqual(call.records()!.map((r) => `${r.policy}:${r.detector}:${r.action}`).sort(), ["audit:email:log", "audit:iban:log", "strict:email:redact"]);
  });

  test("a body too deeply nested to scan whole is refused, not sent half-scanned", async () => {
    let deep = `"${EMAIL}"`;
    for (let i = 0; i < 300; i++) deep = `[${deep}]`;
    await assert.rejects(guarded(redactAll(), `{"model":"gpt","messages":[{"role":"user","content":"x"}],"extra":${deep}}`), (error: unknown) => error instanceof RelayError && error.status === 400 && /cannot be checked/.test(error.message));
  });
});

describe("which calls a policy applies to", () => {
  test("key, project and model conditions: no candidate policy, no guard (nothing is scanned)", () => {
    const rails = guardrails({ policies: [{ id: "a", match: { keys: ["other"] }, detectors: ["email"], request: "redact" }, { id: "b", match: { projects: ["shop"], models: ["gpt"] }, detectors: ["email"], request: "redact" }] });
    assert.equal(rails.forCall({ keyId: "k1", project: "shop", model: "claude" }), undefined);
    assert.ok(rails.forCall(CALLER) !== undefined);
    assert.equal(rails.forCall({ keyId: "k1", project: "blog", model: "gpt" }), undefined);
    assert.equal(createGuardrails(guardrailsSchema.parse({})), undefined, "no policy at all: no guardrails");
  });

  test("outside the key's home region only: the EU target gets the request as sent, the US target redacted, per key and project", async () => {
    const rails = guardrails({
      homeRegion: "eu",
      homeRegions: { keys: { k2: "us" } },
      policies: [{ id: "leaving-home", match: { outsideHomeRegion: true }, detectors: ["email"], request: "redact" }],
    });
    const body = { model: "gpt", messages: [{ role: "user", content: `hi ${EMAIL}` }] };
    const call = await guarded(rails, body, "/v1/chat/completions", ["eu", "us", "eu-central-1"]);
    assert.ok(decoder.decode(call.bodyFor("eu")).includes(EMAIL));
    assert.ok(decoder.decode(call.bodyFor("eu-central-1")).includes(EMAIL), "an AWS location in the EU is at home");
    assert.ok(!decoder.decode(call.bodyFor("us")).includes(EMAIL));
    const other = await rails.forCall({ ...CALLER, keyId: "k2" })!.request(encoder.encode(JSON.stringify(body)), "/v1/chat/completions", ["eu", "us"]);
    assert.ok(!decoder.decode(other.bodyFor("eu")).includes(EMAIL), "for a key at home in the US, the EU is abroad");
    assert.ok(decoder.decode(other.bodyFor("us")).includes(EMAIL));
  });

  test("a target region condition", async () => {
    const rails = guardrails({ policies: [{ id: "us-only", match: { regions: ["us"] }, detectors: ["email"], request: "block" }] });
    const call = await guarded(rails, { model: "gpt", messages: [{ role: "user", content: EMAIL }] }, "/v1/chat/completions", ["eu", "us"]);
    assert.equal(call.refusal("eu"), undefined);
    assert.equal(call.refusal("us")?.code, "guardrail_blocked");
  });
});
