import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateConfig } from "../../src/config/config-load.ts";
import type { Config } from "../../src/config/config-schema.ts";
import { startRelayService, type RelayService, type RelayServiceOptions } from "../../src/app/relay-service.ts";
import { mockServerFetch } from "../../src/providers/mock/mock-serve.ts";
import { createMock, type Mock, type MockOptions } from "../../src/providers/mock/mock-server.ts";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import type { Runtime, Server } from "../../src/runtime/runtime.ts";

/** The key every harness relay accepts. */
export const TEST_KEY = "sk-renio-test-key-0001";

/** A mock provider listening on a loopback socket. */
export interface MockServer {
  readonly mock: Mock;
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts the mock on a free loopback port (served as `renio mock` serves it: `reset` drops the connection). */
export async function startMockServer(options: Partial<MockOptions> = {}): Promise<MockServer> {
  const runtime = await currentRuntime();
  const mock = createMock({ latencyMs: 2, chunkIntervalMs: 1, chunks: 8, ...options });
  const server: Server = await runtime.serve({ hostname: "127.0.0.1", port: 0, fetch: mockServerFetch(mock) });
  return { mock, url: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

/** A relay under test with its temp directory. */
export interface RelayUnderTest {
  readonly service: RelayService;
  readonly url: string;
  readonly config: Config;
  readonly dir: string;
  stop(): Promise<void>;
}

/**
 * Starts a relay in this process on a free loopback port, forwarding model `mock-gpt` (and
 * `mock-claude`) to the mock at `mockUrl`, with SQLite in a fresh temp dir. `overrides` is
 * merged over the raw config before validation; `options.clock` drives its rate limits;
 * `options.runtime` replaces the current runtime (e.g. to watch its upstream `fetch`).
 */
export async function startRelay(mockUrl: string, overrides: Record<string, unknown> = {}, options: RelayServiceOptions & { runtime?: Runtime } = {}): Promise<RelayUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), "renio-test-"));
  const raw = {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000 },
    storage: { type: "sqlite", path: join(dir, "renio.db") },
    providers: { mock: { type: "mock", baseUrl: mockUrl, firstByteTimeoutMs: 5000 } },
    models: { "mock-gpt": { provider: "mock" }, "mock-claude": { provider: "mock" } },
    keys: [{ id: "test", secret: TEST_KEY, project: "tests" }],
    ...overrides,
  };
  const config = validateConfig(raw, {});
  // No call log on the test runner's stdout (test/process/call-log.test.ts reads a child's).
  const { runtime = await currentRuntime(), ...serviceOptions } = options;
  const service = await startRelayService(config, runtime, { log: false, ...serviceOptions });
  return {
    service,
    url: service.url,
    config,
    dir,
    async stop() {
      await service.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
