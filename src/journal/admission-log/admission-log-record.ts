import { z } from "zod";
import type { BudgetCharge } from "../../budgets/budget-charge.ts";
import { OUTCOMES, type JournalStart } from "../../shared/journal-records.ts";
import type { FinishItem } from "../journal-store.ts";

/**
 * The admission log's record, owned here: its type, `encodeLogRecord` (written by the log
 * ledger) and `decodeLogRecord` (checked when replaying) and `decodeCheckedLogRecord` (applying). One record is one JSON
 * line; segments and their framing are journal/admission-log/log-segments.ts.
 *
 * Format version: every record carries it as its first field, `{"v":1,…}` (6 bytes of a
 * record's few hundred), rather than a header line per segment: records travel without their
 * segment (the database is given batches of lines), and a record read anywhere says how to read
 * it. Records written before the version existed have no `v` and are version 1 (the same
 * shape). Version 2 adds one record, the `unsent` finish (an admission whose write failed,
 * never sent); every other record is still written as version 1, so a Renio reading only
 * version 1 replays a log without an `unsent` record as before, and refuses one with it (naming
 * the version) rather than misreading it. A record of a newer version, or one that does not
 * have the shape of its version, is refused, never misread.
 */

/** The newest version this Renio reads (and writes, for the records that need it). */
export const LOG_RECORD_VERSION = 2;

/**
 * An admission decided outside the database (by the log ledger's in-memory book) and applied
 * to it afterwards.
 */
export interface DecidedAdmission {
  start: JournalStart;
  charges: readonly BudgetCharge[];
  admitted: boolean;
  /** Epoch ms of the decision (the finish time of a refused entry). */
  decidedAt: number;
  /** The relay process that decided it (a replay after a crash keeps the dead process's id). */
  instanceId: string | null;
  /** Refused because a budget is paused (recorded as `budget_paused`); absent otherwise. */
  paused?: true;
}

/** One record of the admission log: an admission, or a completion or refusal. */
export type LogRecord = { admit: DecidedAdmission } | { finish: FinishItem };

/** A line that is not a record this Renio reads; `message` says what is wrong with it. */
export class LogRecordError extends Error {
  override name = "LogRecordError";
}

/** The record as one log line (JSON, newline-terminated), with its format version. */
export function encodeLogRecord(record: LogRecord): string {
  if ("admit" in record) return `{"v":1,"admit":${JSON.stringify(record.admit)}}\n`;
  return `{"v":${record.finish.kind === "unsent" ? 2 : 1},"finish":${JSON.stringify(record.finish)}}\n`;
}

const nullableString = z.string().nullable();
const charges = z.array(
  z.object({ budgetId: z.string(), period: z.string(), limit: z.number(), mode: z.enum(["strict", "observe"]), amount: z.number(), stored: z.literal(true).optional(), downgrade: z.string().optional(), overridden: z.literal(true).optional() }),
);
// What guardrail policies found (absent in records written before the journal recorded them).
const guardrails = z
  .array(
    z.object({
      policy: z.string(),
      on: z.enum(["request", "answer"]),
      detector: z.string(),
      action: z.enum(["block", "redact", "pseudonymise", "log"]),
      count: z.number(),
      at: z.array(z.object({ part: z.string(), start: z.number(), length: z.number() })),
      error: z.string().optional(),
    }),
  );
const start = z.object({
  id: z.string(),
  receivedAt: z.number(),
  requestId: nullableString,
  keyId: nullableString,
  project: nullableString,
  route: z.string(),
  model: nullableString,
  provider: nullableString,
  upstreamModel: nullableString,
  // Absent in records written before the journal recorded regions.
  region: nullableString.optional(),
  stream: z.boolean(),
  requestBytes: z.number(),
  clientAddress: z.string(),
  requestBody: nullableString,
  guardrails: guardrails.nullable().optional(),
  // Absent in records written before the journal recorded who a call is for.
  endUser: nullableString.optional(),
  team: nullableString.optional(),
  tags: z.array(z.tuple([z.string(), z.string()])).nullable().optional(),
  downgradedFrom: nullableString.optional(),
});
const completion = z.object({
  outcome: z.enum(OUTCOMES),
  status: z.number(),
  ttfbMs: z.number().nullable(),
  totalMs: z.number(),
  upstreamMs: z.number().nullable(),
  usage: z.object({ inputTokens: z.number(), cachedInputTokens: z.number(), outputTokens: z.number() }).nullable(),
  cost: z.number().nullable(),
  // Absent in records written before the journal told estimated costs apart.
  costEstimated: z.boolean().optional(),
  // Absent in records written before the response cache, and for calls not served from it.
  savedCost: z.number().nullable().optional(),
  errorCode: nullableString,
  responseBody: nullableString,
  // Absent in records written before the journal recorded attempts (and where the call was served).
  attempts: z
    .array(z.object({ provider: z.string(), upstreamModel: z.string(), model: z.string(), status: z.number().nullable(), errorCode: nullableString, ms: z.number(), cost: z.number().nullable() }))
    .optional(),
  provider: z.string().optional(),
  upstreamModel: z.string().optional(),
  region: z.string().optional(),
  guardrails: guardrails.optional(),
});
const admitRecord: z.ZodType<{ admit: DecidedAdmission }> = z.object({
  admit: z.object({ start, charges, admitted: z.boolean(), decidedAt: z.number(), instanceId: nullableString, paused: z.literal(true).optional() }),
});
const finishRecord: z.ZodType<{ finish: FinishItem }> = z.object({
  finish: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("complete"), id: z.string(), completion, charges, actualCost: z.number(), finishedAt: z.number() }),
    z.object({ kind: z.literal("refuse"), refusal: z.object({ start, status: z.number(), errorCode: z.string() }), finishedAt: z.number() }),
    z.object({ kind: z.literal("unsent"), start, finishedAt: z.number(), fence: z.boolean() }),
  ]),
});

/**
 * Reads one log line (without its newline) read from disk; throws LogRecordError saying what is
 * wrong when it is not a record of a version this Renio reads. The record is returned as
 * written, without its version (fields the schema does not name are kept, not stripped).
 */
export function decodeLogRecord(line: string): LogRecord {
  const value = versionedRecord(line);
  const schema = "admit" in value ? admitRecord : "finish" in value ? finishRecord : undefined;
  if (!schema) throw new LogRecordError("neither an admission nor a finish record");
  const parsed = schema.safeParse(value);
  if (parsed.success) {
    const { v: _version, ...record } = value as { v?: unknown };
    return record as LogRecord;
  }
  const issue = parsed.error.issues[0];
  throw new LogRecordError(`not a valid ${schema === admitRecord ? "admission" : "finish"} record: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
}

/**
 * Reads a line already known to be a record: one this process encoded, or one that passed
 * {@link decodeLogRecord} on replay. Checks the version only, so applying records while
 * serving costs a JSON.parse and no schema walk (a few µs per record on the store thread).
 */
export function decodeCheckedLogRecord(line: string): LogRecord {
  return versionedRecord(line) as LogRecord;
}

function versionedRecord(line: string): object {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new LogRecordError("not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new LogRecordError("not a JSON object");
  const version = (value as { v?: unknown }).v ?? 1;
  if (version !== 1 && version !== LOG_RECORD_VERSION) {
    throw new LogRecordError(
      typeof version === "number" && Number.isInteger(version) && version > LOG_RECORD_VERSION
        ? `record format version ${version} is newer than this Renio reads (${LOG_RECORD_VERSION}); upgrade Renio`
        : `unknown record format version ${JSON.stringify(version)} (this Renio reads ${LOG_RECORD_VERSION})`,
    );
  }
  return value;
}
