/** Converts a currency amount to the exact integer billionths (nano-units) stored in budget rows. */
export function toNanos(amount: number): number {
  return Math.round(amount * 1e9);
}

/** Converts billionths (nano-units) back to a currency amount. */
export function fromNanos(nanos: number): number {
  return nanos / 1e9;
}
