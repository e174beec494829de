import type { JournalEntry } from "../shared/journal-records.ts";
import type { JournalQuery, JournalReader, QuarantinedRecord, QuarantineStore } from "../journal/journal-store.ts";
import { durationMs, parseSubcommand, usageLine, UsageError } from "../shared/cli-args.ts";
import { JOURNAL_USAGE, wantsHelp } from "./cli-help.ts";
import { TARGET_OPTIONS, targetFlags, type TargetFlags } from "./cli-target.ts";
import { formatAmount } from "../shared/money.ts";

/** A validated `renio journal` command line; `target` is its `--url` and `--config`. */
export type JournalCommand =
  | { readonly sub: "help" }
  | { readonly sub: "list"; readonly target: TargetFlags; readonly query: Omit<JournalQuery, "limit">; readonly limit: number; readonly json: boolean }
  | { readonly sub: "export"; readonly target: TargetFlags; readonly query: Omit<JournalQuery, "limit">; readonly format: "jsonl" | "csv" }
  | { readonly sub: "show"; readonly target: TargetFlags; readonly id: string; readonly json: boolean }
  | { readonly sub: "quarantine"; readonly target: TargetFlags; readonly since: number | undefined; readonly limit: number; readonly json: boolean };

/** What `renio journal` reads: the journal, and the records the database refused. */
export type JournalCommandStore = Pick<JournalReader, "listJournal"> & Pick<QuarantineStore, "listQuarantine">;

const FILTERS = {
  ...TARGET_OPTIONS,
  since: { type: "string" },
  until: { type: "string" },
  key: { type: "string" },
  "request-id": { type: "string" },
  outcome: { type: "string" },
} as const;
const LIST_OPTIONS = { ...FILTERS, limit: { type: "integer", min: 1, default: 50 }, json: { type: "boolean" } } as const;
const EXPORT_OPTIONS = { ...FILTERS, format: { type: "string", oneOf: ["jsonl", "csv"], required: true } } as const;
const SHOW_OPTIONS = { ...TARGET_OPTIONS, json: { type: "boolean" } } as const;
const QUARANTINE_OPTIONS = { ...TARGET_OPTIONS, since: { type: "string" }, limit: { type: "integer", min: 1, default: 50 }, json: { type: "boolean" } } as const;

/** Validates `renio journal …` arguments; throws {@link UsageError}. Touches no store. */
export function parseJournalArgs(args: readonly string[], now: number): JournalCommand {
  if (wantsHelp(args)) return { sub: "help" };
  const line = parseSubcommand(args, { list: LIST_OPTIONS, export: EXPORT_OPTIONS, show: SHOW_OPTIONS, quarantine: QUARANTINE_OPTIONS }, { show: 1 });
  if (line.sub === "quarantine") {
    const { values } = line;
    return { sub: "quarantine", target: targetFlags(values), since: values.since === undefined ? undefined : parseTime(values.since, now, "--since"), limit: values.limit, json: values.json };
  }
  if (line.sub === "show") {
    const id = line.positionals[0];
    if (id === undefined) throw new UsageError("journal show needs the entry id (from journal list, or a response's x-request-id)");
    return { sub: "show", target: targetFlags(line.values), id, json: line.values.json };
  }
  if (line.sub === "list") {
    const { values } = line;
    return { sub: "list", target: targetFlags(values), query: toQuery(values, now), limit: values.limit, json: values.json };
  }
  const { values } = line;
  return { sub: "export", target: targetFlags(values), query: toQuery(values, now), format: values.format };
}

/** Runs a parsed `renio journal` command against an open store; writes lines through `out` (a missing entry on `err`); returns the exit code. */
export async function executeJournalCommand(command: JournalCommand, store: JournalCommandStore, out: (line: string) => void, err: (line: string) => void = out): Promise<number> {
  if (command.sub === "help") {
    out(JOURNAL_USAGE);
    return 0;
  }
  if (command.sub === "quarantine") {
    const { records } = await store.listQuarantine({ limit: command.limit, ...(command.since === undefined ? {} : { since: command.since }) });
    if (command.json) out(JSON.stringify(records.map((r) => ({ ...r, at: new Date(r.at).toISOString() })), null, 2));
    else printQuarantine(records, out);
    return 0;
  }
  if (command.sub === "show") {
    const [entry] = (await store.listJournal({ id: command.id, limit: 1 })).entries;
    if (entry === undefined) {
      err(`renio journal: no journal entry has the id ${command.id}`);
      return 1;
    }
    if (command.json) out(JSON.stringify(entry, null, 2));
    else printEntry(entry, out);
    return 0;
  }
  if (command.sub === "list") {
    const page = await store.listJournal({ ...command.query, limit: command.limit });
    if (command.json) out(JSON.stringify(page.entries, null, 2));
    else printTable(page.entries, out);
    return 0;
  }
  const { format, query } = command;
  if (format === "csv") out(columns.join(","));
  let cursor: string | undefined;
  do {
    const page = await store.listJournal({ ...query, limit: 1000, cursor });
    for (const entry of page.entries) out(format === "jsonl" ? JSON.stringify(entry) : columns.map((c) => csvCell(entry[c], c)).join(","));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return 0;
}

/**
 * `renio journal list|export` against an open store. Output goes to `out`, a usage
 * error as one line to `err` (default `out`); returns the exit code (0 ok, 2 bad arguments).
 */
export async function runJournalCommand(args: string[], store: JournalCommandStore, out: (line: string) => void, err: (line: string) => void = out): Promise<number> {
  let command: JournalCommand;
  try {
    command = parseJournalArgs(args, Date.now());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(usageLine("journal", error));
    return 2;
  }
  return await executeJournalCommand(command, store, out, err);
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
  "cachedInputTokens", "outputTokens", "reservedCost", "cost", "costEstimated", "errorCode", "reconcile", "requestBody", "responseBody", "attempts", "guardrails",
];

/** The money columns of an export: written as exact decimals. */
const AMOUNT_COLUMNS: ReadonlySet<keyof JournalEntry> = new Set(["reservedCost", "cost"]);

function csvCell(value: unknown, column: keyof JournalEntry): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "object" ? JSON.stringify(value) : typeof value === "number" && AMOUNT_COLUMNS.has(column) ? formatAmount(value) : String(value);
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
    e.cost === null ? "-" : formatAmount(e.cost),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  for (const row of [header, ...rows]) out(row.map((cell, i) => cell.padEnd(widths[i] as number)).join("  ").trimEnd());
  if (rows.length === 0) out("(no entries)");
}

/** The quarantined records, newest first: when, which entry, what kind, the store's code, and whether the journal has its safe form. */
function printQuarantine(records: readonly QuarantinedRecord[], out: (line: string) => void): void {
  const header = ["TIME", "ENTRY", "KIND", "CODE", "JOURNALED", "ERROR"];
  const rows = records.map((r) => [new Date(r.at).toISOString(), r.entryId, r.kind, r.errorCode, r.written ? "safe form" : "no", r.error]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  for (const row of [header, ...rows]) out(row.map((cell, i) => cell.padEnd(widths[i] as number)).join("  ").trimEnd());
  if (rows.length === 0) out("(no quarantined records)");
}

/** One entry, field by field, then its attempts and what guardrail policies found, one per line (`renio journal show`). */
function printEntry(e: JournalEntry, out: (line: string) => void): void {
  const dash = (value: unknown) => (value === null || value === undefined ? "-" : String(value));
  const money = (value: number | null) => (value === null ? "-" : formatAmount(value));
  const fields: Array<[string, string]> = [
    ["id", e.id],
    ["received", new Date(e.receivedAt).toISOString()],
    ["key", `${dash(e.keyId)} (project ${dash(e.project)})`],
    ["route", e.route],
    ["model", dash(e.model)],
    ["served by", e.provider === null ? "-" : `${e.provider} ${dash(e.upstreamModel)} (region ${dash(e.region)})`],
    ["outcome", `${e.outcome} ${dash(e.status)}${e.errorCode === null ? "" : ` ${e.errorCode}`}`],
    ["total ms", e.totalMs === null ? "-" : e.totalMs.toFixed(1)],
    ["tokens in/out", e.inputTokens === null ? "-" : `${e.inputTokens + (e.cachedInputTokens ?? 0)}/${e.outputTokens ?? 0}`],
    ["cost", `${money(e.cost)}${e.costEstimated ? " (estimated)" : ""}, reserved ${money(e.reservedCost)}`],
  ];
  for (const [name, value] of fields) out(`${name.padEnd(14)}${value}`);
  const attempts = e.attempts ?? [];
  out(`attempts      ${attempts.length}`);
  attempts.forEach((a, i) => {
    out(`  ${i + 1}. ${a.provider} ${a.upstreamModel}${a.model === e.model ? "" : ` (fallback ${a.model})`}  status ${dash(a.status)}  ${a.errorCode ?? "served"}  ${a.ms.toFixed(1)} ms  cost ${money(a.cost)}`);
  });
  const findings = e.guardrails ?? [];
  if (findings.length > 0) out(`guardrails    ${findings.length}`);
  findings.forEach((f, i) => {
    const at = f.at.map((p) => `${p.part}@${p.start}+${p.length}`).join(", ");
    out(`  ${i + 1}. ${f.policy} ${f.on} ${f.detector} ${f.action} x${f.count}${at === "" ? "" : `  ${at}`}${f.error === undefined ? "" : `  check ${f.error}`}`);
  });
}
