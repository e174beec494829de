import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { createPriceBook } from "../../../src/pricing/price-book.ts";
import { ANTHROPIC_KEY, OPENAI_KEY, startAgentUpstream, type AgentUpstream } from "../../support/clients/agent-upstream.ts";
import { claudeCode } from "../../support/clients/claude-code.ts";
import { WEATHER } from "../../support/clients/client-driver.ts";
import { guardFetch, startSink, type Sink } from "../../support/clients/client-sandbox.ts";
import { codex } from "../../support/clients/codex.ts";
import { runCell, TABLE_HEADER, type CellOutcome, type CompatCell } from "../../support/clients/compat-cell.ts";
import { langChain } from "../../support/clients/langchain.ts";
import { mastra } from "../../support/clients/mastra.ts";
import { modelDiscovery } from "../../support/clients/model-discovery.ts";
import { openAiAgents } from "../../support/clients/openai-agents.ts";
import { vercelAi } from "../../support/clients/vercel-ai.ts";
import { TEST_KEY } from "../../support/relay-harness.ts";
import { openRelay, type RelayWithStore } from "../../support/with-relay.ts";

/**
 * The client-compatibility suite: real coding agents and SDKs from npm (pinned in
 * package.json), each task run twice, straight to a scripted upstream playing OpenAI and
 * Anthropic, then through Renio under a strict budget, and compared (docs/clients.md).
 * Loopback only: every client's base URL is set, telemetry and update checks are off, and any
 * attempt to reach another host is refused and fails the cell.
 */

// Mastra reads this when it loads.
process.env.MASTRA_TELEMETRY_DISABLED = "1";

const CLAUDE = "claude-sonnet-4-5";
/** The OpenAI reasoning model (GPT-5: `max_completion_tokens`, reasoning tokens). */
const GPT5 = "gpt-5";
const GPT41 = "gpt-4.1";

/** The tools the scripted provider calls: Claude Code's Read on the task's note, Codex's get_goal, the SDKs' get_weather. */
const codingTools = (workdir: string) => [{ name: "Read", arguments: { file_path: join(workdir, "note.txt") } }, { name: "get_goal", arguments: {} }];
const weatherTools = () => [{ name: WEATHER.name, arguments: WEATHER.arguments }];

const CELLS: CompatCell[] = [
  { driver: claudeCode, model: CLAUDE, provider: "Anthropic", translated: false, wire: "anthropic", tools: codingTools },
  { driver: claudeCode, model: GPT5, provider: "OpenAI", translated: true, wire: "anthropic", tools: codingTools },
  { driver: claudeCode, model: CLAUDE, provider: "Anthropic", translated: false, wire: "anthropic", tools: codingTools, fault: { status: 529, count: 1 } },
  { driver: codex, model: GPT5, provider: "OpenAI", translated: false, wire: "openai", tools: codingTools },
  { driver: openAiAgents("responses", false), model: GPT5, provider: "OpenAI", translated: false, wire: "openai", tools: weatherTools },
  { driver: openAiAgents("chat", true), model: GPT41, provider: "OpenAI", translated: false, wire: "openai", tools: weatherTools },
  { driver: openAiAgents("chat", false), model: CLAUDE, provider: "Anthropic", translated: true, wire: "openai", tools: weatherTools },
  { driver: langChain("openai", true), model: GPT41, provider: "OpenAI", translated: false, wire: "openai", tools: weatherTools },
  { driver: langChain("openai", false), model: GPT41, provider: "OpenAI", translated: false, wire: "openai", tools: weatherTools, fault: { status: 500, count: 1 } },
  { driver: langChain("openai", true), model: CLAUDE, provider: "Anthropic", translated: true, wire: "openai", tools: weatherTools },
  { driver: langChain("anthropic", true), model: CLAUDE, provider: "Anthropic", translated: false, wire: "anthropic", tools: weatherTools },
  { driver: vercelAi("openai", true), model: GPT5, provider: "OpenAI", translated: false, wire: "openai", tools: weatherTools },
  { driver: vercelAi("anthropic", false), model: CLAUDE, provider: "Anthropic", translated: false, wire: "anthropic", tools: weatherTools },
  { driver: mastra(false), model: GPT5, provider: "OpenAI", translated: false, wire: "openai", tools: weatherTools },
  { driver: mastra(true), model: CLAUDE, provider: "Anthropic", translated: true, wire: "openai", tools: weatherTools },
  { driver: modelDiscovery, model: CLAUDE, provider: "Anthropic", translated: false, wire: "anthropic", tools: weatherTools, listing: true },
];

let upstream: AgentUpstream;
let sink: Sink;
let opened: RelayWithStore;
let guard: ReturnType<typeof guardFetch>;
const outcomes: Array<{ cell: CompatCell; outcome: CellOutcome }> = [];
const prices = createPriceBook(new Map());

before(async () => {
  upstream = await startAgentUpstream();
  sink = await startSink();
  opened = await openRelay(upstream.url, {
    providers: {
      openai: { type: "openai", baseUrl: `${upstream.url}/v1`, apiKey: OPENAI_KEY },
      anthropic: { type: "anthropic", baseUrl: upstream.url, apiKey: ANTHROPIC_KEY },
    },
    // Each model serves both wires: callers of the other one are translated.
    models: { [GPT5]: { provider: "openai", translate: true }, [GPT41]: { provider: "openai" }, [CLAUDE]: { provider: "anthropic", translate: true } },
    budget: { mode: "strict", defaultOutputTokens: 16_000 },
    budgets: [{ id: "team-day", scope: "total", period: "day", limit: 100 }],
  });
  guard = guardFetch();
});

after(async () => {
  guard.restore();
  await opened.stop();
  await sink.stop();
  await upstream.stop();
});

/** The table of the cells run so far, as markdown. */
function table(): string {
  const lines = [`| ${TABLE_HEADER.join(" | ")} |`, `| ${TABLE_HEADER.map(() => "---").join(" | ")} |`];
  for (const { outcome } of outcomes) lines.push(`| ${outcome.row.join(" | ")} |`);
  return lines.join("\n");
}

describe("clients through Renio exactly as if direct", () => {
  for (const cell of CELLS) {
    const target = cell.listing === true ? "each model listed" : `${cell.model} → ${cell.provider}${cell.translated ? " (translated)" : ""}`;
    const name = `${cell.driver.name} · ${target}${cell.fault === undefined ? "" : ` · the provider answers ${cell.fault.status} first`}`;
    test(name, async () => {
      const outcome = await runCell(cell, { upstream, sink, relay: { url: opened.relay.url, key: TEST_KEY, store: opened.store }, prices, fetchAttempts: guard.attempts });
      outcomes.push({ cell, outcome });
      assert.deepEqual(outcome.problems, []);
    });
  }

  test("the table (client × direct / through Renio), as docs/clients.md shows it", () => {
    const rendered = table();
    const figures = outcomes.map(({ outcome }) => `${outcome.row[0]} · ${outcome.row[1]}: reserved ${outcome.reserved.toFixed(4)} USD, charged ${outcome.charged.toFixed(6)} USD`);
    console.log(`\n${rendered}\n\n${figures.join("\n")}\n`);
    assert.equal(outcomes.length, CELLS.length, "every cell ran");
    const docs = readFileSync(new URL("../../../docs/clients.md", import.meta.url), "utf8");
    assert.ok(docs.includes(rendered), "docs/clients.md shows the table the suite printed above; paste it there");
  });
});
