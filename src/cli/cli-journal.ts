import type { JournalEntry } from "../shared/journal-records.ts";
import type { JournalQuery, JournalReader } from "../storage/store.ts";
import { CONFIG_OPTION, durationMs, parseSubcommand, usageLine, UsageError } from "./cli-args.ts";
import { JOURNAL_USAGE, wantsHelp } from "./cli-help.ts";

/** A validated `renio journal` command line; `configPath` is its `--config FILE`, if any. */
export type JournalCommand =
  | { readonly sub: "help" }
  | { readonly sub: "list"; readonly configPath: string | undefined; readonly query: Omit<JournalQuery, "limit">; readonly limit: number; readonly json: boolean }
  | { readonly sub: "export"; readonly configPath: string | undefined; readonly query: Omit<JournalQuery, "limit">; readonly format: "jsonl" | "csv" };

const FILTERS = {
  config: CONFIG_OPTION,
  since: { type: "string" },
  until: { type: "string" },
  key: { type: "string" },
  "request-id": { type: "string" },
  outcome: { type: "string" },
} as const;
const LIST_OPTIONS = { ...FILTERS, limit: { type: "integer", min: 1, default: 50 }, json: { type: "boolean" } } as const;
const EXPORT_OPTIONS = { ...FILTERS, format: { type: "string", oneOf: ["jsonl", "csv"], required: true } } as const;

/** Validates `renio journal …` arguments; throws {@link UsageError}. Touches no store. */
export function parseJournalArgs(args: readonly string[], now: number): JournalCommand {
  if (wantsHelp(args)) return { sub: "help" };
  const line = parseSubcommand(args, { list: LIST_OPTIONS, export: EXPORT_OPTIONS });
  if (line.sub === "list") {
    const { values } = line;
    return { sub: "list", configPath: values.config, query: toQuery(values, now), limit: values.limit, json: values.json };
  }
  const { values } = line;
  return { sub: "export", configPath: values.config, query: toQuery(values, now), format: values.format };
}

/** Runs a parsed `renio journal` command against an open store; writes lines through `out`. */
export async function executeJournalCommand(command: JournalCommand, store: JournalReader, out: (line: string) => void): Promise<void> {
  if (command.sub === "help") {
    out(JOURNAL_USAGE);
    return;
  }
  if (command.sub === "list") {
    const page = await store.listJournal({ ...command.query, limit: command.limit });
    if (command.json) out(JSON.stringify(page.entries, null, 2));
    else printTable(page.entries, out);
    return;
  }
  const { format, query } = command;
  if (format === "csv") out(columns.join(","));
  let cursor: string | undefined;
  do {
    const page = await store.listJournal({ ...query, limit: 1000, cursor });
    for (const entry of page.entries) out(format === "jsonl" ? JSON.stringify(entry) : columns.map((c) => csvCell(entry[c])).join(","));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/**
 * `renio journal list|export` against an open store. Output goes to `out`, a usage
 * error as one line to `err` (default `out`); returns the exit code (0 ok, 2 bad arguments).
 */
export async function runJournalCommand(args: string[], store: JournalReader, out: (line: string) => void, err: (line: string) => void = out): Promise<number> {
  let command: JournalCommand;
  try {
    command = parseJournalArgs(args, Date.now());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(usageLine("journal", error));
    return 2;
  }
  await executeJournalCommand(command, store, out);
  return 0;
}

/** An ISO time, or a duration back from `now` such as 30m, 2h, 7d. */
export function parseTime(text: string, now: number, flag: string): number {
  const back = durationMs(text);
  if (back !== undefined) return now - back;
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new UsageError(`${flag} must be an ISO time or a duration like 2h or 7d`);
  return time;
}

function toQuery(values: { readonly [K in keyof typeof FILTERS]?: string }, now: number): Omit<JournalQuery, "limit"> {
  return {
    ...(values.since !== undefined && { since: parseTime(values.since, now, "--since") }),
    ...(values.until !== undefined && { until: parseTime(values.until, now, "--until") }),
    ...(values.key !== undefined && { keyId: values.key }),
    ...(values["request-id"] !== undefined && { requestId: values["request-id"] }),
    ...(values.outcome !== undefined && { outcome: values.outcome }),
  };
}

const columns: readonly (keyof JournalEntry)[] = [
  "id", "receivedAt", "finishedAt", "requestId", "keyId", "project", "route", "model", "provider", "upstreamModel", "region", "stream",
  "requestBytes", "clientAddress", "outcome", "status", "ttfbMs", "totalMs", "upstreamMs", "inputTokens",
  "cachedInputTokens", "outputTokens", "reservedCost", "cost", "costEstimated", "errorCode", "reconcile", "requestBody", "responseBody",
];

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function printTable(entries: readonly JournalEntry[], out: (line: string) => void): void {
  const header = ["TIME", "ID", "KEY", "MODEL", "REGION", "OUTCOME", "STATUS", "TOTAL_MS", "TOKENS_IN/OUT", "COST"];
  const rows = entries.map((e) => [
    new Date(e.receivedAt).toISOString(),
    e.id,
    e.keyId ?? "-",
    e.model ?? "-",
    e.region ?? "-",
    e.outcome,
    e.status === null ? "-" : String(e.status),
    e.totalMs === null ? "-" : String(Math.round(e.totalMs)),
    e.inputTokens === null ? "-" : `${e.inputTokens + (e.cachedInputTokens ?? 0)}/${e.outputTokens ?? 0}`,
    e.cost === null ? "-" : String(e.cost),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  for (const row of [header, ...rows]) out(row.map((cell, i) => cell.padEnd(widths[i] as number)).join("  ").trimEnd());
  if (rows.length === 0) out("(no entries)");
}
