import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { finishedEntries, post } from "../../support/relay-calls.ts";
import { runRenio, writeConfig } from "../../support/relay-process.ts";
import { ADMIN_TOKEN, startGuardrailRig, type GuardrailRig } from "../../support/guardrail-relay.ts";

/**
 * Guardrails on requests, end to end: a relay on loopback, the official SDKs, a scripted
 * upstream recording what left Renio. Block refuses in the caller's envelope (never the
 * text) and nothing is sent; redact and pseudonymise change what leaves; log only records; a
 * policy for calls leaving the key's home region applies to the US target only; the journal,
 * /metrics and the dashboard API record policy, detector, action, counts and positions.
 */

const EMAIL = "maria.rossi@example.it";
const IBAN = "DE89370400440532013000";
const OPENAI_KEY = "sk-proj-Xy7kQ2mN8pL4vR6tZ1wB3cD5fG9hJ0aS";

let rig: GuardrailRig;

before(async () => {
  rig = await startGuardrailRig({
    homeRegion: "eu",
    detectors: [{ id: "codenames", words: ["Falcon"] }],
    policies: [
      { id: "no-secrets", detectors: ["credentials"], request: "block" },
      { id: "pseudo", match: { models: ["gpt", "claude"] }, detectors: ["email", "iban"], request: "pseudonymise" },
      { id: "abroad", match: { outsideHomeRegion: true }, detectors: ["pii"], request: "redact" },
      { id: "codenames", detectors: ["codenames"], request: "log" },
    ],
  });
});

after(async () => {
  await rig?.stop();
});

describe("guardrails on requests, end to end", () => {
  test("block: a credential is refused with 400 in the OpenAI and the Anthropic envelope, naming policy, detector and place; nothing is sent", async () => {
    const before = rig.upstream.bodies.length;
    const openAiError = await rig.openai.chat.completions
      .create({ model: "gpt", messages: [{ role: "user", content: `my key is ${OPENAI_KEY}` }] })
      .then(() => undefined, (error: unknown) => error);
    assert.ok(openAiError instanceof OpenAI.BadRequestError, String(openAiError));
    assert.equal((openAiError.error as { code?: string }).code, "guardrail_blocked");
    assert.match(openAiError.message, /Policy `no-secrets` blocked this request: `openai_key` found in messages\[0\]\.content at character 10/);
    assert.ok(!openAiError.message.includes(OPENAI_KEY));

    const anthropicError = await rig.anthropic.messages
      .create({ model: "claude", max_tokens: 10, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: `token ${OPENAI_KEY}` }] }] })
      .then(() => undefined, (error: unknown) => error);
    assert.ok(anthropicError instanceof Anthropic.BadRequestError, String(anthropicError));
    assert.match(anthropicError.message, /`openai_key` found in messages\[0\]\.content\[0\]\.content/);
    assert.equal(rig.upstream.bodies.length, before, "nothing reached the provider");

    const id = openAiError.headers?.get("x-request-id");
    assert.ok(id);
    const entry = (await finishedEntries(rig.store, [id])).get(id)!;
    assert.equal(entry.outcome, "refused");
    assert.equal(entry.status, 400);
    assert.equal(entry.errorCode, "guardrail_blocked");
    assert.deepEqual(entry.guardrails, [{ policy: "no-secrets", on: "request", detector: "openai_key", action: "block", count: 1, at: [{ part: "messages[0].content", start: 10, length: OPENAI_KEY.length }] }]);
    assert.ok(!JSON.stringify(entry).includes(OPENAI_KEY), "the journal keeps neither the key nor a body with it");

    // `renio journal show` lists what fired, one line per policy and detector.
    const show = await runRenio(["journal", "show", id, "--config", writeConfig(rig.relay.dir, rig.relay.config as unknown as Record<string, unknown>)]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /^outcome\s+refused 400 guardrail_blocked$/m);
    assert.match(show.stdout, /^  1\. no-secrets request openai_key block x1  messages\[0\]\.content@10\+40$/m);
  });

  test("pseudonymise: placeholders leave, and the tool arguments and results of an Anthropic call too", async () => {
    rig.answer.text = "noted";
    const { response } = await rig.anthropic.messages
      .create({
        model: "claude",
        max_tokens: 50,
        system: `Account owner ${EMAIL}`,
        messages: [
          { role: "user", content: "pay the invoice" },
          { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "pay", input: { iban: IBAN, notify: EMAIL } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: `paid from ${IBAN}` }] },
        ],
      })
      .withResponse();
    const sent = JSON.stringify(rig.upstream.bodies.at(-1));
    assert.ok(!sent.includes(EMAIL) && !sent.includes(IBAN), sent);
    assert.match(sent, /"system":"Account owner \[EMAIL_1\]"/);
    assert.match(sent, /"input":\{"iban":"\[IBAN_1\]","notify":"\[EMAIL_1\]"\}/);
    assert.match(sent, /"content":"paid from \[IBAN_1\]"/);
    const id = response.headers.get("x-request-id")!;
    const entry = (await finishedEntries(rig.store, [id])).get(id)!;
    assert.deepEqual(
      entry.guardrails!.map((f) => [f.policy, f.detector, f.action, f.count, f.at.map((p) => p.part)]),
      [
        ["pseudo", "email", "pseudonymise", 2, ["system", "messages[1].content[0].input.notify"]],
        ["pseudo", "iban", "pseudonymise", 2, ["messages[1].content[0].input.iban", "messages[2].content[0].content"]],
      ],
    );
    assert.ok(!entry.requestBody!.includes(EMAIL) && entry.requestBody!.includes("[EMAIL_1]"), "the journal keeps the request as it left");
  });

  test("outside the key's home region: the EU target gets what the caller sent, the US target the redacted request; log records a word-list match", async () => {
    rig.answer.text = "ok";
    const content = `Project Falcon: reach ${EMAIL} about ${IBAN}`;
    const eu = await rig.openai.chat.completions.create({ model: "claude-as-gpt", messages: [{ role: "user", content }] }).withResponse();
    assert.equal(JSON.stringify(rig.upstream.bodies.at(-1)).includes(EMAIL), true, "EU target (a model the pseudonymising policy does not cover): sent as is");
    const us = await rig.openai.chat.completions.create({ model: "gpt-us", messages: [{ role: "user", content }] }).withResponse();
    const sent = rig.upstream.bodies.at(-1) as { messages: { content: string }[] };
    assert.equal(sent.messages[0]!.content, "Project Falcon: reach [EMAIL_1] about [IBAN_1]");
    const ids = [eu.response.headers.get("x-request-id")!, us.response.headers.get("x-request-id")!];
    const entries = await finishedEntries(rig.store, ids);
    assert.deepEqual(entries.get(ids[0]!)!.guardrails!.map((f) => `${f.policy}:${f.detector}:${f.action}`), ["codenames:codenames:log"]);
    assert.deepEqual(entries.get(ids[1]!)!.guardrails!.map((f) => `${f.policy}:${f.detector}:${f.action}`).sort(), ["abroad:email:redact", "abroad:iban:redact", "codenames:codenames:log"]);
  });

  test("/metrics counts by policy, detector, action and direction; the dashboard API sums the journal; neither holds a value", async () => {
    const metrics = await (await fetch(`${rig.relay.url}/metrics`, { headers: { authorization: "Bearer guardrail-metrics-token-0123" } })).text();
    assert.match(metrics, /renio_guardrail_calls_total\{policy="no-secrets",detector="openai_key",action="block",on="request"\} 2/);
    assert.match(metrics, /renio_guardrail_matches_total\{policy="pseudo",detector="email",action="pseudonymise",on="request"\} 2/);
    assert.match(metrics, /renio_guardrail_calls_total\{policy="abroad",detector="iban",action="redact",on="request"\} 1/);
    const summary = (await (await fetch(`${rig.relay.url}/admin/dashboard/guardrails`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { data: { policy: string; detector: string; action: string; calls: number; matches: number }[]; truncated: boolean };
    assert.equal(summary.truncated, false);
    const row = (policy: string, detector: string) => summary.data.find((r) => r.policy === policy && r.detector === detector);
    assert.deepEqual([row("pseudo", "email")?.calls, row("pseudo", "email")?.matches], [1, 2]);
    assert.equal(row("codenames", "codenames")?.calls, 2);
    const fired = (await (await fetch(`${rig.relay.url}/admin/journal?guardrails=1`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { data: { guardrails: unknown }[] };
    assert.equal(fired.data.length, 5);
    assert.ok(fired.data.every((e) => e.guardrails !== null));
    for (const text of [metrics, JSON.stringify(summary), JSON.stringify(fired)]) {
      for (const value of [EMAIL, IBAN, OPENAI_KEY]) assert.ok(!text.includes(value), `${value} leaked`);
    }
    const bad = await fetch(`${rig.relay.url}/admin/journal?guardrails=maybe`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(bad.status, 400);
  });

  test("a reload puts a changed policy into effect for the next call", async () => {
    const policies = (rig.raw["guardrails"] as { policies: { id: string; request?: string }[] }).policies;
    const codenames = policies.find((p) => p.id === "codenames")!;
    codenames.request = "block";
    const reloaded = await fetch(`${rig.relay.url}/admin/reload`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(reloaded.status, 200, await reloaded.clone().text());
    const response = await post(rig.relay.url, "/v1/chat/completions", { model: "gpt", messages: [{ role: "user", content: "status of falcon?" }] });
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as { error: { message: string } }).error.message, /Policy `codenames` blocked this request: `codenames` found/);
    codenames.request = "log";
  });
});
