import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { currentRuntime } from "../runtime/current-runtime.ts";
import { runMockCommand } from "./cli-mock.ts";

/** Runs `fn` while capturing what is written to a stream through `write`. */
async function capture<T>(stream: NodeJS.WriteStream, fn: (written: string[]) => Promise<T>): Promise<T> {
  const original = stream.write;
  const written: string[] = [];
  stream.write = ((chunk: string | Uint8Array) => {
    written.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
    return true;
  }) as typeof stream.write;
  try {
    return await fn(written);
  } finally {
    stream.write = original;
  }
}

async function until<T>(read: () => T | undefined, timeoutMs = 3_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("renio mock command", () => {
  test("serves the mock, prints its URL, applies fault flags, stops on SIGTERM", async () => {
    const runtime = await currentRuntime();
    await capture(process.stdout, async (written) => {
      const exit = runMockCommand(["--port", "0", "--latency-ms", "0", "--chunks", "2", "--fault-status", "418"], runtime);
      const line = await until(() => written.find((w) => w.startsWith("renio mock listening on ")));
      const match = /^renio mock listening on (http:\/\/127\.0\.0\.1:\d+)\n$/.exec(line);
      assert.ok(match, line);
      const base = match[1] ?? "";
      const response = await fetch(`${base}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) });
      assert.equal(response.status, 418);
      await response.body?.cancel();
      const stats = (await (await fetch(`${base}/_mock/stats`)).json()) as { received: number };
      assert.equal(stats.received, 1);
      process.emit("SIGTERM");
      assert.equal(await exit, 0);
      await assert.rejects(fetch(`${base}/v1/models`));
    });
  });

  test("--script fails the calls it names", async () => {
    const runtime = await currentRuntime();
    await capture(process.stdout, async (written) => {
      const exit = runMockCommand(["--port", "0", "--latency-ms", "0", "--script", '{"failFirst":1,"status":503,"retryAfter":2}'], runtime);
      const line = await until(() => written.find((w) => w.startsWith("renio mock listening on ")));
      const base = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1] ?? "";
      const call = () => fetch(`${base}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) });
      const first = await call();
      assert.deepEqual([first.status, first.headers.get("retry-after")], [503, "2"]);
      await first.body?.cancel();
      const second = await call();
      assert.equal(second.status, 200);
      await second.body?.cancel();
      process.emit("SIGTERM");
      assert.equal(await exit, 0);
    });
  });

  test("unknown flags and bad numbers: message on stderr, exit 2", async () => {
    const runtime = await currentRuntime();
    await capture(process.stderr, async (written) => {
      assert.equal(await runMockCommand(["--bogus"], runtime), 2);
      assert.equal(await runMockCommand(["--latency-ms", "-1"], runtime), 2);
      assert.equal(await runMockCommand(["--port", "99999"], runtime), 2);
      assert.equal(await runMockCommand(["--script", "{nope"], runtime), 2);
      assert.equal(await runMockCommand(["--script", '{"failPercent":150}'], runtime), 2);
      assert.equal(written.length, 5);
      assert.match(written[4] ?? "", /--script: failPercent: /);
      assert.ok(written.every((w) => w.startsWith("renio mock: ")));
    });
  });
});
