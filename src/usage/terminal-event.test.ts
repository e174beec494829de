import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { WireFormat } from "../shared/usage.ts";
import { isTerminalEvent } from "./terminal-event.ts";
import { createUsageScanner } from "./usage-scanner.ts";

const enc = new TextEncoder();
const terminal = (format: WireFormat, event: string) => {
  const bytes = enc.encode(`xx${event}`);
  return isTerminalEvent(format, bytes, 2, bytes.length);
};

describe("terminal events", () => {
  test("each wire's last event, with or without an event line, and nothing else", () => {
    for (const event of ["data: [DONE]\n\n", "data:[DONE]\r\n\r\n", "data: [DONE]", 'event: response.completed\ndata: {"type":"response.completed","response":{}}\n\n', 'data: {"type":"response.incomplete","response":{}}\n\n', "event: response.failed\r\ndata: {}\r\n\r\n"]) {
      assert.equal(terminal("openai", event), true, event);
    }
    for (const event of ['event: message_stop\ndata: {"type":"message_stop"}\n\n', 'data: {"type":"message_stop"}\n\n']) assert.equal(terminal("anthropic", event), true, event);
    for (const event of ['data: {"id":"chatcmpl-1","choices":[]}\n\n', "data: [DONE]x\n\n", 'event: response.completed_soon\ndata: {}\n\n', 'event: response.output_text.done\ndata: {}\n\n', ": ping\n\n", "data: [DO", 'event: error\ndata: {"type":"error"}\n\n', 'data: {"error":{"message":"x"}}\n\n']) {
      assert.equal(terminal("openai", event), false, event);
    }
    for (const event of ['event: message_delta\ndata: {"type":"message_delta"}\n\n', 'event: message_stopped\ndata: {}\n\n', "data: [DONE]\n\n", 'event: error\ndata: {"type":"error","error":{}}\n\n']) assert.equal(terminal("anthropic", event), false, event);
  });

  test("the scanner says so once the chunk completing the terminal event was pushed, however the stream is split", () => {
    const stream = 'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}\n\ndata: [DONE]\n\n';
    for (const size of [1, 3, 7, 64]) {
      for (const drop of [false, true]) {
        const scanner = createUsageScanner("openai", { dropUsageChunk: drop });
        const bytes = enc.encode(stream);
        const seen: boolean[] = [];
        for (let i = 0; i < bytes.length; i += size) {
          scanner.push(bytes.slice(i, i + size));
          seen.push(scanner.terminal());
        }
        const doneAt = Math.floor((stream.length - 1) / size);
        assert.deepEqual(seen.indexOf(true), doneAt, `${size}-byte chunks, drop ${drop}`);
      }
    }
    const unterminated = createUsageScanner("anthropic", { dropUsageChunk: false });
    unterminated.push(enc.encode('event: message_stop\ndata: {"type":"message_stop"}'));
    assert.equal(unterminated.terminal(), false);
    unterminated.end();
    assert.equal(unterminated.terminal(), true);
  });
});
