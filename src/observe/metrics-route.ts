import type { Config } from "../config/config-schema.ts";
import type { Ledger } from "../journal/ledger.ts";
import type { MetricsRoute } from "../http/app.ts";
import { requireBearer } from "../http/bearer-auth.ts";
import type { CallMetrics } from "./call-metrics.ts";
import { metricsPage } from "./metrics-page.ts";
import { PROM_CONTENT_TYPE } from "./prom-text.ts";

/**
 * GET /metrics for a relay: behind `server.metricsToken` or the admin token (either is
 * accepted); undefined when neither is configured (no route).
 */
export function metricsRoute(config: Config, calls: CallMetrics, ledger: Ledger, inFlight: () => number): MetricsRoute | undefined {
  const tokens = [config.server.metricsToken, config.server.adminToken].filter((token) => token !== undefined);
  if (tokens.length === 0) return undefined;
  return {
    // The one place that decides who may scrape.
    authorize: requireBearer(tokens, "GET /metrics needs `Authorization: Bearer <metrics token or admin token>`"),
    page: () => metricsPage({ calls, inFlight, ledger, budgets: config.budgets, defaultMode: config.budget.mode }),
    contentType: PROM_CONTENT_TYPE,
  };
}
