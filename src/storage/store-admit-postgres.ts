import { CompiledQuery, sql, type Kysely } from "kysely";
import { fromNanos, toNanos } from "../budget/budget-amounts.ts";
import type { Admission, BudgetCharge } from "../budget/budget-charge.ts";
import { budgetKey } from "../budget/budget-key.ts";
import { ENTRY_COLUMNS } from "./hot-statements.ts";
import { entryValues } from "./store-admit.ts";
import { ROLLUP_ENTRY_COLUMNS, rollupInsertFrom } from "./store-rollup.ts";
import type { AdmitItem } from "./store.ts";
import type { Database } from "./store-schema.ts";

/** What the admitted columns of an entry become when its call is refused (see entryValues). */
const REFUSED: Partial<Record<(typeof ENTRY_COLUMNS)[number], string>> = {
  outcome: "'refused'",
  status: "429",
  error_code: "case when d.o_paused then 'budget_paused' else 'budget_exceeded' end",
  finished_at: "$2::bigint",
  reserved_cost: "null",
  reserved_charges: "null",
};

const columnValue = (column: (typeof ENTRY_COLUMNS)[number]): string => {
  const refused = REFUSED[column];
  return refused === undefined ? `e.${column}` : `case when d.o_admitted then e.${column} else ${refused} end`;
};

/**
 * One admission batch on PostgreSQL as ONE statement (autocommit: one round trip, the commit
 * included): `renio_admit` (migration 8, admit-function-postgres.ts) decides and reserves
 * against every budget row in the database, the same statement inserts every entry, started or
 * refused by that decision, and adds the refused ones (finished already) to the hourly rollup
 * (store-rollup.ts). Atomic like the transaction it replaces: if any part fails, nothing is
 * written and the batch fails (fail closed). Built once, on first use (it needs a PostgreSQL
 * Kysely to compile the rollup's part; that part has no parameters).
 */
let admitStatement: string | undefined;

function admitStatementOf(db: Kysely<Database>): string {
  if (admitStatement !== undefined) return admitStatement;
  const rollup = rollupInsertFrom(sql.ref("inserted"), sql`true`, true).compile(db);
  if (rollup.parameters.length > 0) throw new Error("the admission's rollup part must not take parameters");
  admitStatement = `with decided as materialized (select * from renio_admit($1::jsonb, $2::bigint)),
inserted as (
  insert into journal_entry (${ENTRY_COLUMNS.join(", ")})
  select ${ENTRY_COLUMNS.map(columnValue).join(", ")}
    from jsonb_populate_recordset(null::journal_entry, $3::jsonb) with ordinality as e
    join decided d on d.o_item = e.ordinality
  returning ${ROLLUP_ENTRY_COLUMNS.join(", ")}
),
rolled_up as (${rollup.sql})
select o_item, o_admitted, o_charge, o_limit, o_remaining, o_paused from decided order by o_item`;
  return admitStatement;
}

/** A decision as renio_admit returns it (bigints parsed to numbers by the pool). */
interface DecidedRow {
  o_item: number;
  o_admitted: boolean;
  o_charge: number | null;
  o_limit: number | null;
  o_remaining: number | null;
  o_paused: boolean;
}

/**
 * Admits `items` in one statement on `db`'s pool; `knownRows` are budget rows known to exist
 * (the function skips creating them). Resolves with one Admission per item, in order.
 */
export async function admitInOneStatement(
  db: Kysely<Database>,
  items: readonly AdmitItem[],
  knownRows: ReadonlySet<string>,
  now: number,
  instanceId: string | null,
): Promise<Admission[]> {
  const batch = items.map((item) => item.charges.map((charge) => chargeArgument(charge, knownRows)));
  const entries = items.map((item) => ({ ...entryValues(item, { admitted: true }, now), instance_id: instanceId }));
  const query = CompiledQuery.raw(admitStatementOf(db), [JSON.stringify(batch), now, JSON.stringify(entries)]);
  const { rows } = await db.executeQuery<DecidedRow>(query);
  if (rows.length !== items.length) throw new Error(`renio_admit decided ${rows.length} of ${items.length} admissions`);
  return rows.map((row, index) => admissionOf(row, (items[index] as AdmitItem).charges));
}

function chargeArgument(charge: BudgetCharge, knownRows: ReadonlySet<string>) {
  return {
    b: charge.budgetId,
    p: charge.period,
    l: toNanos(charge.limit),
    m: charge.mode,
    a: toNanos(charge.amount),
    s: charge.stored === true,
    n: !knownRows.has(budgetKey(charge.budgetId, charge.period)),
  };
}

function admissionOf(row: DecidedRow, charges: readonly BudgetCharge[]): Admission {
  const charge = row.o_charge === null ? undefined : charges[row.o_charge];
  if (row.o_admitted) return charge === undefined ? { admitted: true } : { admitted: true, remaining: { budgetId: charge.budgetId, amount: fromNanos(row.o_remaining as number) } };
  if (charge === undefined) throw new Error("renio_admit refused a call without naming the budget");
  const limit = row.o_limit === null ? charge.limit : fromNanos(row.o_limit);
  const refused = { admitted: false as const, budgetId: charge.budgetId, limit, remaining: fromNanos(row.o_remaining as number) };
  return row.o_paused ? { ...refused, paused: true } : refused;
}
