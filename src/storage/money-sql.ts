import { sql, type RawBuilder } from "kysely";

/**
 * The sum of an amount column (currency units, doubles) added as integer billionths, in currency
 * units: exact on SQLite and PostgreSQL, where `sum` of the doubles themselves drifts
 * (0.0573520000000001). Each amount is a whole number of billionths (costs are rounded to them),
 * so rounding each one loses nothing.
 */
export function amountSum(amount: RawBuilder<unknown>): RawBuilder<number> {
  return sql<number>`(coalesce(sum(round((${amount}) * 1000000000)), 0) / 1000000000.0)`;
}
