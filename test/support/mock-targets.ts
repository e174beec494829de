import { after, before, beforeEach } from "node:test";
import OpenAI from "openai";
import type { MockOptions, MockScript } from "../../src/providers/mock/mock-server.ts";
import { mockStats } from "./relay-calls.ts";
import { startMockServer, TEST_KEY, type MockServer } from "./relay-harness.ts";
import { openRelay, type RelayWithStore } from "./with-relay.ts";

/**
 * Several mock providers on loopback sockets, one per routing target, each with its own fault
 * script (set over `POST /_mock/script`) and its own counters, so a test can say which target
 * got which call.
 */
export interface MockTargets {
  readonly servers: Readonly<Record<string, MockServer>>;
  /** `providers` config entries: one `mock` provider per server, at its URL (extra settings merged in). */
  providers(extra?: Readonly<Record<string, Record<string, unknown>>>): Record<string, Record<string, unknown>>;
  /** Sets the fault script of `name` (restarting its call count); `{}` clears it. */
  script(name: string, script: MockScript): Promise<void>;
  /** Model calls `name` received since the last reset. */
  received(name: string): Promise<number>;
  /** Clears every script and counter. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts one mock server per name (answering at once unless `options` say otherwise). */
export async function startMockTargets(names: readonly string[], options: Partial<MockOptions> = {}): Promise<MockTargets> {
  const servers: Record<string, MockServer> = {};
  try {
    for (const name of names) servers[name] = await startMockServer({ latencyMs: 1, chunkIntervalMs: 1, chunks: 4, ...options });
  } catch (error) {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    throw error;
  }
  const serverOf = (name: string): MockServer => {
    const server = servers[name];
    if (server === undefined) throw new Error(`no mock target ${name}`);
    return server;
  };
  const post = async (name: string, path: string, body: unknown): Promise<void> => {
    const response = await fetch(`${serverOf(name).url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path} on ${name}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  return {
    servers,
    providers: (extra = {}) => Object.fromEntries(names.map((name) => [name, { type: "mock", baseUrl: serverOf(name).url, firstByteTimeoutMs: 5000, ...extra[name] }])),
    script: (name, script) => post(name, "/_mock/script", script),
    received: async (name) => (await mockStats(serverOf(name).url)).received,
    async reset() {
      for (const name of names) {
        await post(name, "/_mock/script", {});
        await post(name, "/_mock/reset", {});
      }
    },
    stop: async () => void (await Promise.all(Object.values(servers).map((server) => server.stop()))),
  };
}

/** What {@link routedRelayFixture} sets up, filled in once its `before` hook ran. */
export interface RoutedRelay {
  targets: MockTargets;
  opened: RelayWithStore;
  /** The official client on the relay, its own retries off. */
  openai: OpenAI;
}

/**
 * Models over mock targets a, b and c: primary → secondary → tertiary by fallbacks, and small
 * with a context-window fallback to large (the routing-fallbacks and fallback-permissions suites).
 */
export const FALLBACK_CHAIN_MODELS = {
  primary: { targets: [{ provider: "a", model: "gpt-a" }], fallbacks: ["secondary"] },
  secondary: { targets: [{ provider: "b", model: "gpt-b" }], fallbacks: ["tertiary"] },
  tertiary: { provider: "c", model: "gpt-c" },
  small: { targets: [{ provider: "a", model: "gpt-small" }], contextFallback: "large" },
  large: { provider: "b", model: "gpt-large" },
};

/**
 * Registers a test file's hooks: mock targets `names`, a relay (SQLite, in this process) with
 * the config `config(targets)` returns, an OpenAI client on it; every script and counter
 * cleared before each test; everything stopped after the file.
 */
export function routedRelayFixture(names: readonly string[], config: (targets: MockTargets) => Record<string, unknown>, options: Partial<MockOptions> = {}): RoutedRelay {
  const fixture = {} as RoutedRelay;
  before(async () => {
    fixture.targets = await startMockTargets(names, options);
    fixture.opened = await openRelay(fixture.targets.servers[names[0]!]!.url, config(fixture.targets));
    fixture.openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${fixture.opened.relay.url}/v1`, maxRetries: 0, timeout: 20_000 });
  });
  after(async () => {
    await fixture.opened?.stop();
    await fixture.targets?.stop();
  });
  beforeEach(() => fixture.targets.reset());
  return fixture;
}
