import type { BudgetCharge } from "../../src/budgets/budget-charge.ts";
import type { JournalCompletion, JournalStart } from "../../src/shared/journal-records.ts";
import { newEntryId } from "../../src/shared/entry-id.ts";

/**
 * The journal records tests hand to a ledger or a store: one builder each, so a field added
 * to a record is added here once.
 */

/** A chat call's start record: a fresh id, received now, key k1 of project p1 (`overrides` replace fields). */
export function journalStart(overrides: Partial<JournalStart> = {}): JournalStart {
  return {
    id: newEntryId(),
    receivedAt: Date.now(),
    requestId: null,
    keyId: "k1",
    project: "p1",
    route: "/v1/chat/completions",
    model: "gpt-x",
    provider: "mock",
    upstreamModel: "gpt-x",
    stream: false,
    requestBytes: 100,
    clientAddress: "127.0.0.1",
    requestBody: null,
    ...overrides,
  };
}

/** A strict charge of `amount` on budget b1 (period total, limit 1) unless `overrides` say otherwise. */
export function budgetCharge(amount: number, overrides: Partial<Omit<BudgetCharge, "amount">> = {}): BudgetCharge {
  return { budgetId: "b1", period: "total", limit: 1, mode: "strict", ...overrides, amount };
}

/** A call answered 200 with 10 input (2 cached) and 20 output tokens, costing 0.2 (`overrides` replace fields). */
export function okCompletion(overrides: Partial<JournalCompletion> = {}): JournalCompletion {
  return {
    outcome: "ok",
    status: 200,
    ttfbMs: 5,
    totalMs: 9,
    upstreamMs: 7,
    usage: { inputTokens: 10, cachedInputTokens: 2, outputTokens: 20 },
    cost: 0.2,
    errorCode: null,
    responseBody: null,
    ...overrides,
  };
}
