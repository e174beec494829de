import { z } from "zod";
import { tagName, tagValue } from "./attribution-schema.ts";
import { amount } from "./schema-numbers.ts";
import { idText, nameText } from "./schema-text.ts";

/** Largest budget limit: its billionths must stay an exact integer in a double. */
const MAX_LIMIT = 9_000_000;

/** Which calls a budget covers. */
export const budgetScope = z.union([
  z.literal("total"),
  z.strictObject({ project: nameText() }),
  z.strictObject({ key: nameText() }),
  /** Every project of a team. */
  z.strictObject({ team: nameText() }),
  /** Calls carrying one tag value. */
  z.strictObject({ tag: z.strictObject({ name: tagName, value: tagValue }) }),
  /** A template: each end user of the project gets a budget of its own, created on first use. */
  z.strictObject({ endUser: z.strictObject({ project: nameText() }) }),
]);

/** One budget: in the config's `budgets`, and the body that creates one at run time (admin API). */
export const budgetSchema = z.strictObject({
  id: idText(/^[A-Za-z0-9_.:-]+$/, "use letters, digits, _ . : -"),
  scope: budgetScope,
  period: z.enum(["total", "month", "day"]).default("month"),
  /** Amounts are kept exact to a billionth in 64-bit integers, which bounds a limit. */
  limit: amount.max(MAX_LIMIT, `must be at most ${MAX_LIMIT.toLocaleString("en-US")} (amounts are kept exact to a billionth)`),
  mode: z.enum(["strict", "observe"]).optional(),
  /** When the budget cannot cover a call: `refuse` it (429, the default), or serve it with a cheaper configured `model`, if that one's reservation fits. */
  onExceeded: z.union([z.literal("refuse"), z.strictObject({ model: nameText() })]).optional(),
  /** Webhook alerts when the amount spent (settled) in a period reaches a share of the limit (docs/observability.md). */
  alerts: z
    .strictObject({
      /** Percent of the limit, each fired once per period (default 50, 80, 100). */
      thresholds: z.array(z.number().gt(0).max(1000)).min(1).default([50, 80, 100]),
      /** The id of an `alerts.webhooks` entry. */
      webhook: nameText(),
    })
    .optional(),
});

