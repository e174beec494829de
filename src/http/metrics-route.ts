import type { BudgetConfig, Config } from "../config/config-schema.ts";
import type { GuardrailCount } from "../guardrails/guardrail-metrics.ts";
import type { Ledger } from "../journal/ledger.ts";
import type { SlotState } from "../relay/call-slots.ts";
import type { RateLimitState } from "../limits/rate-limiter.ts";
import type { RateStoreStats } from "../limits/shared-rate-limiter.ts";
import type { CacheCounts } from "../cache/response-cache.ts";
import type { ExportStats } from "../observe/span-exporter.ts";
import type { TargetStatus } from "../routing/target-status.ts";
import { matchAdminToken, type AdminToken } from "./admin/admin-auth.ts";
import type { MetricsRoute } from "./app.ts";
import { requireBearer } from "./bearer-auth.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { CallMetrics } from "../observe/call-metrics.ts";
import { metricsPage } from "./metrics-page.ts";
import type { LoopFigures } from "./loop-metrics.ts";
import { PROM_CONTENT_TYPE } from "../observe/prom-text.ts";
import type { BooksCheck } from "../budgets/books-check.ts";

/** What the metrics page reads from the running relay. */
export interface MetricsSources {
  readonly calls: CallMetrics;
  readonly ledger: Ledger;
  readonly inFlight: () => number;
  /** Calls served and waiting, and their limits. */
  readonly slots?: () => SlotState;
  /** The runtime fetch's in-flight cap, when calls may go through it. */
  readonly upstreamFetchLimit?: number;
  /** The admin tokens in force (any of them may scrape: every role can read). */
  readonly adminTokens: () => readonly AdminToken[];
  /** The budgets in force (config and store). */
  readonly budgets: () => readonly BudgetConfig[];
  /** The rate limits in force, as they stand. */
  readonly rateLimits?: () => readonly RateLimitState[];
  /** How the shared rate-limit store has fared (absent: limits in memory). */
  readonly rateStore?: RateStoreStats;
  /** The response cache's counts, every event loop's summed (absent: no cache, none shown). */
  readonly cache?: () => CacheCounts;
  /** The span exporter's counts (absent: tracing off). */
  readonly traces?: () => ExportStats;
  /** Every target's circuit, as it stands. */
  readonly targets?: () => readonly TargetStatus[];
  /** `journal.maxLagMs` in force. */
  readonly journalMaxLagMs: () => number;
  /** The last check of the books (absent: checks off). */
  readonly books?: () => BooksCheck | undefined;
  /** What guardrail policies found so far. */
  readonly guardrails?: () => readonly GuardrailCount[];
  /** The event loops serving HTTP, their lag and calls. */
  readonly loops?: () => readonly LoopFigures[];
  /** Brings the figures of other event loops up to date before a scrape is written. */
  readonly refresh?: () => Promise<void>;
}

const UNAUTHORIZED = "GET /metrics needs `Authorization: Bearer <metrics token or admin token>`";

/**
 * GET /metrics for a relay: behind `server.metricsToken` or any admin token (every admin role
 * can read); undefined when neither is configured at startup (no route).
 */
export function metricsRoute(config: Config, sources: MetricsSources): MetricsRoute | undefined {
  const metricsToken = config.server.metricsToken;
  if (metricsToken === undefined && sources.adminTokens().length === 0) return undefined;
  const byMetricsToken = metricsToken === undefined ? undefined : requireBearer([metricsToken], UNAUTHORIZED);
  return {
    // The one place that decides who may scrape.
    authorize(headers) {
      const presented = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "")?.[1];
      if (presented !== undefined && matchAdminToken(sources.adminTokens(), presented) !== undefined) return;
      if (byMetricsToken === undefined) throw new RelayError(401, "unauthorized", UNAUTHORIZED);
      byMetricsToken(headers);
    },
    page: async () => {
      await sources.refresh?.();
      return metricsPage({
        calls: sources.calls,
        inFlight: sources.inFlight,
        slots: sources.slots,
        upstreamFetchLimit: sources.upstreamFetchLimit,
        ledger: sources.ledger,
        budgets: sources.budgets(),
        defaultMode: config.budget.mode,
        rateLimits: sources.rateLimits,
        rateStore: sources.rateStore,
        cache: sources.cache?.(),
        traces: sources.traces,
        targets: sources.targets,
        journalMaxLagMs: sources.journalMaxLagMs(),
        books: sources.books,
        guardrails: sources.guardrails,
        loops: sources.loops,
      });
    },
    contentType: PROM_CONTENT_TYPE,
  };
}
