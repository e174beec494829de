import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { PriceConfig } from "../../../src/config/config-schema.ts";
import { costOf } from "../../../src/pricing/cost.ts";
import { createPriceBook } from "../../../src/pricing/price-book.ts";
import { reservationFor, type ReservationInput } from "../../../src/pricing/reservation.ts";
import type { Usage } from "../../../src/shared/usage.ts";
import { startRelay } from "../../support/relay-harness.ts";
import { errorOf, finishedEntries, openStore, post } from "../../support/relay-calls.ts";
import { startAnsweringUpstream, type ReceivedRequest, type ScriptedAnswer } from "../../support/scripted-upstream.ts";

const MODEL = "priced-model";
const enc = new TextEncoder();

/** Bytes of the prompt a provider tokenizes (at most one token each): `messages`, `system` or `input`. */
function promptBytes(body: Record<string, unknown>): number {
  return enc.encode(JSON.stringify([body["system"] ?? null, body["messages"] ?? null, body["input"] ?? null])).byteLength;
}

function bytesOf(body: unknown): number {
  return enc.encode(JSON.stringify(body)).byteLength;
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");

/** A shape: a request, the price of its model, and an upstream billing it as the provider would. */
interface Shape {
  path: "/v1/chat/completions" | "/v1/messages" | "/v1/responses";
  price: PriceConfig;
  body: Record<string, unknown>;
  /** What the provider reports for one call. */
  answer(request: ReceivedRequest): ScriptedAnswer;
  /** The provider's usage for one call (the invoice, priced at `price`). */
  invoice(request: ReceivedRequest): Usage;
  /** What Renio must reserve for the body (its reservation input beyond bytes, price, model). */
  reserve: Partial<ReservationInput>;
  /** Extra config (`budget`). */
  config?: Record<string, unknown>;
}

/**
 * Sends 5 sequential calls of the shape under a strict budget of 2.5 reservations, then checks
 * from the journal and the budget row: 2 calls accepted, each charged exactly its invoice,
 * the stored spend their sum, within the limit, nothing left reserved. Returns the upstream's
 * requests and one reservation.
 */
async function holdsAndSettles(shape: Shape): Promise<{ received: ReceivedRequest[]; reservation: number; invoiceCost: number }> {
  const received: ReceivedRequest[] = [];
  const upstream = await startAnsweringUpstream((request) => (received.push(request), shape.answer(request)));
  const price = createPriceBook(new Map([[MODEL, shape.price]])).priceOf(MODEL)!;
  const reservation = reservationFor({ requestBytes: bytesOf(shape.body), price, model: MODEL, ...shape.reserve }).amount;
  const limit = Math.round(reservation * 2.5 * 1e6) / 1e6;
  const relay = await startRelay(upstream.url, {
    models: { [MODEL]: { provider: "mock" } },
    prices: { [MODEL]: shape.price },
    budgets: [{ id: "shape", scope: "total", period: "total", limit, mode: "strict" }],
    ...shape.config,
  });
  const store = await openStore(relay.config.storage);
  try {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await post(relay.url, shape.path, shape.body);
      if (response.status === 200) {
        ids.push(response.headers.get("x-request-id")!);
        await response.arrayBuffer();
      } else assert.equal((await errorOf(response)).code, "budget_exceeded", `call ${i}: ${response.status}`);
    }
    assert.equal(ids.length, 2, "the budget covers two reservations");
    const entries = await finishedEntries(store, ids, 10_000);
    let charged = 0;
    const invoiceCost = costOf(shape.invoice(received[0]!), price);
    for (const [i, id] of ids.entries()) {
      const entry = entries.get(id)!;
      assert.equal(entry.outcome, "ok");
      assert.equal(entry.reservedCost, reservation);
      assert.equal(entry.cost, costOf(shape.invoice(received[i]!), price), "charged what the provider invoices");
      assert.ok(entry.cost! <= reservation, `cost ${entry.cost} within the reservation ${reservation}`);
      charged += entry.cost!;
    }
    const [usage] = await store.budgetUsage([{ budgetId: "shape", period: "total" }]);
    assert.ok(Math.abs(usage!.spent - charged) < 1e-9, `stored spend ${usage!.spent} = charged ${charged}`);
    assert.ok(usage!.spent <= limit, `spent ${usage!.spent} ≤ limit ${limit}`);
    assert.equal(usage!.reserved, 0);
    return { received, reservation, invoiceCost };
  } finally {
    await store.close();
    await relay.stop();
    await upstream.stop();
  }
}

/** A flat price's reservation (Renio before per-tier pricing) would admit at least 3 calls that each bill `invoiceCost`: an overshoot. */
function oldWouldOvershoot(shape: Shape, flat: PriceConfig, invoiceCost: number, reservation: number): void {
  const price = createPriceBook(new Map([[MODEL, flat]])).priceOf(MODEL)!;
  const old = reservationFor({ requestBytes: bytesOf(shape.body), price, model: MODEL, ...shape.reserve, serviceTier: undefined }).amount;
  const limit = Math.round(reservation * 2.5 * 1e6) / 1e6;
  assert.ok(Math.floor(limit / old) >= 3 && 3 * invoiceCost > limit, `old reservation ${old}: admits ${Math.floor(limit / old)} calls of ${invoiceCost} under ${limit}`);
}

const chatAnswer = (request: ReceivedRequest, usage: Record<string, unknown>, extra: Record<string, unknown> = {}): ScriptedAnswer => ({
  json: { id: "chatcmpl-1", object: "chat.completion", created: 0, model: request.body["model"], choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "length" }], usage, ...extra },
});

const anthropicMessage = (usage: Record<string, unknown>) => ({ id: "msg_1", type: "message", role: "assistant", model: MODEL, content: [{ type: "text", text: "ok" }], stop_reason: "max_tokens", usage });

describe("prices that are not one flat rate, settled from the usage that carries them", () => {
  const CACHE_PRICE = { input: 3, cachedInput: 0.3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6, contextWindow: 200_000 };
  const cacheBody = (stream: boolean) => ({ model: MODEL, max_tokens: 100, stream, system: [{ type: "text", text: words(100), cache_control: { type: "ephemeral", ttl: "1h" } }], messages: [{ role: "user", content: "hi" }] });
  const cacheInvoice = (request: ReceivedRequest): Usage => {
    const written = promptBytes(request.body);
    return { inputTokens: written, cachedInputTokens: 0, outputTokens: 100, cacheWrite1hTokens: written };
  };
  const cacheUsage = (request: ReceivedRequest) => {
    const written = promptBytes(request.body);
    return { input_tokens: 0, cache_creation_input_tokens: written, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: written }, cache_read_input_tokens: 0, output_tokens: 100 };
  };

  test("Anthropic 1-hour cache writes (JSON) are charged at 2x input, not as plain input", async () => {
    const shape: Shape = { path: "/v1/messages", price: CACHE_PRICE, body: cacheBody(false), answer: (r) => ({ json: anthropicMessage(cacheUsage(r)) }), invoice: cacheInvoice, reserve: { maxOutputTokens: 100 } };
    const { invoiceCost } = await holdsAndSettles(shape);
    const written = promptBytes(cacheBody(false));
    const asPlainInput = costOf({ inputTokens: written, cachedInputTokens: 0, outputTokens: 100 }, CACHE_PRICE);
    assert.ok(Math.abs(invoiceCost - asPlainInput - (written * 3) / 1e6) < 1e-9, `invoice ${invoiceCost}: each written token 3 above the input price ${asPlainInput}`);
  });

  test("Anthropic cache writes in a stream: the split from message_start, output from message_delta", async () => {
    const shape: Shape = {
      path: "/v1/messages",
      price: CACHE_PRICE,
      body: cacheBody(true),
      answer: (r) => ({
        sse: [
          `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { ...anthropicMessage({ ...cacheUsage(r), output_tokens: 1 }), content: [], stop_reason: null } })}`,
          'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
          'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}',
          'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
          'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":100}}',
          'event: message_stop\ndata: {"type":"message_stop"}',
        ],
      }),
      invoice: cacheInvoice,
      reserve: { maxOutputTokens: 100 },
    };
    await holdsAndSettles(shape);
  });

  test("long context: input above the threshold bills the whole call at the higher tier, and is reserved at it", async () => {
    const flat = { input: 1, cachedInput: 1, output: 10, contextWindow: 100_000 };
    const price = { ...flat, longContext: { aboveInputTokens: 500, input: 4, output: 40 } };
    const body = { model: MODEL, max_tokens: 100, messages: [{ role: "user", content: words(150) }] };
    const shape: Shape = {
      path: "/v1/chat/completions",
      price,
      body,
      answer: (r) => chatAnswer(r, { prompt_tokens: promptBytes(r.body), completion_tokens: 100 }),
      invoice: (r) => ({ inputTokens: promptBytes(r.body), cachedInputTokens: 0, outputTokens: 100 }),
      reserve: { maxOutputTokens: 100 },
    };
    assert.ok(promptBytes(body) > 500, "the prompt reaches the long-context tier");
    const { reservation, invoiceCost } = await holdsAndSettles(shape);
    oldWouldOvershoot(shape, flat, invoiceCost, reservation);
  });

  test("OpenAI service_tier priority: reserved from the request's tier, settled from the stream's", async () => {
    const flat = { input: 1, cachedInput: 1, output: 10, contextWindow: 100_000 };
    const price = { ...flat, serviceTiers: { priority: { input: 3, output: 30 }, flex: { input: 0.5, output: 5 } } };
    const body = { model: MODEL, max_tokens: 100, stream: true, service_tier: "priority", messages: [{ role: "user", content: words(20) }] };
    const chunk = (extra: Record<string, unknown>) => `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: MODEL, service_tier: "priority", ...extra })}`;
    const shape: Shape = {
      path: "/v1/chat/completions",
      price,
      body,
      answer: (r) => ({
        sse: [
          chunk({ choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: null }] }),
          chunk({ choices: [{ index: 0, delta: {}, finish_reason: "length" }] }),
          chunk({ choices: [], usage: { prompt_tokens: promptBytes(r.body), completion_tokens: 100 } }),
          "data: [DONE]",
        ],
      }),
      invoice: (r) => ({ inputTokens: promptBytes(r.body), cachedInputTokens: 0, outputTokens: 100, serviceTier: "priority" }),
      reserve: { maxOutputTokens: 100, serviceTier: "priority" },
    };
    const { reservation, invoiceCost } = await holdsAndSettles(shape);
    oldWouldOvershoot(shape, flat, invoiceCost, reservation);
  });

  test("OpenAI service_tier flex: reserved and charged at the flex rates", async () => {
    const price = { input: 1, cachedInput: 1, output: 10, contextWindow: 100_000, serviceTiers: { flex: { input: 0.5, output: 5 } } };
    const body = { model: MODEL, max_tokens: 100, service_tier: "flex", messages: [{ role: "user", content: words(20) }] };
    const shape: Shape = {
      path: "/v1/chat/completions",
      price,
      body,
      answer: (r) => chatAnswer(r, { prompt_tokens: promptBytes(r.body), completion_tokens: 100 }, { service_tier: "flex" }),
      invoice: (r) => ({ inputTokens: promptBytes(r.body), cachedInputTokens: 0, outputTokens: 100, serviceTier: "flex" }),
      reserve: { maxOutputTokens: 100, serviceTier: "flex" },
    };
    const { reservation } = await holdsAndSettles(shape);
    const standard = reservationFor({ requestBytes: bytesOf(body), maxOutputTokens: 100, price: { input: 1, cachedInput: 1, output: 10 }, model: MODEL }).amount;
    assert.ok(Math.abs(reservation - standard / 2) < 1e-9, `flex reserves half: ${reservation} vs ${standard}`);
  });

  test("audio tokens: reserved and charged at the model's audio rates", async () => {
    const flat = { input: 2.5, cachedInput: 2.5, output: 10, contextWindow: 100_000 };
    const price = { ...flat, audio: { input: 40, output: 80 } };
    const body = { model: MODEL, max_tokens: 100, modalities: ["text", "audio"], messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "UklGRg".repeat(40), format: "wav" } }] }] };
    const shape: Shape = {
      path: "/v1/chat/completions",
      price,
      body,
      answer: (r) => chatAnswer(r, { prompt_tokens: promptBytes(r.body), completion_tokens: 100, prompt_tokens_details: { cached_tokens: 0, audio_tokens: promptBytes(r.body) }, completion_tokens_details: { audio_tokens: 100 } }),
      invoice: (r) => ({ inputTokens: promptBytes(r.body), cachedInputTokens: 0, outputTokens: 100, audioInputTokens: promptBytes(r.body), audioOutputTokens: 100 }),
      reserve: { maxOutputTokens: 100 },
    };
    const { reservation, invoiceCost } = await holdsAndSettles(shape);
    oldWouldOvershoot(shape, flat, invoiceCost, reservation);
  });
});

describe("server tools billed per use, priced when bounded", () => {
  const WINDOW = 2_000;

  test("Anthropic web search with max_uses: reserves the uses and a pass per use, settles from server_tool_use (JSON and stream)", async () => {
    const price = { input: 3, cachedInput: 0.3, output: 15, contextWindow: WINDOW, tools: { web_search: 0.01 } };
    const tools = [{ type: "web_search_20250305", name: "web_search", max_uses: 2 }];
    // Worst case the provider can bill: three passes over a full window, both searches, the whole output.
    const usage = { input_tokens: 3 * WINDOW, output_tokens: 100, server_tool_use: { web_search_requests: 2 } };
    const invoice = (): Usage => ({ inputTokens: 3 * WINDOW, cachedInputTokens: 0, outputTokens: 100, toolUses: { web_search: 2 } });
    const reserve = { maxOutputTokens: 100, inputByReference: true, toolUses: { web_search: 2 } };
    const json = await holdsAndSettles({ path: "/v1/messages", price, body: { model: MODEL, max_tokens: 100, tools, messages: [{ role: "user", content: "news?" }] }, answer: () => ({ json: anthropicMessage(usage) }), invoice, reserve });
    assert.equal(json.invoiceCost, 0.0395, "6000 input at 3 + 100 output at 15 + 2 searches at 0.01");
    await holdsAndSettles({
      path: "/v1/messages",
      price,
      body: { model: MODEL, max_tokens: 100, stream: true, tools, messages: [{ role: "user", content: "news?" }] },
      answer: () => ({
        sse: [
          `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { ...anthropicMessage({ input_tokens: 3 * WINDOW, output_tokens: 1 }), content: [] } })}`,
          `event: message_delta\ndata: ${JSON.stringify({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage })}`,
          'event: message_stop\ndata: {"type":"message_stop"}',
        ],
      }),
      invoice,
      reserve,
    });
  });

  test("Anthropic web search and fetch without max_uses: budget.maxToolCalls (default 2) becomes each tool's max_uses, reserved and settled", async () => {
    const price = { input: 3, cachedInput: 0.3, output: 15, contextWindow: WINDOW, tools: { web_search: 0.01, web_fetch: 0 } };
    const tools = [{ type: "web_search_20250305", name: "web_search" }, { type: "web_fetch_20250910", name: "web_fetch", max_uses: 1 }, { name: "lookup", input_schema: { type: "object" } }];
    const usesOf = (request: ReceivedRequest) => (request.body["tools"] as Array<{ max_uses?: number }>)[0]!.max_uses!;
    // Worst case: a pass over a full window per use plus the first, every search the bound allows.
    const invoice = (request: ReceivedRequest): Usage => ({ inputTokens: (usesOf(request) + 2) * WINDOW, cachedInputTokens: 0, outputTokens: 100, toolUses: { web_search: usesOf(request), web_fetch: 1 } });
    const { received } = await holdsAndSettles({
      path: "/v1/messages",
      price,
      body: { model: MODEL, max_tokens: 100, tools, messages: [{ role: "user", content: "news?" }] },
      answer: (request) => ({ json: anthropicMessage({ input_tokens: (usesOf(request) + 2) * WINDOW, output_tokens: 100, server_tool_use: { web_search_requests: usesOf(request), web_fetch_requests: 1 } }) }),
      invoice,
      reserve: { maxOutputTokens: 100, inputByReference: true, toolUses: { web_search: 2, web_fetch: 1 } },
    });
    for (const request of received) {
      assert.deepEqual((request.body["tools"] as Array<Record<string, unknown>>).map((tool) => tool["max_uses"]), [2, 1, undefined], "the unbounded search gets the default bound; the fetch keeps its own; a client tool none");
    }
  });

  const responsesPrice = { input: 1, cachedInput: 1, output: 10, contextWindow: WINDOW, tools: { web_search: 0.025, file_search: 0.0025 } };
  const responsesAnswer = (request: ReceivedRequest, stream: boolean): ScriptedAnswer => {
    const calls = request.body["max_tool_calls"] as number;
    const response = {
      id: "resp_1",
      object: "response",
      status: "completed",
      model: MODEL,
      output: [...Array.from({ length: calls }, (_, i) => ({ type: "web_search_call", id: `ws_${i}`, status: "completed" })), { type: "message", role: "assistant", content: [{ type: "output_text", text: "ok" }] }],
      usage: { input_tokens: (calls + 1) * WINDOW, output_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
    };
    if (!stream) return { json: response };
    return { sse: [`event: response.created\ndata: ${JSON.stringify({ type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null } })}`, `event: response.completed\ndata: ${JSON.stringify({ type: "response.completed", response })}`] };
  };
  const responsesInvoice = (request: ReceivedRequest): Usage => {
    const calls = request.body["max_tool_calls"] as number;
    return { inputTokens: (calls + 1) * WINDOW, cachedInputTokens: 0, outputTokens: 100, toolUses: { web_search: calls } };
  };

  test("OpenAI Responses web search: the configured budget.maxToolCalls is added to the request, reserved and settled per call", async () => {
    const body = { model: MODEL, input: "news?", max_output_tokens: 100, tools: [{ type: "web_search" }, { type: "file_search", vector_store_ids: ["vs_1"] }] };
    const { received, invoiceCost } = await holdsAndSettles({
      path: "/v1/responses",
      price: responsesPrice,
      body,
      answer: (r) => responsesAnswer(r, false),
      invoice: responsesInvoice,
      // max_tool_calls caps both tools together: its uses are reserved at the dearer one.
      reserve: { maxOutputTokens: 100, inputByReference: true, toolUses: { web_search: 3 } },
      config: { budget: { maxToolCalls: 3 } },
    });
    for (const request of received) assert.equal(request.body["max_tool_calls"], 3, "the provider enforces the bound Renio reserved");
    assert.equal(invoiceCost, 0.084, "8000 input at 1 + 100 output at 10 + 3 searches at 0.025");
  });

  test("OpenAI Responses web search (Codex's built-in tool) with no bound configured: the default budget.maxToolCalls, 2, is added", async () => {
    const body = { model: MODEL, input: "news?", max_output_tokens: 100, tools: [{ type: "web_search", external_web_access: false }] };
    const { received } = await holdsAndSettles({
      path: "/v1/responses",
      price: responsesPrice,
      body,
      answer: (r) => responsesAnswer(r, false),
      invoice: responsesInvoice,
      reserve: { maxOutputTokens: 100, inputByReference: true, toolUses: { web_search: 2 } },
    });
    for (const request of received) assert.equal(request.body["max_tool_calls"], 2);
  });

  test("OpenAI Responses web search in a stream, bounded by the request's own max_tool_calls", async () => {
    const body = { model: MODEL, input: "news?", stream: true, max_output_tokens: 100, max_tool_calls: 1, tools: [{ type: "web_search_preview" }] };
    const { received } = await holdsAndSettles({
      path: "/v1/responses",
      price: responsesPrice,
      body,
      answer: (r) => responsesAnswer(r, true),
      invoice: responsesInvoice,
      reserve: { maxOutputTokens: 100, inputByReference: true, toolUses: { web_search: 1 } },
      config: { budget: { maxToolCalls: 3 } },
    });
    for (const request of received) assert.equal(request.body["max_tool_calls"], 1, "the caller's own bound is kept");
  });

  test("a tool nothing can bound, or without a per-use price: a strict budget refuses it by name and nothing reaches the provider", async () => {
    const upstream = await startAnsweringUpstream(() => ({ json: {} }));
    const relay = await startRelay(upstream.url, {
      models: { [MODEL]: { provider: "mock" }, "no-tool-price": { provider: "mock" } },
      prices: { [MODEL]: { ...responsesPrice, tools: { web_search: 0.01, code_execution: 0.05 } }, "no-tool-price": { input: 1, output: 10, contextWindow: WINDOW } },
      budgets: [{ id: "shape", scope: "total", period: "total", limit: 10, mode: "strict" }],
    });
    try {
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        ["/v1/messages", { model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "q" }], tools: [{ type: "code_execution_20250522", name: "code_execution" }] }, /`code_execution_20250522`.*nothing bounds its uses/],
        ["/v1/chat/completions", { model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "q" }], web_search_options: {} }, /`web_search_options`.*Responses API/],
        ["/v1/messages", { model: "no-tool-price", max_tokens: 10, messages: [{ role: "user", content: "q" }], tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 1 }] }, /`no-tool-price` has no per-use price.*`tools\.web_search`/],
        ["/v1/messages", { model: "no-tool-price", max_tokens: 10, messages: [{ role: "user", content: "q" }], tools: [{ type: "code_execution_20250522", name: "code_execution" }] }, /`code_execution_20250522`.*no per-use price/],
      ];
      for (const [path, body, message] of cases) {
        const response = await post(relay.url, path, body);
        assert.equal(response.status, 403, path);
        const error = await errorOf(response);
        assert.equal(error.code, "tool_not_bounded");
        assert.match(error.message, message);
      }
      assert.equal(upstream.bodies.length, 0, "nothing reached the provider");
    } finally {
      await relay.stop();
      await upstream.stop();
    }
  });
});
