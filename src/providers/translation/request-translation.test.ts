import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { anthropicUsage, mergeAnthropicUsage, openAiUsage, type AnthropicCounters } from "../../usage/usage-fields.ts";
import { anthropicToOpenAiRequest } from "../openai/anthropic-to-openai-request.ts";
import { openAiUsageOf } from "../anthropic/openai-to-anthropic-response.ts";
import { openAiToAnthropicRequest } from "../anthropic/openai-to-anthropic-request.ts";
import { UntranslatableError } from "./request-translation.ts";
import { anthropicUsageOf } from "../openai/anthropic-to-openai-response.ts";

const strict = { dropUnsupported: false, outputLimit: undefined };

describe("OpenAI → Anthropic requests", () => {
  test("max_tokens: the caller's (max_completion_tokens first), else the configured bound, else the default reservation", () => {
    const messages = [{ role: "user", content: "hi" }];
    assert.equal(openAiToAnthropicRequest({ model: "m", messages, max_completion_tokens: 7, max_tokens: 9 }, strict)["max_tokens"], 7);
    assert.equal(openAiToAnthropicRequest({ model: "m", messages }, { dropUnsupported: false, outputLimit: 123 })["max_tokens"], 123);
    assert.equal(typeof openAiToAnthropicRequest({ model: "m", messages }, strict)["max_tokens"], "number");
  });

  test("consecutive tool results merge into one user turn after the assistant's tool_use blocks", () => {
    const out = openAiToAnthropicRequest({
      model: "m",
      messages: [
        { role: "developer", content: [{ type: "text", text: "rules" }] },
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: '{"x":1}' } }, { id: "b", type: "function", function: { name: "g", arguments: "" } }] },
        { role: "tool", tool_call_id: "a", content: "one" },
        { role: "tool", tool_call_id: "b", content: [{ type: "text", text: "two" }] },
      ],
      tool_choice: { type: "function", function: { name: "f" } },
      parallel_tool_calls: false,
      response_format: { type: "json_schema", json_schema: { name: "o", schema: { type: "object" } } },
    }, strict);
    assert.deepEqual(out["system"], [{ type: "text", text: "rules" }]);
    assert.deepEqual(out["messages"], [
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "a", name: "f", input: { x: 1 } }, { type: "tool_use", id: "b", name: "g", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "one" }, { type: "tool_result", tool_use_id: "b", content: [{ type: "text", text: "two" }] }] },
    ]);
    assert.deepEqual(out["tool_choice"], { type: "tool", name: "f", disable_parallel_tool_use: true });
    assert.deepEqual(out["output_format"], { type: "json_schema", schema: { type: "object" } });
  });

  test("no equivalent: refused naming the parameter, or dropped when the target says dropUnsupported", () => {
    const body = { model: "m", messages: [{ role: "user", content: "hi" }], frequency_penalty: 1, response_format: { type: "json_object" } };
    assert.throws(() => openAiToAnthropicRequest(body, strict), (error: unknown) => error instanceof UntranslatableError && error.param === "frequency_penalty");
    const dropped = openAiToAnthropicRequest(body, { dropUnsupported: true, outputLimit: undefined });
    assert.equal("frequency_penalty" in dropped || "output_format" in dropped, false);
    assert.throws(() => openAiToAnthropicRequest({ model: "m", messages: [{ role: "user", content: [{ type: "input_audio", input_audio: {} }] }] }, strict), /messages\[0\]\.content\[0\]\.type/);
  });
});

describe("Anthropic → OpenAI requests", () => {
  test("system blocks, tool_choice any, stream asks for usage, metadata.user_id", () => {
    const out = anthropicToOpenAiRequest({ model: "m", max_tokens: 5, system: [{ type: "text", text: "a" }, { type: "text", text: "b" }], messages: [{ role: "user", content: "hi" }], tool_choice: { type: "any" }, stream: true, metadata: { user_id: "u1" } }, strict);
    assert.deepEqual(out, { model: "m", messages: [{ role: "system", content: "a\n\nb" }, { role: "user", content: "hi" }], max_tokens: 5, user: "u1", stream: true, stream_options: { include_usage: true }, tool_choice: "required" });
  });

  test("an unknown parameter is refused by name", () => {
    assert.throws(() => anthropicToOpenAiRequest({ model: "m", max_tokens: 5, messages: [], top_k: 3 }, strict), /`top_k`/);
  });

  test("the output limit goes in the field the target model takes: max_completion_tokens for GPT-5 and the o-series", () => {
    const limitOf = (model: string, body: Record<string, unknown>, outputLimit?: number) => {
      const out = anthropicToOpenAiRequest({ model, messages: [{ role: "user", content: "hi" }], ...body }, { dropUnsupported: false, outputLimit });
      return Object.fromEntries(["max_tokens", "max_completion_tokens"].filter((field) => field in out).map((field) => [field, out[field]]));
    };
    for (const model of ["gpt-5", "gpt-5-mini", "o3", "o4-mini", "openai/gpt-5.1"]) assert.deepEqual(limitOf(model, { max_tokens: 32000 }), { max_completion_tokens: 32000 }, model);
    assert.deepEqual(limitOf("gpt-5", {}, 900), { max_completion_tokens: 900 });
    assert.deepEqual(limitOf("gpt-4o", { max_tokens: 64 }), { max_tokens: 64 });
    assert.deepEqual(limitOf("gpt-4o", {}), {});
  });

  test("Claude Code's thinking, effort and context management on a reasoning model: the effort as reasoning_effort", () => {
    const body = {
      max_tokens: 32000,
      messages: [{ role: "user", content: "hi" }],
      thinking: { type: "adaptive", display: "omitted" },
      output_config: { effort: "high" },
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    };
    const out = anthropicToOpenAiRequest({ model: "gpt-5", ...body }, strict);
    assert.equal(out["reasoning_effort"], "high");
    assert.equal(out["max_completion_tokens"], 32000);
    assert.equal(anthropicToOpenAiRequest({ model: "o3", ...body, thinking: { type: "enabled", budget_tokens: 1024 }, output_config: { effort: "max" } }, strict)["reasoning_effort"], "high");
    // A model that cannot reason: refused by name, or dropped.
    assert.throws(() => anthropicToOpenAiRequest({ model: "gpt-4o", ...body }, strict), (error: unknown) => error instanceof UntranslatableError && error.param === "thinking");
    assert.equal("reasoning_effort" in anthropicToOpenAiRequest({ model: "gpt-4o", ...body }, { dropUnsupported: true, outputLimit: undefined }), false);
    assert.doesNotThrow(() => anthropicToOpenAiRequest({ model: "gpt-4o", ...body, thinking: { type: "disabled" }, output_config: {} }, strict));
    // Edits other than clearing thinking change the context: untranslatable.
    assert.throws(() => anthropicToOpenAiRequest({ model: "gpt-5", ...body, context_management: { edits: [{ type: "clear_tool_uses_20250919" }] } }, strict), /`context_management`/);
  });

  test("output_config.format becomes a strict json_schema response_format", () => {
    const out = anthropicToOpenAiRequest({ model: "gpt-5", max_tokens: 5, messages: [], output_config: { format: { type: "json_schema", schema: { type: "object" } } } }, strict);
    assert.deepEqual(out["response_format"], { type: "json_schema", json_schema: { name: "output", schema: { type: "object" }, strict: true } });
  });
});

describe("usage through translation", () => {
  test("Anthropic cache writes carried in OpenAI usage are read back exactly by the openai usage parser", () => {
    const anthropic = { input_tokens: 5, output_tokens: 3, cache_read_input_tokens: 40, cache_creation_input_tokens: 12, cache_creation: { ephemeral_5m_input_tokens: 2, ephemeral_1h_input_tokens: 10 } };
    assert.deepEqual(openAiUsage(openAiUsageOf(anthropic)), { inputTokens: 17, cachedInputTokens: 40, outputTokens: 3, cacheWrite5mTokens: 2, cacheWrite1hTokens: 10 });
    const unsplit = openAiUsageOf({ input_tokens: 5, output_tokens: 3, cache_creation_input_tokens: 12 });
    assert.deepEqual(openAiUsage(unsplit), { inputTokens: 17, cachedInputTokens: 0, outputTokens: 3, cacheWrite5mTokens: 12 });
  });

  test("cache writes carried in OpenAI usage (Bedrock's, or a translated Anthropic answer's) stay cache writes for an Anthropic caller", () => {
    const anthropic = { input_tokens: 5, output_tokens: 3, cache_read_input_tokens: 40, cache_creation_input_tokens: 12, cache_creation: { ephemeral_5m_input_tokens: 2, ephemeral_1h_input_tokens: 10 } };
    const back = anthropicUsageOf(openAiUsageOf(anthropic));
    assert.deepEqual(back, anthropic);
    const counters: AnthropicCounters = {};
    mergeAnthropicUsage(counters, back);
    assert.deepEqual(anthropicUsage(counters), { inputTokens: 17, cachedInputTokens: 40, outputTokens: 3, cacheWrite5mTokens: 2, cacheWrite1hTokens: 10 });
    const bedrock = { prompt_tokens: 16, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 3 }, cache_creation_input_tokens: 2 };
    assert.deepEqual(anthropicUsageOf(bedrock), { input_tokens: 11, cache_read_input_tokens: 3, cache_creation_input_tokens: 2, output_tokens: 7 });
  });
});
