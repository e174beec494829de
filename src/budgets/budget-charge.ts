/** One amount held against one budget for one period. */
export interface BudgetCharge {
  budgetId: string;
  /** Period the charge falls in: "total", "2026-12" or "2026-12-02". */
  period: string;
  /** Limit of that budget (same currency as all amounts). */
  limit: number;
  /** strict refuses when the amount does not fit; observe only records. */
  mode: "strict" | "observe";
  /** Amount to reserve (the cost's upper bound). */
  amount: number;
  /** Set for a budget created at run time (in the store): its terms in force are read when the call is decided. */
  stored?: true;
  /** The cheaper model a call this budget cannot cover may be served by instead (the budget's onExceeded). */
  downgrade?: string;
  /** The limit is an override's in force (kept over the stored budget's terms). */
  overridden?: true;
}

/** Result of admitting a call. */
export type Admission =
  | {
      admitted: true;
      /** Remaining amount of the tightest budget after the reservation, if any budget applies. */
      remaining?: { budgetId: string; amount: number };
      /** Admitted as the cheaper alternative (a budget could not cover the model asked for). */
      downgraded?: true;
    }
  | {
      admitted: false;
      /** The budget that could not cover the charge. */
      budgetId: string;
      limit: number;
      remaining: number;
      /** Refused because the budget is paused (not for its limit). */
      paused?: true;
    };
