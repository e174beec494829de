import process from "node:process";
import type { QuarantinedRecord } from "../journal/journal-store.ts";

/*
 * What a running relay reports on stderr when a background task fails: one line each, the
 * message only (no stack, no request data, no secrets).
 */

/** A failed read of the stored budgets (the relay keeps the budgets it had and retries at the next poll). */
export function reportBudgetSyncError(error: unknown): void {
  process.stderr.write(`renio: budgets: ${error instanceof Error ? error.message : String(error)}\n`);
}

/** A failed span export, on stderr (one line). */
export function reportTracingError(message: string): void {
  process.stderr.write(`renio: tracing: ${message}\n`);
}

/** A check of the books that could not run (the store did not answer), on stderr (message only). */
export function reportBooksError(error: unknown): void {
  process.stderr.write(`renio: books: cannot check the books: ${error instanceof Error ? error.message : String(error)}\n`);
}

/** A failed claim or settle of the alert outbox, on stderr (message only). */
export function reportAlertError(error: unknown): void {
  process.stderr.write(`renio: alerts: ${error instanceof Error ? error.message : String(error)}\n`);
}

/** A failed admission-log write or database apply, on stderr (message only: no stack, no request data). */
export function reportJournalError(error: unknown): void {
  process.stderr.write(`renio: journal: ${error instanceof Error ? error.message : String(error)}\n`);
}

/** A journal record the database refused, kept in the quarantine: one line on stderr (ids and the store's code, no record content). */
export function reportQuarantined(record: QuarantinedRecord): void {
  const fate = record.written ? "its safe form was journaled" : "it is not in the journal";
  process.stderr.write(`renio: journal: the database refused the ${record.kind} record of entry ${record.entryId} (${record.errorCode}); quarantined, ${fate} (renio journal quarantine)\n`);
}

/** Polls for changed keys failing (the keyring keeps the keys it has), or (null) working again, on stderr. */
export function reportKeysError(error: unknown | null): void {
  if (error === null) process.stderr.write("renio: keys: refreshing stored keys again\n");
  else process.stderr.write(`renio: keys: cannot refresh stored keys (retrying every server.keyRefreshMs): ${error instanceof Error ? error.message : String(error)}\n`);
}
