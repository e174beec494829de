import { driftingRows, reservedDrift, spentDrift, type BooksCheck } from "../budgets/books-check.ts";
import { fromNanos } from "../budgets/budget-amounts.ts";
import type { LedgerStats } from "../journal/ledger.ts";
import type { QuarantineKind } from "../journal/journal-store.ts";
import { family, labelText, sample } from "../observe/prom-text.ts";

/** Most drifting budget rows named on /metrics (their count is always there): bounded label sets. */
const MAX_DRIFT_ROWS = 50;

const KINDS: readonly QuarantineKind[] = ["admission", "completion", "refusal", "unsent"];

/**
 * The journal's health on /metrics: whether it keeps up (`renio_journal_behind`, against
 * `journal.maxLagMs`), the records the database refused (`renio_journal_quarantined_total`), the
 * admissions of unknown outcome still to settle, and the books' invariant as of the last check
 * (`renio_books_*`; absent until a check completed).
 */
export function writeJournalHealth(out: string[], stats: LedgerStats, maxLagMs: number, books: BooksCheck | undefined): void {
  family(out, "renio_journal_behind", "gauge", "1 while the oldest journal record not yet written to the database has waited longer than journal.maxLagMs (/readyz answers 503 meanwhile).");
  sample(out, "renio_journal_behind", "", stats.applyLagMs > maxLagMs ? 1 : 0);
  family(out, "renio_journal_max_lag_seconds", "gauge", "The bound journal.maxLagMs, in seconds.");
  sample(out, "renio_journal_max_lag_seconds", "", maxLagMs / 1000);
  family(out, "renio_journal_quarantined_total", "counter", "Journal records the database refused, kept in the quarantine (renio journal quarantine) by this relay, by record kind.");
  for (const kind of KINDS) sample(out, "renio_journal_quarantined_total", labelText([["kind", kind]]), stats.quarantined.get(kind) ?? 0);
  family(out, "renio_journal_unsettled_admissions", "gauge", "Admissions whose commit outcome was unknown (refused, never sent) waiting to be settled in the database.");
  sample(out, "renio_journal_unsettled_admissions", "", stats.unsettled);
  if (books === undefined) return;
  const drifting = driftingRows(books);
  family(out, "renio_books_drifting_rows", "gauge", "Budget rows whose reserved or spent disagrees with the journal at the last check (0: the books hold).");
  sample(out, "renio_books_drifting_rows", "", drifting.length);
  family(out, "renio_books_drift", "gauge", `Budget row minus journal at the last check, per drifting row (at most ${MAX_DRIFT_ROWS}): side reserved (vs calls holding a reservation) or spent (vs their cost).`);
  for (const row of drifting.slice(0, MAX_DRIFT_ROWS)) {
    for (const [side, nanos] of [["reserved", reservedDrift(row)], ["spent", spentDrift(row)]] as const) {
      if (nanos !== 0) sample(out, "renio_books_drift", labelText([["budget", row.budgetId], ["period", row.period], ["side", side]]), fromNanos(nanos));
    }
  }
  family(out, "renio_books_check_seconds", "gauge", "How long the last check of the books took.");
  sample(out, "renio_books_check_seconds", "", books.seconds);
  family(out, "renio_books_checked_timestamp_seconds", "gauge", "When the last check of the books read its snapshot (Unix time).");
  sample(out, "renio_books_checked_timestamp_seconds", "", books.checkedAt / 1000);
}
