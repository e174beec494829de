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
} from "../../test/support/usage-sse-fixtures.ts";
import { createUsageScanner } from "./usage-scanner.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Pushes every chunk, then ends; `out[i]` is push i's result, the last entry is end()'s. */
function scanAll(format: WireFormat, drop: boolean, chunks: Uint8Array[]) {
  const scanner = createUsageScanner(format, { dropUsageChunk: drop });
  const out = chunks.map((chunk) => scanner.push(chunk));
  out.push(scanner.end());
  return { out, usage: scanner.usage() };
}

/** Deterministic cuts (xorshift32) so failures reproduce. */
function randomCuts(length: number, count: number, seed: number): number[] {
  let x = seed;
  const cuts: number[] = [];
  for (let i = 0; i < count; i++) {
    x ^= x << 13, x ^= x >>> 17, x ^= x << 5;
    cuts.push((x >>> 0) % (length + 1));
  }
  return cuts.sort((a, b) => a - b);
}

describe("createUsageScanner, OpenAI chat", () => {
  for (const eol of ["\n", "\r\n", "\r"]) {
    const label = JSON.stringify(eol);
    const withoutUsage = join(openAiEvents().filter((e) => e !== USAGE_EVENT), eol);
    const bytes = enc.encode(join(openAiEvents(), eol));

    test(`returns every chunk as the same object, records usage (${label}), split at every byte`, () => {
      for (let cut = 0; cut <= bytes.length; cut++) {
        const chunks = splitAt(bytes, cut);
        const { out, usage } = scanAll("openai", false, chunks);
        assert.deepEqual(usage, OPENAI_USAGE, `cut ${cut}`);
        chunks.forEach((chunk, i) => assert.equal(out[i], chunk, `chunk ${i} identity at cut ${cut}`));
        assert.equal(out.at(-1)!.length, 0, "end() holds nothing back without drop");
      }
    });

    test(`drops exactly the usage-only event (${label}), split at every byte`, () => {
      for (let cut = 0; cut <= bytes.length; cut++) {
        const { out, usage } = scanAll("openai", true, splitAt(bytes, cut));
        assert.deepEqual(usage, OPENAI_USAGE, `cut ${cut}`);
        assert.equal(text(out), withoutUsage, `cut ${cut}`);
      }
    });

    test(`drop mode output stays a prefix of the expected bytes after every push (${label})`, () => {
      for (let seed = 1; seed <= 200; seed++) {
        const scanner = createUsageScanner("openai", { dropUsageChunk: true });
        let sent = "";
        for (const chunk of splitAt(bytes, ...randomCuts(bytes.length, 1 + (seed % 9), seed))) {
          sent += dec.decode(scanner.push(chunk));
          assert.ok(withoutUsage.startsWith(sent), `seed ${seed}`);
        }
        sent += dec.decode(scanner.end());
        assert.equal(sent, withoutUsage, `seed ${seed}`);
        assert.deepEqual(scanner.usage(), OPENAI_USAGE);
      }
    });
  }

  test("one byte per chunk, mixed line endings", () => {
    const all = `${chatChunk("a")}\r\n\r\n${chatChunk("b")}\n\n${USAGE_EVENT}\r\r: comment\n\ndata: [DONE]\r\n\n`;
    const bytes = enc.encode(all);
    const chunks = splitAt(bytes, ...Array.from({ length: bytes.length - 1 }, (_, i) => i + 1));
    const kept = scanAll("openai", false, chunks);
    assert.deepEqual(kept.usage, OPENAI_USAGE);
    chunks.forEach((chunk, i) => assert.equal(kept.out[i], chunk));
    const dropped = scanAll("openai", true, chunks);
    assert.deepEqual(dropped.usage, OPENAI_USAGE);
    assert.equal(text(dropped.out), all.replace(`${USAGE_EVENT}\r\r`, ""));
  });

  test("a CR-terminated dropped event takes its trailing LF only when it completes a CRLF", () => {
    const all = `${chatChunk("a")}\n\n${USAGE_EVENT}\n\r\ndata: [DONE]\n\n`;
    for (let cut = 0; cut <= all.length; cut++) {
      const { out } = scanAll("openai", true, splitAt(enc.encode(all), cut));
      assert.equal(text(out), `${chatChunk("a")}\n\ndata: [DONE]\n\n`, `cut ${cut}`);
    }
  });

  test("drop mode: whole events pass as the same object, a cut event is held back then joined", () => {
    const scanner = createUsageScanner("openai", { dropUsageChunk: true });
    const whole = enc.encode(`${chatChunk("a")}\n\n`);
    assert.equal(scanner.push(whole), whole);
    const first = enc.encode(`${chatChunk("a")}\n\n${chatChunk("b").slice(0, 20)}`);
    assert.equal(dec.decode(scanner.push(first)), `${chatChunk("a")}\n\n`);
    assert.equal(scanner.push(enc.encode(chatChunk("b").slice(20, 30))).length, 0, "still incomplete");
    const rest = enc.encode(`${chatChunk("b").slice(30)}\n\n`);
    assert.equal(dec.decode(scanner.push(rest)), `${chatChunk("b")}\n\n`);
    const usageOnly = enc.encode(`${USAGE_EVENT}\n\n`);
    assert.equal(scanner.push(usageOnly).length, 0, "the usage-only chunk is dropped");
    const done = enc.encode("data: [DONE]\n\n");
    assert.equal(scanner.push(done), done);
    assert.equal(scanner.end().length, 0);
    assert.deepEqual(scanner.usage(), OPENAI_USAGE);
  });

  test("keeps a chunk that has both choices and usage (e.g. Mistral)", () => {
    const event = chatChunk(null, ',"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}');
    const chunk = enc.encode(join([chatChunk("x"), event, "data: [DONE]"], "\n"));
    const { out, usage } = scanAll("openai", true, [chunk]);
    assert.equal(out[0], chunk);
    assert.deepEqual(usage, { inputTokens: 3, cachedInputTokens: 0, outputTokens: 2, responseModel: "gpt-4o" });
  });

  test("an unterminated final event is read by end() and returned unless dropped", () => {
    const kept = scanAll("openai", false, [enc.encode(`${chatChunk("a")}\n\n${USAGE_EVENT}\n`)]);
    assert.deepEqual(kept.usage, OPENAI_USAGE);
    const dropped = scanAll("openai", true, [enc.encode(`${chatChunk("a")}\n\n${USAGE_EVENT}\n`)]);
    assert.equal(text(dropped.out), `${chatChunk("a")}\n\n`);
    assert.equal(dropped.out.at(-1)!.length, 0);
    const partial = scanAll("openai", true, [enc.encode(`${chatChunk("a")}\n\ndata: {"cho`)]);
    assert.equal(dec.decode(partial.out.at(-1)), 'data: {"cho');
    assert.equal(text(partial.out), `${chatChunk("a")}\n\ndata: {"cho`);
  });

  test("garbage and broken usage never throw", () => {
    const chunk = enc.encode(
      'data: {"usage": {not json}\n\n' +
        "data: \xff\xfe garbage\n\n" +
        'data: {"choices":[],"usage":"lots"}\n\n' +
        'data: {"choices":[],"usage":{"prompt_tokens":-1,"completion_tokens":"x"}}\n\n' +
        "no field at all\n\n\n\n\n",
    );
    const { out, usage } = scanAll("openai", false, [chunk]);
    assert.equal(usage, null);
    assert.equal(out[0], chunk);
  });

  test("many events in one chunk: each usage event is read once, the last wins", () => {
    const events: string[] = [];
    for (let i = 1; i <= 2000; i++) {
      events.push(chatChunk("x", ',"usage":null'));
      if (i % 500 === 0) events.push(USAGE_EVENT.replace('"prompt_tokens":20', `"prompt_tokens":${20 + i}`));
    }
    const chunk = enc.encode(join(events, "\n"));
    const { out, usage } = scanAll("openai", false, [chunk]);
    assert.equal(out[0], chunk);
    assert.deepEqual(usage, { inputTokens: 2016, cachedInputTokens: 4, outputTokens: 8, responseModel: "gpt-4o" });
  });
});

describe("createUsageScanner, Anthropic", () => {
  for (const eol of ["\n", "\r\n", "\r"]) {
    const bytes = enc.encode(join(anthropicEvents(), eol));
    test(`records usage (${JSON.stringify(eol)}), split at every byte, chunks unchanged even with drop`, () => {
      for (let cut = 0; cut <= bytes.length; cut++) {
        const chunks = splitAt(bytes, cut);
        const { out, usage } = scanAll("anthropic", true, chunks);
        assert.deepEqual(usage, ANTHROPIC_USAGE, `cut ${cut}`);
        chunks.forEach((chunk, i) => assert.equal(out[i], chunk));
        assert.equal(out.at(-1)!.length, 0);
      }
    });
  }

  test("a stream cut after message_start (no end()) yields the input usage", () => {
    const scanner = createUsageScanner("anthropic", { dropUsageChunk: false });
    assert.equal(scanner.usage(), null);
    const events = anthropicEvents();
    scanner.push(enc.encode(join(events.slice(0, 2), "\n") + events[3]!.slice(0, 30)));
    assert.deepEqual(scanner.usage(), { inputTokens: 30, cachedInputTokens: 100, outputTokens: 1, cacheWrite5mTokens: 5, responseModel: "claude" });
    assert.equal(scanner.usageFinal(), false, "message_start's output_tokens is a placeholder");
  });

  test("a message_delta cut before its blank line is read only by end()", () => {
    const events = anthropicEvents();
    const scanner = createUsageScanner("anthropic", { dropUsageChunk: false });
    scanner.push(enc.encode(`${join(events.slice(0, 5), "\n")}${events[5]!}\n`));
    assert.equal(scanner.usage()!.outputTokens, 1);
    assert.equal(scanner.usageFinal(), false);
    assert.equal(scanner.end().length, 0);
    assert.deepEqual(scanner.usage(), ANTHROPIC_USAGE);
    assert.equal(scanner.usageFinal(), true);
  });

  test("a fresh scanner has no usage and nothing to end", () => {
    const scanner = createUsageScanner("openai", { dropUsageChunk: true });
    assert.equal(scanner.usage(), null);
    assert.equal(scanner.usageFinal(), false);
    assert.equal(scanner.end().length, 0);
  });
});

describe("createUsageScanner, usageFinal: whether the provider's final usage was seen", () => {
  /** usageFinal() after pushing `events` (LF-joined) without end(), as on a cut stream. */
  function finalAfter(format: WireFormat, events: string[]): boolean {
    const scanner = createUsageScanner(format, { dropUsageChunk: false });
    scanner.push(enc.encode(join(events, "\n")));
    return scanner.usageFinal();
  }

  test("Anthropic: only once message_delta carried usage", () => {
    const events = anthropicEvents();
    for (let n = 0; n <= 5; n++) assert.equal(finalAfter("anthropic", events.slice(0, n)), false, `${n} events`);
    assert.equal(finalAfter("anthropic", events.slice(0, 6)), true);
    assert.equal(finalAfter("anthropic", [events[0]!, 'event: message_delta\ndata: {"type":"message_delta","delta":{}}']), false, "a message_delta without usage");
  });

  test("OpenAI chat: the usage chunk (no choices, or a finished choice), never usage:null or mid-stream usage", () => {
    const events = openAiEvents();
    for (let n = 0; n <= 4; n++) assert.equal(finalAfter("openai", events.slice(0, n)), false, `${n} events`);
    assert.equal(finalAfter("openai", events.slice(0, 5)), true);
    const running = chatChunk("x", ',"usage":{"prompt_tokens":3,"completion_tokens":1}');
    assert.equal(finalAfter("openai", [running]), false, "continuous usage on an unfinished choice");
    assert.equal(finalAfter("openai", [running, chatChunk(null, ',"usage":{"prompt_tokens":3,"completion_tokens":2}')]), true, "usage on the finish chunk");
    assert.equal(finalAfter("openai", ['data: {"choices":[],"usage":{"prompt_tokens":-1}}']), false, "a usage object without counts");
  });

  test("OpenAI Responses: response.completed / incomplete / failed with usage", () => {
    const usage = '"usage":{"input_tokens":5,"output_tokens":7}';
    assert.equal(finalAfter("openai", ['event: response.created\ndata: {"type":"response.created","response":{"usage":null}}']), false);
    assert.equal(finalAfter("openai", ['event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"x"}']), false);
    for (const type of ["response.completed", "response.incomplete", "response.failed"]) {
      assert.equal(finalAfter("openai", [`event: ${type}\ndata: {"type":"${type}","response":{${usage}}}`]), true, type);
    }
  });
});

describe("createUsageScanner, priced details in streams", () => {
  test("Anthropic: cache-write split from message_start, server-tool uses from message_delta", () => {
    const events = [
      'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":10,"cache_creation_input_tokens":300,"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":200},"cache_read_input_tokens":0,"output_tokens":1}}}',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":40,"server_tool_use":{"web_search_requests":3}}}',
    ];
    const bytes = enc.encode(join(events, "\n"));
    const { usage } = scanAll("anthropic", false, splitAt(bytes, 7, 150, 151));
    assert.deepEqual(usage, { inputTokens: 310, cachedInputTokens: 0, outputTokens: 40, cacheWrite5mTokens: 100, cacheWrite1hTokens: 200, toolUses: { web_search: 3 } });
  });

  test("OpenAI chat: the usage chunk's service tier and audio tokens", () => {
    const chunk = 'data: {"object":"chat.completion.chunk","service_tier":"priority","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":20,"completion_tokens_details":{"audio_tokens":15}}}';
    const { usage } = scanAll("openai", false, [enc.encode(join([chunk, "data: [DONE]"], "\n"))]);
    assert.deepEqual(usage, { inputTokens: 10, cachedInputTokens: 0, outputTokens: 20, audioOutputTokens: 15, serviceTier: "priority" });
  });

  test("OpenAI Responses: tool calls counted from response.completed's output", () => {
    const completed =
      'event: response.completed\ndata: {"type":"response.completed","response":{"service_tier":"default","output":[{"type":"web_search_call"},{"type":"message"}],"usage":{"input_tokens":50,"output_tokens":5}}}';
    const { usage } = scanAll("openai", false, [enc.encode(join([completed], "\n"))]);
    assert.deepEqual(usage, { inputTokens: 50, cachedInputTokens: 0, outputTokens: 5, toolUses: { web_search: 1 } });
  });
});
