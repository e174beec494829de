import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createLineSink } from "./line-sink.ts";

describe("line sink", () => {
  test("the lines of one event-loop turn are written together, in order, after the turn", async () => {
    const writes: string[] = [];
    const sink = createLineSink((text) => writes.push(text));
    sink.write("a\n");
    sink.write("b\n");
    await Promise.resolve();
    sink.write("c\n");
    assert.deepEqual(writes, [], "nothing is written during the turn");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, ["a\nb\nc\n"]);
    sink.write("d\n");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, ["a\nb\nc\n", "d\n"], "a later turn's lines in a write of their own");
  });

  test("flush writes what is queued at once; a large backlog is written without waiting for the turn", () => {
    const writes: string[] = [];
    const sink = createLineSink((text) => writes.push(text), () => undefined);
    sink.write("x\n");
    sink.flush();
    assert.deepEqual(writes, ["x\n"]);
    sink.flush();
    assert.deepEqual(writes, ["x\n"], "nothing queued: nothing written");
    const long = `${"y".repeat(70 * 1024)}\n`;
    sink.write(long);
    assert.deepEqual(writes, ["x\n", long]);
  });
});
