import type { MockOptions } from "../../src/providers/mock/mock-server.ts";
import type { Store } from "../../src/storage/store.ts";
import { openStore } from "./relay-calls.ts";
import { startMockServer, startRelay, type MockServer, type RelayUnderTest } from "./relay-harness.ts";

/**
 * The end-to-end fixture: a relay under test (in this process, SQLite in a temp dir; see
 * startRelay) with a store reading its journal, optionally with a mock provider of its own.
 * Stopping closes them in order (store, relay, then the mock).
 */

/** A relay and a store on its journal. */
export interface RelayWithStore {
  readonly relay: RelayUnderTest;
  readonly store: Store;
  stop(): Promise<void>;
}

/** A mock provider, a relay forwarding to it, and a store on the relay's journal. */
export interface MockRelay extends RelayWithStore {
  readonly mock: MockServer;
}

/** Starts a relay forwarding to `upstream` (`config`: raw config sections replacing the harness defaults) and opens a store on its journal. */
export async function openRelay(upstream: string, config: Record<string, unknown> = {}): Promise<RelayWithStore> {
  const relay = await startRelay(upstream, config);
  let store: Store;
  try {
    store = await openStore(relay.config.storage);
  } catch (error) {
    await relay.stop();
    throw error;
  }
  return {
    relay,
    store,
    async stop() {
      try {
        await store.close();
      } finally {
        await relay.stop();
      }
    },
  };
}

/** Options of {@link startMockRelay}. */
export interface MockRelayOptions {
  /** The mock provider's timing, shape and faults. */
  mock?: Partial<MockOptions>;
  /** The relay's config sections as in openRelay, or made from the mock's URL (for providers of its own pointing at it). */
  config?: Record<string, unknown> | ((mockUrl: string) => Record<string, unknown>);
}

/** Starts a mock provider and a relay forwarding to it, with a store on its journal. */
export async function startMockRelay(options: MockRelayOptions = {}): Promise<MockRelay> {
  const mock = await startMockServer(options.mock);
  let opened: RelayWithStore;
  try {
    opened = await openRelay(mock.url, typeof options.config === "function" ? options.config(mock.url) : options.config);
  } catch (error) {
    await mock.stop();
    throw error;
  }
  return {
    mock,
    relay: opened.relay,
    store: opened.store,
    async stop() {
      try {
        await opened.stop();
      } finally {
        await mock.stop();
      }
    },
  };
}

/** Runs `fn` with a relay forwarding to `upstream` (see openRelay), stopping it however `fn` ends. */
export async function withRelay<T>(upstream: string, config: Record<string, unknown>, fn: (opened: RelayWithStore) => Promise<T>): Promise<T> {
  const opened = await openRelay(upstream, config);
  try {
    return await fn(opened);
  } finally {
    await opened.stop();
  }
}
