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
import { createUsageTap, type TapEnd, type UsageTap } from "./usage-tap.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A source the test feeds by hand: `push` a chunk or `close` it. */
function handFed() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return { stream, push: (chunk: Uint8Array) => controller.enqueue(chunk), close: () => controller.close() };
}

/** A tap over `source` that records how it ended. */
function tapOver(source: ReadableStream<Uint8Array>, format: WireFormat, drop: boolean): { tap: UsageTap; ends: TapEnd[] } {
  const ends: TapEnd[] = [];
  return { tap: createUsageTap(source, format, { dropUsageChunk: drop }, (end) => void ends.push(end)), ends };
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

async function tapAll(format: WireFormat, drop: boolean, chunks: Uint8Array[]) {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const { tap, ends } = tapOver(source, format, drop);
  const out = await readAll(tap.body);
  assert.deepEqual(ends, ["completed"]);
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
        // An empty chunk has nothing to forward.
        const chunks = splitAt(bytes, cut).filter((chunk) => chunk.length > 0);
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
    assert.deepEqual(usage, { inputTokens: 3, cachedInputTokens: 0, outputTokens: 2, responseModel: "gpt-4o" });
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
    const source = handFed();
    const { tap, ends } = tapOver(source.stream, "openai", true);
    const reader = tap.body.getReader();
    const first = enc.encode(`${chatChunk("a")}\n\n${chatChunk("b").slice(0, 20)}`);
    source.push(first);
    const { value } = await reader.read();
    assert.equal(dec.decode(value), `${chatChunk("a")}\n\n`);
    const whole = enc.encode(`${chatChunk("c")}\n\n`);
    source.push(enc.encode(`${chatChunk("b").slice(20)}\n\n`));
    assert.equal(dec.decode((await reader.read()).value), `${chatChunk("b")}\n\n`);
    source.push(whole);
    assert.equal((await reader.read()).value, whole, "a whole-event chunk is forwarded as is");
    source.close();
    assert.equal((await reader.read()).done, true);
    assert.deepEqual(ends, ["completed"]);
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
        const chunks = splitAt(bytes, cut).filter((chunk) => chunk.length > 0);
        const { out, usage } = await tapAll("anthropic", true, chunks);
        assert.deepEqual(usage, ANTHROPIC_USAGE, `cut ${cut}`);
        assert.equal(out.length, chunks.length);
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
    assert.deepEqual(usage, { inputTokens: 45, cachedInputTokens: 90, outputTokens: 3, cacheWrite5mTokens: 5, responseModel: "claude" });
  });

  test("a stream cut after message_start yields the input usage", async () => {
    const source = handFed();
    const { tap, ends } = tapOver(source.stream, "anthropic", false);
    const reader = tap.body.getReader();
    const events = anthropicEvents();
    source.push(enc.encode(join(events.slice(0, 2), "\n") + events[3]!.slice(0, 30)));
    await reader.read();
    assert.deepEqual(tap.usage(), { inputTokens: 30, cachedInputTokens: 100, outputTokens: 1, cacheWrite5mTokens: 5, responseModel: "claude" });
    await reader.cancel(new Error("client went away"));
    assert.deepEqual(tap.usage(), { inputTokens: 30, cachedInputTokens: 100, outputTokens: 1, cacheWrite5mTokens: 5, responseModel: "claude" });
    assert.deepEqual(ends, ["cancelled"]);
  });

  test("usage survives an errored source", async () => {
    const first = enc.encode(join(anthropicEvents().slice(0, 1), "\n"));
    let pulls = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) controller.enqueue(first);
        else controller.error(new Error("upstream reset"));
      },
    });
    const { tap, ends } = tapOver(source, "anthropic", false);
    const reader = tap.body.getReader();
    assert.equal((await reader.read()).value, first);
    await assert.rejects(reader.read(), (error) => error === "upstream stream cut");
    assert.deepEqual(ends, ["cut"]);
    assert.deepEqual(tap.usage(), { inputTokens: 30, cachedInputTokens: 100, outputTokens: 1, cacheWrite5mTokens: 5, responseModel: "claude" });
  });

  test("no usage before any event", () => {
    assert.equal(tapOver(handFed().stream, "anthropic", false).tap.usage(), null);
  });

  test("a cut reaches the consumer after every chunk received, reported as cut once", async () => {
    const chunks = anthropicEvents().slice(0, 4).map((event) => enc.encode(`${event}\n\n`));
    let sent = 0;
    // One chunk per read, then the failure on the read after the last: as a dropped connection.
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent < chunks.length) controller.enqueue(chunks[sent++]!);
        else controller.error(new TypeError("connection reset"));
      },
    }, { highWaterMark: 0 });
    const { tap, ends } = tapOver(source, "anthropic", false);
    const reader = tap.body.getReader();
    for (const chunk of chunks) assert.equal((await reader.read()).value, chunk);
    await assert.rejects(reader.read(), (error) => error === "upstream stream cut");
    assert.deepEqual(ends, ["cut"]);
    await reader.cancel().catch(() => {});
    assert.deepEqual(ends, ["cut"], "a cancel after the cut is no second end");
  });
});

describe("createUsageTap, direct (the body goes to the HTTP server)", () => {
  const directTap = (source: ReadableStream<Uint8Array>, drop: boolean) => {
    const ends: TapEnd[] = [];
    return { tap: createUsageTap(source, "openai", { dropUsageChunk: drop, direct: true }, (end) => void ends.push(end)), ends };
  };
  const sourceOf = (chunks: Uint8Array[], failAtEnd: boolean) =>
    new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk !== undefined) controller.enqueue(chunk);
        else if (failAtEnd) controller.error(new TypeError("connection reset"));
        else controller.close();
      },
    }, { highWaterMark: 0 });

  test("the same bytes, usage recorded and the usage-only event dropped, split at every byte", async () => {
    const bytes = enc.encode(join(openAiEvents(), "\n"));
    const withoutUsage = join(openAiEvents().filter((e) => e !== USAGE_EVENT), "\n");
    for (let cut = 0; cut <= bytes.length; cut += 7) {
      const { tap, ends } = directTap(sourceOf(splitAt(bytes, cut), false), true);
      assert.equal(text(await readAll(tap.body)), withoutUsage, `cut ${cut}`);
      assert.deepEqual(tap.usage(), OPENAI_USAGE, `cut ${cut}`);
      assert.deepEqual(ends, ["completed"]);
      assert.notEqual(tap.firstByteAt(), null);
    }
  });

  test("a cut errors the stream after every byte received, reported as cut", async () => {
    const chunks = openAiEvents().slice(0, 3).map((event) => enc.encode(`${event}\n\n`));
    const expected = text(chunks);
    const { tap, ends } = directTap(sourceOf([...chunks], true), false);
    const received: Uint8Array[] = [];
    const reader = tap.body.getReader();
    await assert.rejects(async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received.push(value);
      }
    });
    assert.equal(text(received), expected);
    assert.deepEqual(ends, ["cut"]);
  });
});

describe("createUsageTap with stallMs", () => {
  test("a source silent for longer ends the stream as stalled: the chunks before reach the reader, then its read fails, and the source is cancelled", async () => {
    let cancelled = false;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const source = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c), cancel: () => void (cancelled = true) });
    controller.enqueue(enc.encode(chatChunk("Hel")));
    const ends: TapEnd[] = [];
    const tap = createUsageTap(source, "openai", { dropUsageChunk: false, stallMs: 50 }, (end) => void ends.push(end));
    const reader = tap.body.getReader();
    assert.equal(dec.decode((await reader.read()).value), chatChunk("Hel"));
    await assert.rejects(reader.read(), /stalled/);
    assert.deepEqual(ends, ["stalled"]);
    assert.ok(cancelled, "the source was cancelled");
  });

  test("a consumer that takes nothing for longer stalls it too, though the source has more", async () => {
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(enc.encode(chatChunk("x"))), cancel: () => void (cancelled = true) }, { highWaterMark: 0 });
    const ends: TapEnd[] = [];
    const tap = createUsageTap(source, "openai", { dropUsageChunk: false, stallMs: 50 }, (end) => void ends.push(end));
    const reader = tap.body.getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.deepEqual(ends, ["stalled"]);
    assert.ok(cancelled);
    await assert.rejects(reader.read(), /stalled/);
  });

  test("chunks that keep coming within the setting never stall it, however long the stream", async () => {
    // Chunks a few ms apart for three times the setting.
    const started = performance.now();
    let sent = 0;
    const source = new ReadableStream<Uint8Array>({
      pull: async (c) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (performance.now() - started > 1200) c.close();
        else (sent++, c.enqueue(enc.encode(chatChunk("x"))));
      },
    }, { highWaterMark: 0 });
    const ends: TapEnd[] = [];
    const tap = createUsageTap(source, "openai", { dropUsageChunk: false, stallMs: 400 }, (end) => void ends.push(end));
    assert.equal((await readAll(tap.body)).length, sent);
    assert.deepEqual(ends, ["completed"]);
  });
});
