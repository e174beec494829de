import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { finishedEntries } from "../../support/relay-calls.ts";
import { startGuardrailRig, type GuardrailRig } from "../../support/guardrail-relay.ts";
import { USAGE } from "../../support/guardrail-upstream.ts";

/**
 * Guardrails on answers, end to end with the official SDKs: pseudonymised values come back
 * exactly in JSON and in streams (placeholders split across SSE events), in text and in tool
 * call arguments, on OpenAI chat, OpenAI Responses and Anthropic Messages, and through
 * translation; values a policy redacts in the answer never reach the client; a block ends a
 * stream with the format's error event (the SDKs raise it) or refuses a JSON answer; usage is
 * settled either way, from the provider's bytes.
 */

const EMAIL = "jan.de.vries+invoices@example.nl";
const IBAN = "NL91ABNA0417164300";
const OTHER = "piet.jansen@example.org";
const KEY = "sk-proj-Xy7kQ2mN8pL4vR6tZ1wB3cD5fG9hJ0aS";
const ASKED = `Please mail ${EMAIL} about ${IBAN}`;
/** The answer the caller must see: its own values back, the model's other address redacted. */
const EXPECTED = `You said: ${ASKED} (cc [EMAIL_2])`;

let rig: GuardrailRig;

before(async () => {
  rig = await startGuardrailRig({
    policies: [
      { id: "pseudo", detectors: ["email", "iban"], request: "pseudonymise", answer: "redact" },
      { id: "no-secrets", detectors: ["credentials"], request: "block", answer: "block" },
    ],
  });
});

after(async () => {
  await rig?.stop();
});

/** Each test sets what the model answers, in pieces of 2 characters: every placeholder and value is split across events. */
function answerWith(text: string, toolArguments?: string): void {
  rig.answer.text = text;
  rig.answer.toolArguments = toolArguments;
  rig.answer.pieceSize = 2;
}

/** What left Renio for the provider must hold placeholders, never the values. */
function assertPseudonymisedUpstream(): void {
  const sent = JSON.stringify(rig.upstream.bodies.at(-1));
  assert.ok(!sent.includes(EMAIL) && !sent.includes(IBAN), sent);
  assert.ok(sent.includes("[EMAIL_1]") && sent.includes("[IBAN_1]"));
}

async function entryOf(id: string | null | undefined) {
  assert.ok(id, "the response carries its request id");
  return (await finishedEntries(rig.store, [id])).get(id)!;
}

describe("pseudonymised values restored exactly, values redacted in the answer", () => {
  test("OpenAI chat, JSON and streamed; the journal keeps the provider's answer with every value masked", async () => {
    answerWith(`You said: {{last}} (cc ${OTHER})`);
    const { data, response } = await rig.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: ASKED }] }).withResponse();
    assertPseudonymisedUpstream();
    assert.equal(data.choices[0]!.message.content, EXPECTED);
    const entry = await entryOf(response.headers.get("x-request-id"));
    assert.ok(!entry.responseBody!.includes(EMAIL) && !entry.responseBody!.includes(OTHER) && entry.responseBody!.includes("[EMAIL_1]"));
    assert.deepEqual(entry.guardrails!.map((f) => `${f.on}:${f.detector}:${f.action}:${f.count}`), ["request:email:pseudonymise:1", "request:iban:pseudonymise:1", "answer:email:redact:1"]);

    const stream = await rig.openai.chat.completions.create({ model: "gpt", stream: true, messages: [{ role: "user", content: ASKED }] }).withResponse();
    let text = "";
    let chunks = 0;
    for await (const chunk of stream.data) {
      text += chunk.choices[0]?.delta.content ?? "";
      chunks++;
      assert.equal(chunk.usage, undefined, "the usage chunk Renio asked for is still dropped");
    }
    assert.equal(text, EXPECTED);
    assert.ok(chunks > 20, "still streamed in pieces");
    const streamed = await entryOf(stream.response.headers.get("x-request-id"));
    assert.equal(streamed.outputTokens, USAGE.output, "usage read from the provider's bytes");
    assert.ok(typeof streamed.ttfbMs === "number");
  });

  test("OpenAI chat tool call arguments, JSON and streamed: restored inside the JSON text, still valid JSON", async () => {
    answerWith("", JSON.stringify({ to: "[EMAIL_1]", iban: "[IBAN_1]", note: "thanks" }));
    const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object" } } }];
    const json = await rig.openai.chat.completions.create({ model: "gpt", tools, messages: [{ role: "user", content: ASKED }] });
    assert.deepEqual(JSON.parse(json.choices[0]!.message.tool_calls![0]!.type === "function" ? json.choices[0]!.message.tool_calls![0]!.function.arguments : "{}"), { to: EMAIL, iban: IBAN, note: "thanks" });
    const stream = await rig.openai.chat.completions.create({ model: "gpt", tools, stream: true, messages: [{ role: "user", content: ASKED }] });
    let args = "";
    for await (const chunk of stream) args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
    assert.deepEqual(JSON.parse(args), { to: EMAIL, iban: IBAN, note: "thanks" });
  });

  test("OpenAI Responses, JSON and streamed: deltas and the complete texts of the done events alike", async () => {
    answerWith(`You said: {{last}} (cc ${OTHER})`);
    const json = await rig.openai.responses.create({ model: "gpt", input: ASKED });
    assertPseudonymisedUpstream();
    assert.equal(json.output_text, EXPECTED);
    const stream = await rig.openai.responses.create({ model: "gpt", input: [{ role: "user", content: ASKED }], stream: true });
    let deltas = "";
    let completed = "";
    let done = "";
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") deltas += event.delta;
      if (event.type === "response.output_text.done") done = event.text;
      if (event.type === "response.completed") {
        const item = event.response.output[0];
        completed = item?.type === "message" && item.content[0]?.type === "output_text" ? item.content[0].text : "";
      }
    }
    assert.equal(deltas, EXPECTED);
    assert.equal(done, EXPECTED);
    assert.equal(completed, EXPECTED);
  });

  test("Anthropic Messages, JSON and streamed, text and tool_use input", async () => {
    answerWith(`You said: {{last}} (cc ${OTHER})`);
    const json = await rig.anthropic.messages.create({ model: "claude", max_tokens: 100, messages: [{ role: "user", content: ASKED }] });
    assertPseudonymisedUpstream();
    assert.deepEqual(json.content, [{ type: "text", text: EXPECTED }]);
    const streamed = await rig.anthropic.messages.stream({ model: "claude", max_tokens: 100, messages: [{ role: "user", content: ASKED }] }).finalMessage();
    assert.equal(streamed.content[0]!.type === "text" ? streamed.content[0]!.text : "", EXPECTED);
    assert.equal(streamed.usage.output_tokens, USAGE.output);
    answerWith("", JSON.stringify({ to: "[EMAIL_1]", iban: "[IBAN_1]" }));
    const tools = [{ name: "lookup", input_schema: { type: "object" as const } }];
    const toolJson = await rig.anthropic.messages.create({ model: "claude", max_tokens: 100, tools, messages: [{ role: "user", content: ASKED }] });
    assert.deepEqual(toolJson.content[0]!.type === "tool_use" ? toolJson.content[0]!.input : null, { to: EMAIL, iban: IBAN });
    const toolStream = await rig.anthropic.messages.stream({ model: "claude", max_tokens: 100, tools, messages: [{ role: "user", content: ASKED }] }).finalMessage();
    assert.deepEqual(toolStream.content[0]!.type === "tool_use" ? toolStream.content[0]!.input : null, { to: EMAIL, iban: IBAN });
  });

  test("through translation: an OpenAI caller on an Anthropic target, JSON and streamed", async () => {
    answerWith(`You said: {{last}} (cc ${OTHER})`);
    const json = await rig.openai.chat.completions.create({ model: "claude-as-gpt", messages: [{ role: "user", content: ASKED }] });
    assert.ok(rig.upstream.paths.at(-1)!.endsWith("/messages"), "translated to Anthropic Messages");
    assertPseudonymisedUpstream();
    assert.equal(json.choices[0]!.message.content, EXPECTED);
    const stream = await rig.openai.chat.completions.create({ model: "claude-as-gpt", stream: true, messages: [{ role: "user", content: ASKED }] });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    assert.equal(text, EXPECTED);
  });
});

describe("answers a policy blocks", () => {
  test("a streamed answer ends with the format's error event, which each SDK raises; what was released holds nothing of the key; usage is settled", async () => {
    answerWith(`Here is the key you wanted: ${KEY} and some more text after it`);
    const chat = await rig.openai.chat.completions.create({ model: "gpt", stream: true, messages: [{ role: "user", content: "the key?" }] }).withResponse();
    let text = "";
    const error = await (async () => {
      for await (const chunk of chat.data) text += chunk.choices[0]?.delta.content ?? "";
    })().then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof OpenAI.APIError, `the SDK raised ${String(error)}`);
    assert.match(error.message, /Policy `no-secrets` blocked this answer: `openai_key` found in choices\[0\]\.content at character 28/);
    assert.ok(!text.includes("sk-") && !text.includes("after it"), text);
    const entry = await entryOf(chat.response.headers.get("x-request-id"));
    assert.equal(entry.errorCode, "guardrail_blocked");
    assert.equal(entry.outputTokens, USAGE.output, "the provider's stream was read to its end: usage settled");
    assert.ok(entry.guardrails!.some((f) => f.on === "answer" && f.detector === "openai_key" && f.action === "block"));

    const responses = await rig.openai.responses.create({ model: "gpt", input: "the key?", stream: true });
    const responsesError = await (async () => {
      for await (const event of responses) void event;
    })().then(() => undefined, (e: unknown) => e);
    assert.ok(responsesError instanceof OpenAI.APIError || responsesError instanceof Error, String(responsesError));
    assert.match(String((responsesError as Error).message), /Policy `no-secrets` blocked this answer/);

    const anthropicError = await rig.anthropic.messages
      .stream({ model: "claude", max_tokens: 100, messages: [{ role: "user", content: "the key?" }] })
      .finalMessage()
      .then(() => undefined, (e: unknown) => e);
    assert.ok(anthropicError instanceof Anthropic.APIError, String(anthropicError));
    assert.match(anthropicError.message, /Policy `no-secrets` blocked this answer: `openai_key` found in content\[0\]\.text/);
  });

  test("a JSON answer is refused with 400 in the caller's envelope; usage is settled", async () => {
    answerWith(`Here is the key you wanted: ${KEY}`);
    const error = await rig.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: "the key?" }] }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.match(error.message, /Policy `no-secrets` blocked this answer: `openai_key` found in choices\[0\]\.message\.content at character 28/);
    assert.ok(!error.message.includes(KEY));
    const entry = await entryOf(error.headers?.get("x-request-id"));
    assert.equal(entry.status, 400);
    assert.equal(entry.errorCode, "guardrail_blocked");
    assert.equal(entry.outputTokens, USAGE.output);
    assert.equal(entry.responseBody, null, "a blocked answer is not kept");
  });
});
