import type { Kysely } from "kysely";
import { booksSums, type BooksCheck } from "../../budgets/books-check.ts";
import type { Database } from "../store-schema.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import { inWriteTransaction } from "../statements/store-transaction.ts";

/** Finished entries read per page while summing their cost. */
const PAGE = 5000;

/**
 * Reads the books in one consistent snapshot (PostgreSQL: a repeatable-read, read-only
 * transaction; SQLite: one read transaction, which sees one WAL snapshot), so calls admitted
 * and settled meanwhile are either wholly in it or wholly not: every write moves an entry and
 * its budget rows in one transaction. Its cost: the budget rows, the entries holding a
 * reservation (through the outcome and reconcile indexes), and one pass over the finished
 * entries with charges, in pages by id (a few µs each, most of it parsing their charges).
 */
export function checkBooksIn(db: Kysely<Database>, dialect: StoreDialect): Promise<BooksCheck> {
  const began = performance.now();
  return inWriteTransaction(
    db,
    dialect,
    async (trx) => {
      const checkedAt = Date.now();
      const sums = booksSums();
      for (const row of await trx.selectFrom("budget_usage").select(["budget_id", "period", "reserved_nanos", "spent_nanos", "pruned_nanos"]).execute()) {
        sums.row(row.budget_id, row.period, Number(row.reserved_nanos), Number(row.spent_nanos), Number(row.pruned_nanos));
      }
      // In flight (started), and interrupted entries pending reconciliation: both still hold their reservations.
      for (const entry of await trx.selectFrom("journal_entry").select("reserved_charges").where("outcome", "=", "started").where("reserved_charges", "is not", null).execute()) {
        sums.open(entry.reserved_charges);
      }
      for (const entry of await trx.selectFrom("journal_entry").select("reserved_charges").where("reconcile", "=", "pending").execute()) sums.open(entry.reserved_charges);
      let after = "";
      for (;;) {
        const page = await trx
          .selectFrom("journal_entry")
          .select(["id", "cost", "reserved_charges"])
          .where("id", ">", after)
          .where("reserved_charges", "is not", null)
          .where("outcome", "<>", "started")
          .where((eb) => eb.or([eb("reconcile", "is", null), eb("reconcile", "<>", "pending")]))
          .orderBy("id")
          .limit(PAGE)
          .execute();
        for (const entry of page) sums.finished(entry.reserved_charges, entry.cost === null ? null : Number(entry.cost));
        if (page.length < PAGE) break;
        after = page[page.length - 1]!.id;
      }
      return sums.done(checkedAt, began);
    },
    dialect.beginSnapshot,
  );
}
