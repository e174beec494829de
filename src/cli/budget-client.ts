import { userInfo } from "node:os";
import { auditBudgetChange } from "../budgets/budget-audit.ts";
import type { StoredBudget } from "../budgets/budget-definition.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import { overrideBody, parseBudgetChange, parseNewBudget } from "../http/admin/admin-budgets.ts";
import { createOverrideAdmin } from "../budgets/budget-override-admin.ts";
import type { BudgetOverride } from "../budgets/budget-store.ts";
import { createBudgetAdmin, type BudgetListing } from "../budgets/budget-admin.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { Store } from "../storage/store.ts";
import { booksReport, type BooksReport } from "../budgets/books-check.ts";

/** What `renio budgets` does to budgets, through a relay's admin API or on the store directly. */
export interface BudgetClient {
  list(): Promise<BudgetListing[]>;
  /** Creates a budget from an admin API body. */
  create(body: Record<string, unknown>): Promise<StoredBudget>;
  /** Changes a budget from an admin API body. */
  update(id: string, body: Record<string, unknown>): Promise<StoredBudget>;
  remove(id: string): Promise<StoredBudget>;
  /** The books' invariant, checked now (budgets/books-check.ts). */
  checkBooks(): Promise<BooksReport>;
  /** Sets an override from an admin API body (`limit`, `until`, `endUser`). */
  override(id: string, body: { limit: number; until: number; endUser?: string }): Promise<BudgetOverride>;
  /** Ends an override now. */
  endOverride(id: string, endUser: string | undefined): Promise<BudgetOverride>;
}

/** The admin API (or the store, with the same rules) refused: its status, code and message. */
export class BudgetRequestError extends Error {
  override name = "BudgetRequestError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A client of a running relay's `/admin/budgets` at `url`, with the admin `token`. */
export function httpBudgetClient(url: string, token: string): BudgetClient {
  const base = `${url.replace(/\/+$/, "")}/admin`;
  const request = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new Error(`cannot reach the relay at ${url}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new BudgetRequestError(response.status, "", `the relay at ${url} answered ${response.status} without JSON`);
    }
    if (response.ok) return parsed as T;
    const error = (parsed as { error?: { code?: string; message?: string } }).error;
    throw new BudgetRequestError(response.status, error?.code ?? "", error?.message ?? `the relay answered ${response.status}`);
  };
  const path = (id: string) => `/budgets/${encodeURIComponent(id)}`;
  const budget = async (answer: Promise<StoredBudget>): Promise<StoredBudget> => {
    const { id, scope, period, limit, mode, paused, createdAt, updatedAt } = await answer;
    return { id, scope, period, limit, mode, paused, createdAt, updatedAt };
  };
  return {
    list: async () => (await request<{ data: BudgetListing[] }>("GET", "/budgets")).data,
    create: (body) => budget(request("POST", "/budgets", body)),
    update: (id, body) => budget(request("PATCH", path(id), body)),
    remove: (id) => budget(request("DELETE", path(id))),
    checkBooks: async () => {
      const { object: _object, ...report } = await request<BooksReport & { object: string }>("GET", "/books");
      return report;
    },
    override: (id, body) => request<BudgetOverride>("POST", `${path(id)}/override`, body),
    endOverride: (id, endUser) => request<BudgetOverride>("DELETE", `${path(id)}/override${endUser === undefined ? "" : `?endUser=${encodeURIComponent(endUser)}`}`),
  };
}

/** A client working on an open store directly (the relay may be down), by the admin API's rules and validation. */
export function storeBudgetClient(store: Store, configBudgets: readonly BudgetConfig[], defaultMode: NonNullable<BudgetConfig["mode"]>): BudgetClient {
  const actor = `local:${userInfo().username}`;
  const admin = createBudgetAdmin({ store, configBudgets: () => configBudgets, defaultMode: () => defaultMode, onBudgetChange: auditBudgetChange(store) });
  const overrides = createOverrideAdmin({
    store,
    configBudgets: () => configBudgets,
    audit: async (action, target, before, after, who) => void (await store.recordAudit({ actor: who, action, target, before, after })),
  });
  const asRequestError = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof RelayError) throw new BudgetRequestError(error.status, error.code, error.message);
      throw error;
    }
  };
  return {
    list: () => asRequestError(() => admin.list()),
    create: (body) => asRequestError(() => admin.create(parseNewBudget(body, defaultMode), actor)),
    update: (id, body) => asRequestError(() => admin.update(id, parseBudgetChange(body), actor)),
    remove: (id) => asRequestError(() => admin.remove(id, actor)),
    checkBooks: async () => booksReport(await store.checkBooks()),
    override: (id, body) => asRequestError(() => overrides.set({ budgetId: id, ...parseOverrideBody(body) }, actor)),
    endOverride: (id, endUser) => asRequestError(() => overrides.end(id, endUser, actor)),
  };
}

/** An override body checked as the admin API checks it. */
function parseOverrideBody(body: unknown): { limit: number; until: number; endUser?: string } {
  const parsed = overrideBody.safeParse(body);
  if (!parsed.success) throw new RelayError(400, "invalid_request", `Invalid override: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  const { limit, until, endUser } = parsed.data;
  return endUser === undefined ? { limit, until } : { limit, until, endUser };
}
