import { z } from "zod";
import { tagName, tagValue } from "./attribution-schema.ts";
import { amount } from "./schema-numbers.ts";
import { idText, nameText } from "./schema-text.ts";

/** Largest budget limit: its billionths must stay an exact integer in a double. */
const MAX_LIMIT = 9_000_000;

/** Which calls a budget covers. */
export const budgetScope = z.union([
  z.literal("total"),
  z.strictObject({ project: nameText().describe("the project whose keys' calls count") }),
  z.strictObject({ key: nameText().describe("the key whose calls count") }),
  /** Every project of a team. */
  z.strictObject({ team: nameText().describe("the team (`teams[]`) whose projects' calls count") }),
  /** Calls carrying one tag value. */
  z.strictObject({ tag: z.strictObject({ name: tagName.describe("the tag; a key must allow it (`keys[].tags.allow`)"), value: tagValue.describe("the tag; a key must allow it (`keys[].tags.allow`)") }).describe("calls carrying this tag") }),
  /** A template: each end user of the project gets a budget of its own, created on first use. */
  z.strictObject({ endUser: z.strictObject({ project: nameText().describe("the project whose end users each get the budget") }).describe("a per-end-user template: every end user of the project gets this budget, created on its first call") }),
]);

/** One budget: in the config's `budgets`, and the body that creates one at run time (admin API). */
export const budgetSchema = z.strictObject({
  id: idText(/^[A-Za-z0-9_.:-]+$/, "use letters, digits, _ . : -").describe("the budget's name"),
  scope: budgetScope.describe("`\"total\"` (every call), `{\"project\": P}`, `{\"key\": ID}`, `{\"team\": ID}`, `{\"tag\": {\"name\": N, \"value\": V}}`, or `{\"endUser\": {\"project\": P}}` (a budget of its own for each end user of P) (Who spends)"),
  period: z.enum(["total", "month", "day"]).default("month").describe("`total` (never resets), `month` or `day`; calendar periods in UTC"),
  /** Amounts are kept exact to a billionth in 64-bit integers, which bounds a limit. */
  limit: amount.max(MAX_LIMIT, `must be at most ${MAX_LIMIT.toLocaleString("en-US")} (amounts are kept exact to a billionth)`).describe("the ceiling, in `budget.currency` (at most 9,000,000: amounts are exact to a billionth)"),
  mode: z.enum(["strict", "observe"]).optional().describe("`strict` or `observe`"),
  /** When the budget cannot cover a call: `refuse` it (429, the default), or serve it with a cheaper configured `model`, if that one's reservation fits. */
  onExceeded: z.union([z.literal("refuse"), z.strictObject({ model: nameText().describe("the public model name that serves the call instead") })]).optional().describe("when the budget cannot cover a call: `\"refuse\"` (429), or `{\"model\": NAME}`: serve the call with that cheaper configured model if its reservation fits every budget (A cheaper model instead of a refusal)"),
  /** Webhook alerts when the amount spent (settled) in a period reaches a share of the limit (docs/observability.md). */
  alerts: z
    .strictObject({
      /** Percent of the limit, each fired once per period (default 50, 80, 100). */
      thresholds: z.array(z.number().gt(0).max(1000)).min(1).default([50, 80, 100]).describe("percentages of the limit"),
      /** The id of an `alerts.webhooks` entry. */
      webhook: nameText().describe("the id of an `alerts.webhooks[]` entry"),
    })
    .optional().describe("webhook alerts when spend reaches a share of the limit (Alerts)"),
});

