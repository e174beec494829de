/** Stable composite key of a budget row (one budget in one period). */
export function budgetKey(budgetId: string, period: string): string {
  return `${budgetId}\u0000${period}`;
}
