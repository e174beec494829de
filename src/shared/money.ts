/**
 * Money on its way out. Amounts are kept as integer nano-units (billionths of the currency unit):
 * budget rows hold them, costs are rounded up to them (pricing/cost.ts), and sums are made of
 * them, never of binary fractions. Everything Renio prints (JSON, tables, headers, messages,
 * metrics, logs) is made from them here: text is the exact decimal; a JSON number is
 * `fromNanos(nanos)`, whose shortest form is that decimal for amounts up to 2^23 (8,388,608)
 * units. Integers stay exact up to 2^53 nanos (9,007,199.254740991 units), which bounds a
 * budget's limit.
 */

/** Nano-units per currency unit. */
export const NANOS_PER_UNIT = 1_000_000_000;

/** A currency amount as the nearest integer count of billionths. */
export function toNanos(amount: number): number {
  return Math.round(amount * NANOS_PER_UNIT);
}

/** Integer billionths as a currency amount (the double nearest the exact decimal). */
export function fromNanos(nanos: number): number {
  return nanos / NANOS_PER_UNIT;
}

/** The sum of currency amounts, added as integer billionths: 0.1 + 0.2 is 0.3. */
export function sumAmounts(amounts: Iterable<number>): number {
  let nanos = 0;
  for (const amount of amounts) nanos += toNanos(amount);
  return fromNanos(nanos);
}

/** The exact decimal text of integer billionths, without trailing zeros: `0.057352`, `12`, `-0.000000001`. */
export function formatNanos(nanos: number): string {
  const whole = Math.trunc(nanos / NANOS_PER_UNIT);
  const fraction = Math.abs(nanos - whole * NANOS_PER_UNIT);
  const sign = nanos < 0 && whole === 0 ? "-" : "";
  const digits = fraction === 0 ? "" : `.${String(fraction).padStart(9, "0").replace(/0+$/, "")}`;
  return `${sign}${whole}${digits}`;
}

/** A currency amount as exact decimal text, rounded to the billionth it is kept to. */
export function formatAmount(amount: number): string {
  return formatNanos(toNanos(amount));
}
