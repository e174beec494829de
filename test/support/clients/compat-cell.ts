import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { costOf } from "../../../src/pricing/cost.ts";
import type { PriceBook } from "../../../src/pricing/price-book.ts";
import type { Store } from "../../../src/storage/store.ts";
import { finishedEntries } from "../relay-calls.ts";
import { ANTHROPIC_KEY, OPENAI_KEY, type AgentUpstream, type Received, type RunScript } from "./agent-upstream.ts";
import type { ToolScript } from "./agent-answers.ts";
import { installedVersion, type ClientDriver, type ClientEndpoint, type ClientResult } from "./client-driver.ts";
import { tempDir, type Sink } from "./client-sandbox.ts";
import { checkTranslated, compareProviderView } from "./compat-compare.ts";

/** One cell of the suite: a client, the model it asks for, and how Renio serves that model for it. */
export interface CompatCell {
  readonly driver: ClientDriver;
  readonly model: string;
  /** The provider behind the model, and whether the client's wire is translated to reach it. */
  readonly provider: "OpenAI" | "Anthropic";
  readonly translated: boolean;
  /** The client's wire format. */
  readonly wire: "openai" | "anthropic";
  /** The tools the scripted provider calls. */
  readonly tools: (workdir: string) => ToolScript;
  readonly fault?: RunScript["fault"];
  /** The client lists the models first and calls what is listed: which calls it makes depends on the listing, not on the direct run's. */
  readonly listing?: true;
}

/** Where the suite's pieces are. */
export interface CompatContext {
  readonly upstream: AgentUpstream;
  readonly sink: Sink;
  /** Renio's base URL and a key of it, and a store on its journal. */
  readonly relay: { readonly url: string; readonly key: string; readonly store: Store };
  readonly prices: PriceBook;
  /** Attempts to leave loopback made by in-process clients so far. */
  readonly fetchAttempts: readonly string[];
}

/** A cell's outcome: its row in the table, its figures, and every problem found (none: compatible). */
export interface CellOutcome {
  readonly row: readonly string[];
  /** Reserved and charged by Renio's journal over the cell's calls through it. */
  readonly reserved: number;
  readonly charged: number;
  readonly problems: string[];
}

/** The table's header. */
export const TABLE_HEADER = ["client", "model → provider", "direct", "through Renio", "client saw", "provider saw", "journal"] as const;

/** Runs the cell's task straight to the scripted providers, then through Renio, and compares. */
export async function runCell(cell: CompatCell, context: CompatContext): Promise<CellOutcome> {
  const { upstream, sink, relay } = context;
  const workdir = tempDir("task");
  writeFileSync(join(workdir, "note.txt"), "renio-note-42\n");
  const attemptsBefore = sink.attempts.length + context.fetchAttempts.length;
  const script: RunScript = { tools: cell.tools(workdir), ...(cell.fault === undefined ? {} : { fault: cell.fault }) };
  const run = async (endpoint: Omit<ClientEndpoint, "home" | "workdir" | "sink" | "model">): Promise<{ result: ClientResult; received: Received[]; home: string }> => {
    const home = tempDir("home");
    upstream.begin(script);
    const result = await cell.driver.run({ ...endpoint, model: cell.model, home, workdir, sink });
    return { result, received: [...upstream.received()], home };
  };
  const direct = await run({ openaiBaseUrl: `${upstream.url}/v1`, anthropicBaseUrl: upstream.url, openaiKey: OPENAI_KEY, anthropicKey: ANTHROPIC_KEY });
  const via = await run({ openaiBaseUrl: `${relay.url}/v1`, anthropicBaseUrl: relay.url, openaiKey: relay.key, anthropicKey: relay.key });

  const problems: string[] = [];
  if (!direct.result.finished) problems.push(`direct: the task did not finish: ${direct.result.detail ?? direct.result.received}`);
  if (!via.result.finished) problems.push(`through Renio: the task did not finish: ${via.result.detail ?? via.result.received}`);
  const clientSaw = direct.result.received === via.result.received && direct.result.received.startsWith("Done: ") ? "same" : "differs";
  if (clientSaw !== "same") problems.push(`the client received ${JSON.stringify(via.result.received)} through Renio, ${JSON.stringify(direct.result.received)} directly`);

  let providerSaw: string;
  if (cell.listing === true) {
    problems.push(...checkTranslated(via.received, cell.wire));
    providerSaw = "each listed model on its provider's wire";
  } else if (cell.translated) {
    problems.push(...checkTranslated(via.received, cell.wire));
    const calls = (list: readonly Received[]) => list.filter((r) => r.method === "POST").length;
    if (calls(direct.received) !== calls(via.received)) problems.push(`model calls: ${calls(direct.received)} directly, ${calls(via.received)} through Renio`);
    providerSaw = `translated to ${cell.provider === "OpenAI" ? "chat/completions" : "messages"}`;
  } else {
    const view = compareProviderView(direct.received, via.received, [direct.home, via.home]);
    problems.push(...view.undocumented);
    providerSaw = view.documented.length === 0 ? "same" : `same but ${view.documented.sort().join(", ")}`;
  }

  const journal = await checkJournal(cell, via.received, context, problems);
  if (sink.attempts.length + context.fetchAttempts.length !== attemptsBefore) problems.push(`the client tried to leave loopback: ${[...sink.attempts, ...context.fetchAttempts].slice(attemptsBefore).join(", ")}`);
  const calls = (list: readonly Received[]) => {
    const count = list.filter((r) => r.method === "POST").length;
    return `${count} call${count === 1 ? "" : "s"}`;
  };
  const verdict = (result: ClientResult, list: readonly Received[]) => `${result.finished ? "finished" : "failed"}, ${calls(list)}`;
  const row = [
    `${cell.driver.name} ${installedVersion(cell.driver.packageName)}`,
    cell.listing === true ? "each model listed → its provider" : `${cell.model} → ${cell.provider}${cell.translated ? " (translated)" : ""}${cell.fault === undefined ? "" : `, ${cell.fault.status} first`}`,
    verdict(direct.result, direct.received),
    verdict(via.result, via.received),
    clientSaw,
    providerSaw,
    journal.summary,
  ];
  return { row, reserved: journal.reserved, charged: journal.charged, problems };
}

/**
 * The journal of the calls through Renio, found by the id Renio sent the provider: each one
 * `ok` with the provider's usage and its price, a scripted fault `upstream_error` charged
 * nothing; none other.
 */
async function checkJournal(cell: CompatCell, via: readonly Received[], context: CompatContext, problems: string[]): Promise<{ summary: string; reserved: number; charged: number }> {
  const calls = via.filter((r) => r.method === "POST");
  const ids = calls.map((r) => r.headers.get("x-request-id") ?? "");
  if (ids.some((id) => id === "")) {
    problems.push("a call reached the provider without Renio's request id");
    return { summary: "missing", reserved: 0, charged: 0 };
  }
  const entries = await finishedEntries(context.relay.store, ids, 10_000);
  let ok = 0;
  let faults = 0;
  let reserved = 0;
  let charged = 0;
  calls.forEach((call, i) => {
    const entry = entries.get(ids[i]!);
    if (entry === undefined) return problems.push(`call ${i + 1}: no journal entry ${ids[i]}`);
    reserved += entry.reservedCost ?? 0;
    charged += entry.cost ?? 0;
    if (call.status !== 200) {
      faults++;
      if (entry.outcome !== "upstream_error" || entry.status !== call.status || (entry.cost ?? 0) !== 0) problems.push(`call ${i + 1}: the provider's ${call.status} is journaled ${entry.outcome} ${entry.status}, cost ${entry.cost}`);
      return;
    }
    if (entry.outcome !== "ok") return problems.push(`call ${i + 1}: journaled ${entry.outcome} (${entry.errorCode}), not ok`);
    ok++;
    const price = context.prices.priceOf(String(call.body?.["model"] ?? cell.model));
    const usage = call.usage;
    if (usage === null) return problems.push(`call ${i + 1}: the provider reported no usage through Renio`);
    const tokens = [entry.inputTokens, entry.cachedInputTokens, entry.outputTokens];
    if (tokens.join() !== [usage.inputTokens, usage.cachedInputTokens, usage.outputTokens].join()) problems.push(`call ${i + 1}: journal tokens ${tokens.join("/")}, provider usage ${usage.inputTokens}/${usage.cachedInputTokens}/${usage.outputTokens}`);
    if (price === undefined || entry.cost !== costOf(usage, price)) problems.push(`call ${i + 1}: journal cost ${entry.cost}, the provider's usage priced ${price === undefined ? "(no price)" : costOf(usage, price)}`);
  });
  const summary = `${ok} ok${faults > 0 ? `, ${faults} upstream_error charged 0` : ""}; tokens and cost = usage`;
  return { summary, reserved, charged };
}
