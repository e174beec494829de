import type { Hono } from "hono";
import type { BudgetCatalog } from "../budgets/budget-catalog.ts";
import type { Config } from "../config/config-schema.ts";
import { adminActor, type AdminToken } from "../http/admin/admin-auth.ts";
import type { Reload } from "../http/admin/admin-reload.ts";
import { createAdminRoutes } from "../http/admin/admin-routes.ts";
import { createHttpHandler, lastResortResponse, type AppDeps, type HttpEnv, type MetricsRoute } from "../http/app.ts";
import { dashboardRoutes } from "../http/dashboard/dashboard-routes.ts";
import { createOidcSignIn } from "../http/dashboard/dashboard-sign-in.ts";
import type { Ledger } from "../journal/ledger.ts";
import type { RelayKeys } from "../keys/relay-keys.ts";
import type { SnapshotCell } from "../relay/relay-snapshot.ts";
import { targetStatuses } from "../routing/target-status.ts";
import type { Runtime, Server } from "../runtime/runtime.ts";
import type { Store } from "../storage/store.ts";
import { createSpendAdmins } from "./spend-admin.ts";

/** What the admin surface reads and drives in a running relay. */
export interface AdminSurfaceParts {
  /** The config the relay started with (the admin listener's address and the OIDC sign-in are restart-only). */
  readonly config: Config;
  readonly snapshot: SnapshotCell;
  readonly store: Store | undefined;
  readonly ledger: Ledger;
  readonly catalog: BudgetCatalog;
  readonly keys: RelayKeys;
  readonly reload: Reload | undefined;
  /** The admin tokens in force (a reload replaces them). */
  readonly adminTokens: () => readonly AdminToken[];
  /** Reads the store's budgets again now (after this relay changed them). */
  readonly refreshBudgets: () => Promise<void>;
  /** Epoch ms now (target cooldowns). */
  readonly clock: () => number;
  /** `/metrics`, when it is served at all. */
  readonly metrics: MetricsRoute | undefined;
}

/** Where the admin API, the dashboard and `/metrics` are served. */
export interface AdminSurface {
  /** The routes the model listener serves besides the relay: all of them, or none when they listen apart. */
  readonly onModelListener: Pick<AppDeps, "admin" | "metrics" | "dashboard">;
  /** Opens the admin listener when `server.admin.port` is set (undefined otherwise). */
  listenApart(runtime: Runtime, common: Omit<AppDeps, "relay" | "admin" | "metrics" | "dashboard">): Promise<Server | undefined>;
}

/**
 * The admin API (with the spend admins over the store), the dashboard (admin tokens, or OIDC
 * sign-in when configured) and `/metrics`: on the model listener, or on a listener of their own
 * when `server.admin.port` is set.
 */
export function createAdminSurface(parts: AdminSurfaceParts): AdminSurface {
  const { config, snapshot, store, ledger, catalog, keys, adminTokens, clock } = parts;
  const oidcConfig = config.server.admin.oidc;
  const oidc = oidcConfig && createOidcSignIn(oidcConfig);
  const spend =
    store &&
    createSpendAdmins(store, {
      config: () => snapshot.current.config,
      catalog,
      flush: () => ledger.flush(),
      refresh: parts.refreshBudgets,
    });
  const admin: Hono<HttpEnv> = createAdminRoutes({
    tokens: adminTokens,
    sessions: oidc?.sessions,
    overrides: spend?.overrides,
    teams: spend?.teams,
    teamOf: catalog.teamOf,
    config: () => snapshot.current.config,
    store,
    sync: () => ledger.flush(),
    reload: parts.reload,
    budgetAdmin: spend?.budgets,
    keys: keys.admin && { keys: keys.admin, actorOf: (c) => adminActor(c).id },
    audit: store,
    targets: () => targetStatuses(snapshot.current.router.targets(), clock()),
  });
  const dashboard = dashboardRoutes(() => adminTokens().length > 0 || oidc !== undefined, { tokens: adminTokens, oidc });
  const { metrics } = parts;
  const port = config.server.admin.port;
  return {
    onModelListener: port === undefined ? { admin, metrics, dashboard } : { admin: undefined, metrics: undefined, dashboard: undefined },
    listenApart: async (runtime, common) =>
      port === undefined
        ? undefined
        : runtime.serve({
            hostname: config.server.admin.host ?? config.server.host,
            port,
            fetch: createHttpHandler({ ...common, admin, metrics, dashboard }),
            onError: lastResortResponse,
          }),
  };
}
