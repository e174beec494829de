import { fromNanos, toNanos } from "./budget-amounts.ts";
import { budgetKey } from "./budget-key.ts";

/**
 * The books' invariant, per budget row: what the row holds reserved equals the reservations of
 * the journal's entries still holding one (in flight, or interrupted and pending
 * reconciliation), and what it holds spent equals the cost of its finished entries plus the
 * cost of those retention deleted. Amounts in exact nano-units of the currency.
 */

/** One budget row and what the journal says it should hold. */
export interface BooksRow {
  budgetId: string;
  period: string;
  reservedNanos: number;
  /** Σ of the reservations on this row of the entries still holding one. */
  journalReservedNanos: number;
  spentNanos: number;
  /** Σ of the cost of the row's finished entries still in the journal. */
  journalSpentNanos: number;
  /** The cost of the row's entries retention deleted (kept on the row). */
  prunedNanos: number;
}

/** One check of the books, read in one consistent snapshot of the store. */
export interface BooksCheck {
  /** Epoch ms the snapshot was read. */
  checkedAt: number;
  /** How long the check took (s). */
  seconds: number;
  /** Entries holding a reservation (in flight or pending reconciliation). */
  openEntries: number;
  /** Finished entries with charges, whose cost was summed. */
  finishedEntries: number;
  rows: BooksRow[];
}

/** What a row holds reserved beyond (or, negative, short of) the journal's reservations. */
export const reservedDrift = (row: BooksRow): number => row.reservedNanos - row.journalReservedNanos;

/** What a row holds spent beyond (or short of) the journal's cost and the cost retention deleted. */
export const spentDrift = (row: BooksRow): number => row.spentNanos - row.prunedNanos - row.journalSpentNanos;

/** The rows whose books do not hold. */
export function driftingRows(check: BooksCheck): BooksRow[] {
  return check.rows.filter((row) => reservedDrift(row) !== 0 || spentDrift(row) !== 0);
}

/** The charges of an entry as stored (`reserved_charges`: JSON `[budgetId, period, nanos][]`); malformed: none. */
export function parseReservedCharges(text: string | null): Array<[string, string, number]> {
  if (!text) return [];
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((c): c is [string, string, number] => Array.isArray(c) && typeof c[0] === "string" && typeof c[1] === "string" && typeof c[2] === "number");
}

/** The sums of a check, built row by row from the store's budget rows and entries. */
export interface BooksSums {
  /** A stored budget row. */
  row(budgetId: string, period: string, reservedNanos: number, spentNanos: number, prunedNanos: number): void;
  /** An entry still holding its reservations. */
  open(reservedCharges: string | null): void;
  /** A finished entry with charges: its cost is spent on each of its rows. */
  finished(reservedCharges: string | null, cost: number | null): void;
  /** The check, as of `checkedAt`, begun at performance.now() `began`. */
  done(checkedAt: number, began: number): BooksCheck;
}

/** Empty sums. A row only the journal names (none stored) shows as drifting. */
export function booksSums(): BooksSums {
  const rows = new Map<string, BooksRow>();
  let openEntries = 0;
  let finishedEntries = 0;
  const rowOf = (budgetId: string, period: string): BooksRow => {
    const key = budgetKey(budgetId, period);
    let row = rows.get(key);
    if (row === undefined) {
      row = { budgetId, period, reservedNanos: 0, journalReservedNanos: 0, spentNanos: 0, journalSpentNanos: 0, prunedNanos: 0 };
      rows.set(key, row);
    }
    return row;
  };
  return {
    row(budgetId, period, reservedNanos, spentNanos, prunedNanos) {
      Object.assign(rowOf(budgetId, period), { reservedNanos, spentNanos, prunedNanos });
    },
    open(reservedCharges) {
      openEntries++;
      for (const [budgetId, period, nanos] of parseReservedCharges(reservedCharges)) rowOf(budgetId, period).journalReservedNanos += nanos;
    },
    finished(reservedCharges, cost) {
      finishedEntries++;
      // Settlement charges each row the call's cost, in nanos rounded as the ledger rounds them.
      const nanos = toNanos(cost ?? 0);
      for (const [budgetId, period] of parseReservedCharges(reservedCharges)) rowOf(budgetId, period).journalSpentNanos += nanos;
    },
    done(checkedAt, began) {
      return { checkedAt, seconds: (performance.now() - began) / 1000, openEntries, finishedEntries, rows: [...rows.values()] };
    },
  };
}

/** One row of a {@link BooksReport}: amounts in the currency. */
export interface BooksReportRow {
  budgetId: string;
  period: string;
  reserved: number;
  journalReserved: number;
  /** reserved − journalReserved. */
  reservedDrift: number;
  spent: number;
  journalSpent: number;
  pruned: number;
  /** spent − pruned − journalSpent. */
  spentDrift: number;
}

/** A check as the admin API (`GET /admin/books`) and `renio budget check --json` show it. */
export interface BooksReport {
  /** Every row holds. */
  ok: boolean;
  checkedAt: string;
  seconds: number;
  openEntries: number;
  finishedEntries: number;
  driftingRows: number;
  rows: BooksReportRow[];
}

/** The report of a check (amounts converted once from exact nanos). */
export function booksReport(check: BooksCheck): BooksReport {
  const drifting = driftingRows(check);
  return {
    ok: drifting.length === 0,
    checkedAt: new Date(check.checkedAt).toISOString(),
    seconds: check.seconds,
    openEntries: check.openEntries,
    finishedEntries: check.finishedEntries,
    driftingRows: drifting.length,
    rows: check.rows.map((row) => ({
      budgetId: row.budgetId,
      period: row.period,
      reserved: fromNanos(row.reservedNanos),
      journalReserved: fromNanos(row.journalReservedNanos),
      reservedDrift: fromNanos(reservedDrift(row)),
      spent: fromNanos(row.spentNanos),
      journalSpent: fromNanos(row.journalSpentNanos),
      pruned: fromNanos(row.prunedNanos),
      spentDrift: fromNanos(spentDrift(row)),
    })),
  };
}
