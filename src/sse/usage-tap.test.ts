import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { WireFormat } from "../shared/usage.ts";
import {
  ANTHROPIC_USAGE,
  anthropicEvents,
  chatChunk,
  join,
  OPENAI_USAGE,
  openAiEvents,
  splitAt,
  text,
  USAGE_EVENT,
} from "./usage-sse-fixtures.ts";
import { createUsageTap, type UsageTap } from "./usage-tap.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

async function run(tap: UsageTap, chunks: Uint8Array[]): Promise<Uint8Array[]> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const out: Uint8Array[] = [];
  const reader = source.pipeThrough(tap.stream).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

async function tapAll(format: WireFormat, drop: boolean, chunks: Uint8Array[]) {
  const tap = createUsageTap(format, { dropUsageChunk: drop });
  const out = await run(tap, chunks);
  return { out, usage: tap.usage() };
}

describe("createUsageTap, OpenAI chat", () => {
  for (const eol of ["\n", "\r\n", "\r"]) {
    const label = JSON.stringify(eol);
    const all = join(openAiEvents(), eol);
    const withoutUsage = join(openAiEvents().filter((e) => e !== USAGE_EVENT), eol);
    const bytes = enc.encode(all);

    test(`records usage and forwards the same chunk objects (${label}), split at every byte`, async () => {
      for (let cut = 0; cut <= bytes.length; cut++) {
        const chunks = splitAt(bytes, cut);
        const { out, usage } = await tapAll("openai", false, chunks);
        assert.deepEqual(usage, OPENAI_USAGE, `cut ${cut}`);
        assert.equal(out.length, chunks.length);
        out.forEach((chunk, i) => assert.equal(chunk, chunks[i], `chunk ${i} identity at cut ${cut}`));
      }
    });

    test(`drops exactly the usage-only event (${label}), split at every byte`, async () => {
      for (let cut = 0; cut <= bytes.length; cut++) {
        const { out, usage } = await tapAll("openai", true, splitAt(bytes, cut));
        assert.deepEqual(usage, OPENAI_USAGE, `cut ${cut}`);
        assert.equal(text(out), withoutUsage, `cut ${cut}`);
      }
    });

    test(`drop mode with two cuts at many positions (${label})`, async () => {
      const step = 7;
      for (let a = 0; a <= bytes.length; a += step) {
        for (let b = a; b <= bytes.length; b += step + 4) {
          const { out, usage } = await tapAll("openai", true, splitAt(bytes, a, b));
          assert.deepEqual(usage, OPENAI_USAGE);
          assert.equal(text(out), withoutUsage, `cuts ${a} ${b}`);
        }
      }
    });
  }

  test("one byte per chunk, mixed line endings", async () => {
    const all = `${chatChunk("a")}\r\n\r\n${chatChunk("b")}\n\n${USAGE_EVENT}\r\r: comment\n\ndata: [DONE]\r\n\n`;
    const bytes = enc.encode(all);
    const chunks = splitAt(bytes, ...Array.from({ length: bytes.length - 1 }, (_, i) => i + 1));
    const kept = await tapAll("openai", false, chunks);
    assert.deepEqual(kept.usage, OPENAI_USAGE);
    assert.equal(text(kept.out), all);
    const dropped = await tapAll("openai", true, chunks);
    assert.deepEqual(dropped.usage, OPENAI_USAGE);
    assert.equal(text(dropped.out), all.replace(`${USAGE_EVENT}\r\r`, ""));
  });

  test("a CR-terminated dropped event takes its trailing LF only when it completes a CRLF", async () => {
    const all = `${chatChunk("a")}\n\n${USAGE_EVENT}\n\r\ndata: [DONE]\n\n`;
    for (let cut = 0; cut <= all.length; cut++) {
      const { out } = await tapAll("openai", true, splitAt(enc.encode(all), cut));
      assert.equal(text(out), `${chatChunk("a")}\n\ndata: [DONE]\n\n`, `cut ${cut}`);
    }
  });

  test("keeps a chunk that has both choices and usage (e.g. Mistral)", async () => {
    const event = chatChunk(null, ',"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}');
    const all = join([chatChunk("x"), event, "data: [DONE]"], "\n");
    const { out, usage } = await tapAll("openai", true, [enc.encode(all)]);
    assert.equal(text(out), all);
    assert.deepEqual(usage, { inputTokens: 3, cachedInputTokens: 0, outputTokens: 2 });
  });

  test("a stream without usage yields null and passes through", async () => {
    const all = join([chatChunk("a"), chatChunk(null), "data: [DONE]"], "\n");
    for (const drop of [false, true]) {
      const { out, usage } = await tapAll("openai", drop, [enc.encode(all)]);
      assert.equal(usage, null);
      assert.equal(text(out), all);
    }
  });

  test("garbage and broken usage never throw", async () => {
    const all =
      'data: {"usage": {not json}\n\n' +
      "data: \xff\xfe garbage\n\n" +
      'data: {"choices":[],"usage":"lots"}\n\n' +
      'data: {"choices":[],"usage":{"prompt_tokens":-1,"completion_tokens":"x"}}\n\n' +
      "no field at all\n\n\n\n\n";
    const { out, usage } = await tapAll("openai", false, [enc.encode(all)]);
    assert.equal(usage, null);
    assert.equal(text(out), all);
  });

  test("a trailing event without a blank line is read at the end", async () => {
    const all = `${chatChunk("a")}\n\n${USAGE_EVENT}\n`;
    const kept = await tapAll("openai", false, [enc.encode(all)]);
    assert.deepEqual(kept.usage, OPENAI_USAGE);
    const dropped = await tapAll("openai", true, [enc.encode(all)]);
    assert.equal(text(dropped.out), `${chatChunk("a")}\n\n`);
    const partial = await tapAll("openai", true, [enc.encode(`${chatChunk("a")}\n\ndata: {"cho`)]);
    assert.equal(text(partial.out), `${chatChunk("a")}\n\ndata: {"cho`);
  });

  test("holds back at most the incomplete trailing event in drop mode", async () => {
    const tap = createUsageTap("openai", { dropUsageChunk: true });
    const writer = tap.stream.writable.getWriter();
    const reader = tap.stream.readable.getReader();
    const first = enc.encode(`${chatChunk("a")}\n\n${chatChunk("b").slice(0, 20)}`);
    void writer.write(first);
    const { value } = await reader.read();
    assert.equal(dec.decode(value), `${chatChunk("a")}\n\n`);
    const whole = enc.encode(`${chatChunk("c")}\n\n`);
    void writer.write(enc.encode(`${chatChunk("b").slice(20)}\n\n`));
    assert.equal(dec.decode((await reader.read()).value), `${chatChunk("b")}\n\n`);
    void writer.write(whole);
    assert.equal((await reader.read()).value, whole, "a whole-event chunk is forwarded as is");
    void writer.close();
    assert.equal((await reader.read()).done, true);
  });
});

describe("createUsageTap, OpenAI Responses", () => {
  const events = [
    'event: response.created\ndata: {"type":"response.created","response":{"id":"r1","status":"in_progress","usage":null}}',
    'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hi"}',
    'event: response.completed\ndata: {"type":"response.completed","response":{"id":"r1","status":"completed","usage":{"input_tokens":50,"input_tokens_details":{"cached_tokens":10},"output_tokens":7,"total_tokens":57}}}',
  ];
  test("reads response.completed", async () => {
    const all = join(events, "\n");
    const { out, usage } = await tapAll("openai", false, splitAt(enc.encode(all), 100));
    assert.deepEqual(usage, { inputTokens: 40, cachedInputTokens: 10, outputTokens: 7 });
    assert.equal(text(out), all);
  });
  for (const type of ["response.incomplete", "response.failed"]) {
    test(`reads ${type}`, async () => {
      const last = `event: ${type}\ndata: {"type":"${type}","response":{"usage":{"input_tokens":5,"output_tokens":1}}}`;
      const { usage } = await tapAll("openai", false, [enc.encode(join([events[0]!, last], "\r\n"))]);
      assert.deepEqual(usage, { inputTokens: 5, cachedInputTokens: 0, outputTokens: 1 });
    });
  }
});

describe("createUsageTap, Anthropic", () => {
  for (const eol of ["\n", "\r\n", "\r"]) {
    const all = join(anthropicEvents(), eol);
    const bytes = enc.encode(all);
    test(`records usage (${JSON.stringify(eol)}), split at every byte, chunks unchanged`, async () => {
      for (let cut = 0; cut <= bytes.length; cut++) {
        const chunks = splitAt(bytes, cut);
        const { out, usage } = await tapAll("anthropic", true, chunks);
        assert.deepEqual(usage, ANTHROPIC_USAGE, `cut ${cut}`);
        out.forEach((chunk, i) => assert.equal(chunk, chunks[i]));
      }
    });
  }

  test("a message_delta with updated input counts replaces them", async () => {
    const events = [
      anthropicEvents()[0]!,
      'event: message_delta\ndata: {"type":"message_delta","delta":{},"usage":{"input_tokens":40,"cache_read_input_tokens":90,"output_tokens":3}}',
    ];
    const { usage } = await tapAll("anthropic", false, [enc.encode(join(events, "\n"))]);
    assert.deepEqual(usage, { inputTokens: 45, cachedInputTokens: 90, outputTokens: 3, cacheWrite5mTokens: 5 });
  });

  test("a stream cut after message_start yields the input usage", async () => {
    const tap = createUsageTap("anthropic", { dropUsageChunk: false });
    const writer = tap.stream.writable.getWriter();
    const reader = tap.stream.readable.getReader();
    const events = anthropicEvents();
    void writer.write(enc.encode(join(events.slice(0, 2), "\n") + events[3]!.slice(0, 30)));
    await reader.read();
    assert.deepEqual(tap.usage(), { inputTokens: 30, cachedInputTokens: 100, outputTokens: 1, cacheWrite5mTokens: 5 });
    await reader.cancel(new Error("client went away"));
    assert.deepEqual(tap.usage(), { inputTokens: 30, cachedInputTokens: 100, outputTokens: 1, cacheWrite5mTokens: 5 });
  });

  test("usage survives an errored source", async () => {
    const tap = createUsageTap("anthropic", { dropUsageChunk: false });
    const first = enc.encode(join(anthropicEvents().slice(0, 1), "\n"));
    let pulls = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) controller.enqueue(first);
        else controller.error(new Error("upstream reset"));
      },
    });
    const reader = source.pipeThrough(tap.stream).getReader();
    assert.equal((await reader.read()).value, first);
    await assert.rejects(reader.read(), /upstream reset/);
    assert.deepEqual(tap.usage(), { inputTokens: 30, cachedInputTokens: 100, outputTokens: 1, cacheWrite5mTokens: 5 });
  });

  test("no usage before any event", () => {
    assert.equal(createUsageTap("anthropic", { dropUsageChunk: false }).usage(), null);
  });
});
