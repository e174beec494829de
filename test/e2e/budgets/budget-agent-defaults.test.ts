import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { costOf } from "../../../src/pricing/cost.ts";
import { createPriceBook } from "../../../src/pricing/price-book.ts";
import { reservationFor } from "../../../src/pricing/reservation.ts";
import type { SpendReport, SpendRow } from "../../../src/budgets/spend-report.ts";
import { anthropicAnswer } from "../../support/anthropic-upstream.ts";
import { finishedEntries, post } from "../../support/relay-calls.ts";
import { RESPONSES_USAGE, responsesAnswer } from "../../support/responses-upstream.ts";
import { Scrape, scrape } from "../../support/prom-scrape.ts";
import { startAnsweringUpstream, type ScriptedUpstream } from "../../support/scripted-upstream.ts";
import { openRelay, type RelayWithStore } from "../../support/with-relay.ts";

/**
 * A strict budget an agent client can live with: Codex's turn (a Responses request offering its
 * built-in `web_search`, with no `max_tool_calls` and no output limit) is admitted with Renio's
 * bounds added, reserves what the operator's `budget.defaultOutputTokens` decides, and the
 * report and /metrics show what it reserved against what it was charged.
 */

const ADMIN_TOKEN = "admin-token-0123456789";
const GPT5 = createPriceBook(new Map()).priceOf("gpt-5")!;
const enc = new TextEncoder();
/** Codex's request as it sends it (tools trimmed): no max_tool_calls, no max_output_tokens. */
const CODEX_TURN = {
  model: "gpt-5",
  stream: true,
  input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "fix the failing test" }] }],
  tools: [{ type: "function", name: "exec_command", strict: false, parameters: { type: "object", properties: { cmd: { type: "string" } } } }, { type: "web_search", external_web_access: false }],
  tool_choice: "auto",
  parallel_tool_calls: false,
  reasoning: { summary: "auto" },
  store: false,
  include: ["reasoning.encrypted_content"],
};

let upstream: ScriptedUpstream;
let opened: RelayWithStore;
/** The calls made, by model. */
const calls = new Map<string, string[]>();

before(async () => {
  upstream = await startAnsweringUpstream((request) => (request.path === "/v1/messages" ? anthropicAnswer(request) : responsesAnswer(request)));
  opened = await openRelay(upstream.url, {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
    providers: { oai: { type: "openai", baseUrl: `${upstream.url}/v1` }, ant: { type: "anthropic", baseUrl: upstream.url } },
    models: { "gpt-5": { provider: "oai" }, "gpt-5-mini": { provider: "oai" }, "claude-sonnet-4-5": { provider: "ant", translate: true } },
    budget: { defaultOutputTokens: { "*": 16_000, "gpt-5": 8_000, "gpt-5-mini": 1_000_000 } },
    budgets: [{ id: "team-day", scope: "total", period: "day", limit: 20 }],
  });
});
after(async () => {
  await opened.stop();
  await upstream.stop();
});

async function relayed(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await post(opened.relay.url, path, body);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const id = response.headers.get("x-request-id")!;
  calls.set(String(body["model"]), [...(calls.get(String(body["model"])) ?? []), id]);
  return id;
}

describe("a strict budget an agent client can live with", () => {
  test("Codex's turn: admitted, Renio's bounds added where the Responses API takes them, the operator's default output reserved", async () => {
    const id = await relayed("/v1/responses", CODEX_TURN);
    const sent = upstream.bodies.at(-1)!;
    assert.equal(sent["max_tool_calls"], 2, "budget.maxToolCalls' default bounds the built-in web search");
    assert.equal(sent["max_output_tokens"], 8_000, "the operator's default for gpt-5, not the model's 128,000");
    const entry = (await finishedEntries(opened.store, [id])).get(id)!;
    const reserved = reservationFor({ requestBytes: enc.encode(JSON.stringify(CODEX_TURN)).byteLength, maxOutputTokens: 8_000, inputByReference: true, toolUses: { web_search: 2 }, price: GPT5, model: "gpt-5" }).amount;
    assert.equal(entry.reservedCost, reserved);
    assert.equal(entry.outcome, "ok");
    assert.equal(entry.cost, costOf({ inputTokens: 120, cachedInputTokens: 30, outputTokens: RESPONSES_USAGE.output_tokens }, GPT5));
  });

  test("the default never exceeds the model's maximum; a caller's own limit is kept", async () => {
    await relayed("/v1/responses", { ...CODEX_TURN, model: "gpt-5-mini" });
    assert.equal(upstream.bodies.at(-1)!["max_output_tokens"], 128_000);
    await relayed("/v1/responses", { ...CODEX_TURN, max_output_tokens: 300, max_tool_calls: 1 });
    assert.deepEqual([upstream.bodies.at(-1)!["max_output_tokens"], upstream.bodies.at(-1)!["max_tool_calls"]], [300, 1]);
  });

  test("an OpenAI caller translated to Anthropic with no limit gets the `*` default as max_tokens", async () => {
    await relayed("/v1/chat/completions", { model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }] });
    assert.equal(upstream.bodies.at(-1)!["max_tokens"], 16_000);
  });

  test("the report and /metrics show what calls reserved against what they were charged, per key and model", async () => {
    const entries = [...(await finishedEntries(opened.store, calls.get("gpt-5")!)).values()].filter((e) => e.model === "gpt-5");
    const reserved = entries.reduce((sum, e) => sum + e.reservedCost!, 0);
    const cost = entries.reduce((sum, e) => sum + e.cost!, 0);
    const response = await fetch(`${opened.relay.url}/admin/report?by=model&period=day`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const report = (await response.json()) as SpendReport;
    const row = (report.rows as SpendRow[]).find((r) => r.group === "gpt-5")!;
    assert.ok(Math.abs(row.reserved - reserved) < 1e-9 && Math.abs(row.cost - cost) < 1e-9, `report: ${row.reserved} reserved, ${row.cost} charged`);
    assert.ok(row.reserved > 10 * row.cost, "a turn's reservation is many times its cost: the headroom an operator tunes");
    const page = await scrape(opened.relay.url, ADMIN_TOKEN);
    const metrics = new Scrape(page.text);
    assert.ok(Math.abs(metrics.sum("renio_reserved_total", { model: "gpt-5" }) - reserved) < 1e-9);
    assert.ok(Math.abs(metrics.sum("renio_cost_total", { model: "gpt-5" }) - cost) < 1e-9);
  });
});
