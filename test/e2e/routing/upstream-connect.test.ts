import assert from "node:assert/strict";
import { createServer, Socket, type Server } from "node:net";
import { after, before, describe, test } from "node:test";
import type { Provider } from "../../../src/providers/provider.ts";
import { createConnectCheck, tcpConnect, type OpenSocket } from "../../../src/routing/upstream-connect.ts";
import { RelayError } from "../../../src/shared/relay-error.ts";
import type { Store } from "../../../src/storage/store.ts";
import { createFakeProviderRelay, type FakeProviderRelay } from "../../support/fake-provider-relay.ts";
import { finishedEntries, post } from "../../support/relay-calls.ts";
import type { RelayUnderTest } from "../../support/relay-harness.ts";
import { startMockRelay } from "../../support/with-relay.ts";

/** A loopback TCP server that accepts connections and never answers (sockets are kept to close them). */
async function silentServer(): Promise<{ server: Server; port: number; accepted: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    server,
    port,
    accepted: () => accepted,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A socket that never connects: connect events never come, so only the timer can end the attempt. */
const neverConnects: OpenSocket = () => new Socket();

const provider = (port: number, connectTimeoutMs = 200): Provider => ({
  id: "up",
  region: "local",
  wires: new Set(["openai"]),
  connectTimeoutMs,
  firstByteTimeoutMs: 5000,
  endpoint: { hostname: "127.0.0.1", port },
  send: () => Promise.reject(new Error("not used")),
});

describe("tcpConnect over loopback", () => {
  test("connected to a listening port, refused on a closed one", async () => {
    const silent = await silentServer();
    try {
      assert.equal(await tcpConnect({ hostname: "127.0.0.1", port: silent.port }, 1000), "connected");
      assert.equal(await tcpConnect({ hostname: "127.0.0.1", port: await closedPort() }, 1000), "refused");
    } finally {
      await silent.close();
    }
  });

  test("times out after connectTimeoutMs when the connection never completes", async () => {
    const started = performance.now();
    assert.equal(await tcpConnect({ hostname: "127.0.0.1", port: 9 }, 80, neverConnects), "timeout");
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 75 && elapsed < 1000, `timed out after ${elapsed} ms`);
  });
});

describe("createConnectCheck", () => {
  test("checks only while cold: skipped within the keep-alive window after an answer", async () => {
    let clock = 0;
    let opened = 0;
    const silent = await silentServer();
    try {
      const check = createConnectCheck({ warmMs: 4000, now: () => clock, open: (e) => (opened++, new Socket().connect(e.port, e.hostname)) });
      const up = provider(silent.port);
      await check.before(up);
      assert.equal(opened, 1, "cold: checked");
      check.answered("up");
      clock = 3999;
      assert.equal(check.before(up), undefined, "warm: nothing to wait for");
      clock = 4000;
      await check.before(up);
      assert.equal(opened, 2, "cold again after the window");
      assert.equal(check.before({ ...up, endpoint: undefined }), undefined, "in-process providers are never checked");
      assert.equal(opened, 2);
    } finally {
      await silent.close();
    }
  });

  test("timeout → 504 upstream_timeout naming the provider and the limit; refused → 502 upstream_unreachable", async () => {
    const timeout = createConnectCheck({ open: neverConnects }).before(provider(9, 60));
    await assert.rejects(timeout!, (error: unknown) => {
      assert.ok(error instanceof RelayError);
      assert.deepEqual([error.status, error.code], [504, "upstream_timeout"]);
      assert.equal(error.message, "Could not connect to provider `up` within 60 ms");
      return true;
    });
    const refused = createConnectCheck().before(provider(await closedPort()));
    await assert.rejects(refused!, (error: unknown) => error instanceof RelayError && error.status === 502 && error.code === "upstream_unreachable");
  });
});

describe("in the relay", () => {
  let fake: FakeProviderRelay;
  before(async () => {
    fake = await createFakeProviderRelay();
  });
  after(async () => {
    await fake.close();
  });

  test("a cold provider that cannot be connected to: 504, never sent, journaled as timeout, nothing charged", async () => {
    const relay = fake.relay(undefined, createConnectCheck({ open: neverConnects }));
    const started = performance.now();
    await assert.rejects(fake.call(relay, "/v1/chat/completions", { model: "mock-gpt", messages: [], max_tokens: 5 }), (error: unknown) => {
      assert.ok(error instanceof RelayError);
      assert.deepEqual([error.status, error.code], [504, "upstream_timeout"]);
      assert.match(error.message, /within 1000 ms/);
      return true;
    });
    assert.ok(performance.now() - started >= 990, "the connect timeout was waited for");
    assert.equal(fake.sent.count, 0);
    const entry = await fake.newest();
    assert.deepEqual([entry.outcome, entry.status, entry.errorCode, entry.cost], ["timeout", 504, "upstream_timeout", 0]);
    const [usage] = await fake.store.budgetUsage([{ budgetId: "all", period: "total" }]);
    assert.deepEqual([usage!.reserved, usage!.spent], [0, 0]);
  });
});

describe("end to end over loopback", () => {
  let relay: RelayUnderTest;
  let store: Store;
  let stop: () => Promise<void>;
  let silent: Awaited<ReturnType<typeof silentServer>>;
  let dead: number;
  before(async () => {
    silent = await silentServer();
    dead = await closedPort();
    ({ relay, store, stop } = await startMockRelay({
      config: (mockUrl) => ({
        providers: {
          mock: { type: "mock", baseUrl: mockUrl, firstByteTimeoutMs: 5000 },
          silent: { type: "openai", baseUrl: `http://127.0.0.1:${silent.port}/v1`, apiKey: "sk-x", connectTimeoutMs: 500, firstByteTimeoutMs: 300 },
          dead: { type: "openai", baseUrl: `http://127.0.0.1:${dead}/v1`, apiKey: "sk-x", connectTimeoutMs: 500, firstByteTimeoutMs: 300 },
        },
        models: { "mock-gpt": { provider: "mock" }, "silent-gpt": { provider: "silent" }, "dead-gpt": { provider: "dead" } },
      }),
    }));
  });
  after(async () => {
    await stop();
    await silent.close();
  });

  const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 5 });

  test("refused: 502 upstream_unreachable, journaled", async () => {
    const response = await post(relay.url, "/v1/chat/completions", chat("dead-gpt"));
    assert.equal(response.status, 502);
    const error = ((await response.json()) as { error: { code: string } }).error;
    assert.equal(error.code, "upstream_unreachable");
    const id = response.headers.get("x-request-id")!;
    const entry = (await finishedEntries(store, [id])).get(id)!;
    assert.deepEqual([entry.outcome, entry.errorCode], ["upstream_error", "upstream_unreachable"]);
  });

  test("accepts TCP but never answers HTTP: the connect check passes, the first-byte timeout gives 504", async () => {
    const before = silent.accepted();
    const started = performance.now();
    const response = await post(relay.url, "/v1/chat/completions", chat("silent-gpt"));
    assert.equal(response.status, 504);
    const error = ((await response.json()) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, "upstream_timeout");
    assert.match(error.message, /did not answer in time/);
    assert.ok(performance.now() - started < 2500);
    assert.ok(silent.accepted() >= before + 2, "one connection for the check, one for the call");
    const id = response.headers.get("x-request-id")!;
    const entry = (await finishedEntries(store, [id])).get(id)!;
    assert.deepEqual([entry.outcome, entry.errorCode], ["timeout", "upstream_timeout"]);
  });
});
