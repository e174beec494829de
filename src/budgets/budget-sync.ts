import type { BudgetCatalog } from "./budget-catalog.ts";
import type { BudgetDefinitionStore } from "./budget-store.ts";

/** Keeps a relay's catalog up to date with the budgets in the store. */
export interface BudgetSync {
  /** Re-reads the stored budgets now (after this relay changed one: in force before the change is answered). */
  refresh(): Promise<void>;
  /** The version of the budgets the catalog holds. */
  readonly version: number;
  stop(): void;
}

/**
 * Loads the stored budgets into `catalog`, then every `pollMs` reads the store's budget version
 * (one small read) and re-reads the budgets when it moved, so a change made through another
 * relay (or `renio budgets --config`) is in force here within `pollMs` plus one read. Refreshes
 * run one at a time, so an older read never replaces a newer one. A failed poll is reported
 * and retried at the next tick; the catalog keeps what it had.
 */
export async function startBudgetSync(
  store: Pick<BudgetDefinitionStore, "listBudgets" | "budgetsVersion" | "listOverrides" | "listTeams">,
  catalog: Pick<BudgetCatalog, "replace">,
  pollMs: number,
  onError: (error: unknown) => void,
): Promise<BudgetSync> {
  let version = -1;
  let chain: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const load = async (): Promise<void> => {
    // The version first: budgets read after it are at least as new, so a change between the two reads is read again next time.
    const seen = await store.budgetsVersion();
    const [budgets, overrides, teams] = await Promise.all([store.listBudgets(), store.listOverrides(), store.listTeams()]);
    catalog.replace(budgets, { overrides, teams });
    version = seen;
  };
  const refresh = (): Promise<void> => {
    const next = chain.then(load);
    chain = next.catch(() => undefined);
    return next;
  };
  const poll = async (): Promise<void> => {
    timer = undefined;
    try {
      if ((await store.budgetsVersion()) !== version) await refresh();
    } catch (error) {
      // A poll cut short by shutdown (the store closing under it) is no failure.
      if (!stopped) onError(error);
    }
    if (!stopped) timer = setTimeout(poll, pollMs);
  };

  await refresh();
  timer = setTimeout(poll, pollMs);
  return {
    refresh,
    get version() {
      return version;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
