import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import type { Server } from "../../../src/runtime/runtime.ts";
import { freePort } from "../../support/free-port.ts";
import { startGuardrailRig, type GuardrailRig } from "../../support/guardrail-relay.ts";
import { finishedEntries } from "../../support/relay-calls.ts";

/**
 * A policy's external check: a real HTTP server on loopback plays the company's DLP service.
 * Its spans are redacted like a detector's matches, its flag blocks, and when it is down or
 * slower than the policy's timeout the call is refused (fail closed) and nothing is sent; a
 * policy that fails open lets the call go on and records the failure.
 */

const SECRET = "dlp-webhook-secret-0123456789";
const NAME = "Mario Rossi";

interface Received {
  body: string;
  signature: string | null;
}

/** How the check answers: spans over the name, a flag, allow, or hold the answer until released (slower than any timeout). */
let mode: "spans" | "flag" | "allow" | "slow" = "spans";
const received: Received[] = [];
const held: Array<() => void> = [];
let dlp: Server;
let rig: GuardrailRig;

before(async () => {
  const runtime = await currentRuntime();
  dlp = await runtime.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request: Request): Promise<Response> {
      const body = await request.text();
      received.push({ body, signature: request.headers.get("renio-signature") });
      if (mode === "slow") await new Promise<void>((resolve) => held.push(resolve));
      if (mode === "flag") return Response.json({ action: "block" });
      if (mode === "allow") return Response.json({ action: "allow" });
      const { texts } = JSON.parse(body) as { texts: { text: string }[] };
      const findings = texts.flatMap((t, part) => (t.text.includes(NAME) ? [{ part, start: t.text.indexOf(NAME), end: t.text.indexOf(NAME) + NAME.length, label: "person" }] : []));
      return Response.json({ findings });
    },
  });
  const down = `http://127.0.0.1:${await freePort()}/check`;
  rig = await startGuardrailRig({
    policies: [
      { id: "dlp", match: { models: ["gpt"] }, parts: ["messages"], request: "redact", webhook: { url: `http://127.0.0.1:${dlp.port}/check`, timeoutMs: 300, secret: SECRET } },
      { id: "dlp-down", match: { models: ["gpt-us"] }, request: "redact", webhook: { url: down, timeoutMs: 1000 } },
      { id: "dlp-optional", match: { models: ["claude-as-gpt"] }, detectors: ["email"], request: "redact", webhook: { url: down, timeoutMs: 1000, failOpen: true } },
    ],
  });
  rig.answer.text = "ok";
});

after(async () => {
  for (const release of held) release();
  await rig?.stop();
  await dlp?.stop();
});

async function call(model: string, content: string): Promise<{ status: number; id: string; message: string }> {
  try {
    const { response } = await rig.openai.chat.completions.create({ model, messages: [{ role: "system", content: `Be brief. ${NAME} is not in scope here.` }, { role: "user", content }] }).withResponse();
    return { status: response.status, id: response.headers.get("x-request-id")!, message: "" };
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, String(error));
    return { status: error.status!, id: error.headers!.get("x-request-id")!, message: error.message };
  }
}

describe("a policy's webhook check", () => {
  test("spans it finds are redacted like a detector's matches; it gets the texts of the parts the policy scans, signed", async () => {
    mode = "spans";
    const result = await call("gpt", `Write to ${NAME} today`);
    assert.equal(result.status, 200);
    const sent = rig.upstream.bodies.at(-1) as { messages: { content: string }[] };
    assert.equal(sent.messages[1]!.content, "Write to [PERSON_1] today");
    assert.equal(sent.messages[0]!.content, `Be brief. ${NAME} is not in scope here.`, "the policy scans messages, not the system prompt");
    const request = received.at(-1)!;
    assert.deepEqual(JSON.parse(request.body), { policy: "dlp", texts: [{ part: "messages", where: "messages[1].content", text: `Write to ${NAME} today` }] });
    const [t, v1] = request.signature!.split(",").map((kv) => kv.split("=")[1]);
    assert.equal(v1, createHmac("sha256", SECRET).update(`${t}.${request.body}`).digest("hex"));
    const entry = (await finishedEntries(rig.store, [result.id])).get(result.id)!;
    assert.deepEqual(entry.guardrails, [{ policy: "dlp", on: "request", detector: "webhook", action: "redact", count: 1, at: [{ part: "messages[1].content", start: 9, length: NAME.length }] }]);
  });

  test("a flag without spans blocks the call", async () => {
    mode = "flag";
    const before = rig.upstream.bodies.length;
    const result = await call("gpt", "anything");
    assert.equal(result.status, 400);
    assert.match(result.message, /Policy `dlp` blocked this request: its check \(webhook\) flagged it/);
    assert.equal(rig.upstream.bodies.length, before);
  });

  test("slower than its timeout: refused with 503 (fail closed), nothing sent; the next call is checked again", async () => {
    mode = "slow";
    const before = rig.upstream.bodies.length;
    const result = await call("gpt", "anything");
    assert.equal(result.status, 503);
    assert.match(result.message, /Policy `dlp`'s check \(webhook\) did not answer within 300 ms; the call was not sent \(the policy fails closed\)/);
    assert.equal(rig.upstream.bodies.length, before);
    for (const release of held.splice(0)) release();
    const entry = (await finishedEntries(rig.store, [result.id])).get(result.id)!;
    assert.equal(entry.errorCode, "guardrail_unavailable");
    assert.deepEqual(entry.guardrails, [{ policy: "dlp", on: "request", detector: "webhook", action: "redact", count: 1, at: [], error: "timeout" }]);
    mode = "allow";
    assert.equal((await call("gpt", "anything")).status, 200);
  });

  test("down (connection refused): refused with 503, nothing sent", async () => {
    const before = rig.upstream.bodies.length;
    const result = await call("gpt-us", "anything");
    assert.equal(result.status, 503);
    assert.match(result.message, /Policy `dlp-down`'s check \(webhook\) could not be reached or failed; the call was not sent/);
    assert.equal(rig.upstream.bodies.length, before);
  });

  test("down, on a policy that fails open: the call goes on, its detectors still apply, the failure is recorded", async () => {
    const result = await call("claude-as-gpt", "mail ops@example.com");
    assert.equal(result.status, 200);
    assert.match(JSON.stringify(rig.upstream.bodies.at(-1)), /mail \[EMAIL_1\]/);
    const entry = (await finishedEntries(rig.store, [result.id])).get(result.id)!;
    assert.deepEqual(entry.guardrails!.map((f) => `${f.detector}:${f.action}:${f.error ?? ""}`).sort(), ["email:redact:", "webhook:log:unavailable"]);
    const metrics = await (await fetch(`${rig.relay.url}/metrics`, { headers: { authorization: "Bearer guardrail-metrics-token-0123" } })).text();
    assert.match(metrics, /renio_guardrail_check_failures_total\{policy="dlp-optional",action="log"\} 1/);
    assert.match(metrics, /renio_guardrail_check_failures_total\{policy="dlp-down",action="redact"\} 1/);
  });
});
