import assert from "node:assert/strict";
import { connect } from "node:net";
import { test } from "node:test";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import { createUsageTap } from "../../../src/usage/usage-tap.ts";

/**
 * Memory per stream is bounded by what the client takes: a client that reads nothing makes the
 * relay stop reading its provider (the tap as the relay serves it, to the runtime's own HTTP
 * server: a direct stream on Bun), instead of buffering the provider's stream.
 */

const CHUNK = new Uint8Array(256 * 1024).fill(0x61);

test("a client that reads nothing: the provider's stream is read no further than the connection's buffers", async () => {
  const runtime = await currentRuntime();
  let pulled = 0;
  const server = await runtime.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      // A provider with an endless stream, as fast as it is read.
      const source = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++, c.enqueue(CHUNK)) }, { highWaterMark: 0 });
      const tap = createUsageTap(source, "openai", { dropUsageChunk: false, direct: true }, () => {});
      return new Response(tap.body, { headers: { "content-type": "text/event-stream" } });
    },
  });
  const socket = connect({ host: "127.0.0.1", port: server.port });
  try {
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.pause();
    socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // The kernel's socket buffers hold a few MB at most; without backpressure the whole stream piles up in the relay (hundreds of MB a second).
    const readMb = (pulled * CHUNK.byteLength) / 1024 / 1024;
    assert.ok(readMb < 32, `the relay read ${readMb.toFixed(0)} MB of the provider's stream for a client that took nothing`);
    assert.ok(pulled > 0, "the stream started");
  } finally {
    socket.destroy();
    await server.stop();
  }
});
