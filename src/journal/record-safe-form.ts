import type { JournalCompletion, JournalStart } from "../shared/journal-records.ts";
import type { DecidedAdmission, LogRecord } from "./admission-log/admission-log-record.ts";
import type { FinishItem, QuarantineKind } from "./journal-store.ts";

/**
 * The safe form of a journal record the store refused: the same entry, the same money (ids,
 * charges, costs and times unchanged), with every text escaped where the store cannot hold a
 * character (NUL, other control characters, lone surrogates, written as `\uXXXX`), identifiers
 * bounded to {@link MAX_IDENTIFIER} characters (PostgreSQL indexes refuse rows over ~2.7 KB),
 * bodies and attempts left out, and numbers no column takes (a token count beyond 2^53, a
 * status that is not one) dropped. The quarantine keeps the record as it was.
 */

/** Longest identifier (model, key, project, provider, route, …) a safe form keeps. */
export const MAX_IDENTIFIER = 128;

/** Control characters (but tab, newline, carriage return), DEL and lone surrogates. */
const UNSTORABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with every character the store may refuse written as `\uXXXX`, cut to `max` characters (never inside a surrogate pair). */
export function storableText(text: string, max = Infinity): string {
  let out = text.replace(UNSTORABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (out.length > max) {
    let end = max;
    const last = out.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
    out = `${out.slice(0, end)}…`;
  }
  return out;
}

const identifier = (text: string | null): string | null => (text === null ? null : storableText(text, MAX_IDENTIFIER));

function safeStart(start: JournalStart): JournalStart {
  return {
    ...start,
    requestId: identifier(start.requestId),
    keyId: identifier(start.keyId),
    project: identifier(start.project),
    route: storableText(start.route, MAX_IDENTIFIER),
    model: identifier(start.model),
    provider: identifier(start.provider),
    upstreamModel: identifier(start.upstreamModel),
    region: start.region === undefined ? undefined : identifier(start.region),
    clientAddress: storableText(start.clientAddress, MAX_IDENTIFIER),
    requestBody: null,
  };
}

const finiteOrNull = (value: number | null): number | null => (value !== null && Number.isFinite(value) ? value : null);
const count = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;

function safeCompletion(c: JournalCompletion): JournalCompletion {
  const usage = c.usage !== null && count(c.usage.inputTokens) && count(c.usage.cachedInputTokens) && count(c.usage.outputTokens) ? c.usage : null;
  const safe: JournalCompletion = {
    outcome: c.outcome,
    status: Number.isInteger(c.status) && c.status >= 0 && c.status <= 999 ? c.status : 0,
    ttfbMs: finiteOrNull(c.ttfbMs),
    totalMs: Number.isFinite(c.totalMs) ? c.totalMs : 0,
    upstreamMs: finiteOrNull(c.upstreamMs),
    usage,
    cost: finiteOrNull(c.cost),
    errorCode: identifier(c.errorCode),
    responseBody: null,
  };
  if (c.costEstimated !== undefined) safe.costEstimated = c.costEstimated;
  if (c.savedCost !== undefined) safe.savedCost = finiteOrNull(c.savedCost);
  if (c.provider !== undefined) safe.provider = storableText(c.provider, MAX_IDENTIFIER);
  if (c.upstreamModel !== undefined) safe.upstreamModel = storableText(c.upstreamModel, MAX_IDENTIFIER);
  if (c.region !== undefined) safe.region = storableText(c.region, MAX_IDENTIFIER);
  return safe;
}

/** The safe form of a completion, refusal or unsent admission. */
export function safeFinish(item: FinishItem): FinishItem {
  if (item.kind === "complete") return { ...item, completion: safeCompletion(item.completion) };
  if (item.kind === "refuse") return { ...item, refusal: { ...item.refusal, start: safeStart(item.refusal.start), errorCode: storableText(item.refusal.errorCode, MAX_IDENTIFIER) } };
  return { ...item, start: safeStart(item.start) };
}

/** The safe form of an admission decided by the log ledger. */
function safeAdmission(admit: DecidedAdmission): DecidedAdmission {
  return { ...admit, start: safeStart(admit.start) };
}

/** The safe form of an admission-log record. */
export function safeLogRecord(record: LogRecord): LogRecord {
  return "admit" in record ? { admit: safeAdmission(record.admit) } : { finish: safeFinish(record.finish) };
}

/** Which entry a record is about, and what kind of record it is (the quarantine's key). */
export function recordIdentity(record: LogRecord): { entryId: string; kind: QuarantineKind } {
  if ("admit" in record) return { entryId: record.admit.start.id, kind: "admission" };
  const finish = record.finish;
  if (finish.kind === "complete") return { entryId: finish.id, kind: "completion" };
  if (finish.kind === "refuse") return { entryId: finish.refusal.start.id, kind: "refusal" };
  return { entryId: finish.start.id, kind: "unsent" };
}
