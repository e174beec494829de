import { JOURNAL_USAGE, wantsHelp } from "./cli-help.ts";
import type { JournalEntry } from "../shared/journal-records.ts";
import type { JournalQuery, Store } from "../storage/store.ts";

/** Thrown for bad command-line input; the message is shown as is. */
export class UsageError extends Error {}

/** A validated `renio journal` command line. */
export type JournalCommand =
  | { readonly sub: "help" }
  | { readonly sub: "list"; readonly query: Omit<JournalQuery, "limit">; readonly limit: number; readonly json: boolean }
  | { readonly sub: "export"; readonly query: Omit<JournalQuery, "limit">; readonly format: "jsonl" | "csv" };

/** Validates `renio journal …` arguments (without `--config`); throws {@link UsageError}. Touches no store. */
export function parseJournalArgs(args: readonly string[], now: number): JournalCommand {
  if (wantsHelp(args)) return { sub: "help" };
  const [sub, ...rest] = args;
  if (sub === "list") {
    const flags = parseFlags(rest, ["since", "until", "key", "request-id", "outcome", "limit", "json"]);
    const limit = flags.limit === undefined ? 50 : positiveInt(flags.limit, "--limit");
    return { sub, query: toQuery(flags, now), limit, json: flags.json !== undefined };
  }
  if (sub === "export") {
    const flags = parseFlags(rest, ["since", "until", "key", "request-id", "outcome", "format"]);
    const format = flags.format;
    if (format !== "jsonl" && format !== "csv") throw new UsageError("--format must be jsonl or csv");
    return { sub, query: toQuery(flags, now), format };
  }
  throw new UsageError(sub === undefined ? "missing subcommand" : `unknown subcommand "${sub}"`);
}

/** Runs a parsed `renio journal` command against an open store; writes lines through `out`. */
export async function executeJournalCommand(command: JournalCommand, store: Store, out: (line: string) => void): Promise<void> {
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
export async function runJournalCommand(args: string[], store: Store, out: (line: string) => void, err: (line: string) => void = out): Promise<number> {
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

/** The one line shown for a usage error of `renio <command>`. */
export function usageLine(command: string, error: Error): string {
  return `renio ${command}: ${error.message} (see renio ${command} --help)`;
}

/** `--name value` / `--name=value` / bare `--flag` (value ""), restricted to `allowed`. */
export function parseFlags(args: readonly string[], allowed: readonly string[]): Record<string, string | undefined> {
  const flags: Record<string, string | undefined> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith("--")) throw new UsageError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
    if (name === "json") flags.json = "";
    else if (eq > 0) flags[name] = arg.slice(eq + 1);
    else if (i + 1 < args.length) flags[name] = args[++i];
    else throw new UsageError(`--${name} needs a value`);
  }
  return flags;
}

/** An ISO time, or a duration back from `now` such as 30m, 2h, 7d. */
export function parseTime(text: string, now: number, flag: string): number {
  const relative = /^(\d+)(s|m|h|d)$/.exec(text);
  if (relative) return now - Number(relative[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as "s" | "m" | "h" | "d"];
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new UsageError(`${flag} must be an ISO time or a duration like 2h or 7d`);
  return time;
}

function toQuery(flags: Record<string, string | undefined>, now: number): Omit<JournalQuery, "limit"> {
  return {
    ...(flags.since !== undefined && { since: parseTime(flags.since, now, "--since") }),
    ...(flags.until !== undefined && { until: parseTime(flags.until, now, "--until") }),
    ...(flags.key !== undefined && { keyId: flags.key }),
    ...(flags["request-id"] !== undefined && { requestId: flags["request-id"] }),
    ...(flags.outcome !== undefined && { outcome: flags.outcome }),
  };
}

function positiveInt(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer`);
  return n;
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
