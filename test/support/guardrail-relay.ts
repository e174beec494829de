import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { validateConfig } from "../../src/config/config-load.ts";
import type { Config } from "../../src/config/config-schema.ts";
import type { Store } from "../../src/storage/store.ts";
import { guardrailAnswer, type GuardrailAnswer } from "./guardrail-upstream.ts";
import { openStore } from "./relay-calls.ts";
import { startRelay, TEST_KEY, type RelayUnderTest } from "./relay-harness.ts";
import { startAnsweringUpstream, type ScriptedUpstream } from "./scripted-upstream.ts";

/**
 * A relay for the guardrail tests, in this process on loopback: OpenAI-style targets in the EU
 * (`gpt`) and the US (`gpt-us`), an Anthropic target in the EU (`claude`), and `claude-as-gpt`
 * (OpenAI callers translated to it), all served by one scripted upstream whose answer each test
 * sets (guardrail-upstream.ts). SQLite journal with bodies, a store reading it, and the official
 * SDKs pointed at it.
 */
export interface GuardrailRig {
  readonly upstream: ScriptedUpstream;
  /** What the upstream answers next (a test changes it). */
  readonly answer: GuardrailAnswer;
  readonly relay: RelayUnderTest;
  readonly store: Store;
  readonly openai: OpenAI;
  readonly anthropic: Anthropic;
  /** The raw config sections the relay was started with (a reload test changes them). */
  readonly raw: Record<string, unknown>;
  stop(): Promise<void>;
}

export const ADMIN_TOKEN = "guardrail-admin-token-0123456789";

/** The config of the rig's relay with `guardrails` (and `extra` sections replacing the defaults). */
export function rigConfig(upstreamUrl: string, guardrails: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN, metricsToken: "guardrail-metrics-token-0123" },
    providers: {
      eu: { type: "openai", baseUrl: `${upstreamUrl}/v1`, apiKey: "sk-upstream-eu-0000", region: "eu" },
      us: { type: "openai", baseUrl: `${upstreamUrl}/v1`, apiKey: "sk-upstream-us-0000", region: "us" },
      claude: { type: "anthropic", baseUrl: upstreamUrl, apiKey: "sk-upstream-claude-0000", region: "eu" },
    },
    models: {
      gpt: { provider: "eu", model: "gpt-4o" },
      "gpt-us": { provider: "us", model: "gpt-4o" },
      claude: { provider: "claude", model: "claude-sonnet-4-5" },
      "claude-as-gpt": { provider: "claude", model: "claude-sonnet-4-5", translate: true },
    },
    keys: [{ id: "test", secret: TEST_KEY, project: "tests" }],
    journal: { bodies: "full" },
    guardrails,
    ...extra,
  };
}

/** Starts the rig; the relay's loadConfig reads `raw` again (a reload test changes it, then reloads). */
export async function startGuardrailRig(guardrails: unknown, extra: Record<string, unknown> = {}): Promise<GuardrailRig> {
  const answer: GuardrailAnswer = { text: "You said: {{last}}", pieceSize: 3 };
  const upstream = await startAnsweringUpstream((request) => guardrailAnswer(request, answer));
  const raw = rigConfig(upstream.url, guardrails, extra);
  let relay: RelayUnderTest;
  let store: Store;
  try {
    const dir = { path: "" };
    relay = await startRelay(upstream.url, raw, { loadConfig: () => Promise.resolve(validateConfig({ ...raw, storage: { type: "sqlite", path: dir.path } }, {}) as Config) });
    dir.path = (relay.config.storage as { path: string }).path;
    store = await openStore(relay.config.storage);
  } catch (error) {
    await upstream.stop();
    throw error;
  }
  return {
    upstream,
    answer,
    relay,
    store,
    raw,
    openai: new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 10_000 }),
    anthropic: new Anthropic({ apiKey: TEST_KEY, baseURL: relay.url, maxRetries: 0, timeout: 10_000 }),
    async stop() {
      try {
        await store.close();
        await relay.stop();
      } finally {
        await upstream.stop();
      }
    },
  };
}
