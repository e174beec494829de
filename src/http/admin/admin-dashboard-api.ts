import { Hono } from "hono";
import { summarizeGuardrails } from "../../guardrails/guardrail-summary.ts";
import type { JournalEntry } from "../../shared/journal-records.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { JournalReader, UsageGroup, UsageGroupBy } from "../../journal/journal-store.ts";
import type { HttpEnv } from "../app.ts";
import { requireRole } from "./admin-auth.ts";
import { timeParam } from "./admin-query.ts";
import { sumAmounts } from "../../shared/money.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MAX_BUCKETS = 2000;
const GROUP_BY: readonly UsageGroupBy[] = ["key", "project", "model", "provider", "route"];

/**
 * The dashboard's read-only aggregates (role `read`), computed in SQL by the store:
 * `GET /admin/dashboard/settings` (the currency amounts are in),
 * `GET /admin/dashboard/overview` (totals today and this month, UTC, and a series of calls,
 * errors, cost and relay overhead p50/p95 per bucket; `since`, `until`, `bucket_ms`, default
 * the last 24 hours by hour) and `GET /admin/dashboard/usage?by=key|project|model|provider|route`
 * (totals per group, `since`/`until`, default the last 24 hours), and `GET /admin/dashboard/guardrails`
 * (what guardrail policies found, by policy, detector, action and direction, over the entries
 * on which one fired; `since`/`until`, default the last 24 hours; at most GUARDRAIL_ENTRIES entries read).
 */
export function dashboardApi(store: JournalReader, sync: (() => Promise<void>) | undefined, currency: () => string): Hono<HttpEnv> {
  const api = new Hono<HttpEnv>();
  api.use(requireRole("read"));

  api.get("/settings", (c) => c.json({ object: "dashboard.settings", currency: currency() }));

  api.get("/overview", async (c) => {
    const now = Date.now();
    const until = timeParam(c.req.query("until"), "until") ?? now + 1;
    const since = timeParam(c.req.query("since"), "since") ?? until - DAY;
    const bucketMs = bucketParam(c.req.query("bucket_ms"), since, until);
    await sync?.();
    const startOfDay = Math.floor(now / DAY) * DAY;
    const date = new Date(now);
    const startOfMonth = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    const [today, month, buckets, spentToday] = await Promise.all([
      store.usageByGroup({ since: startOfDay, until: now + 1 }, undefined, false),
      store.usageByGroup({ since: startOfMonth, until: now + 1 }, undefined, false),
      store.usageSeries({ since, until, bucketMs }),
      store.journalSpend({ since: startOfDay, until: now + 1 }),
    ]);
    // The response cache today: calls answered from it and what they first cost.
    const cache = { hits: 0, savedCost: 0 };
    for (const part of spentToday) {
      cache.hits += part.cacheHits;
      cache.savedCost = sumAmounts([cache.savedCost, part.savedCost]);
    }
    return c.json({
      object: "dashboard.overview",
      now,
      today: { since: startOfDay, ...totalOf(today), cacheHits: cache.hits, savedCost: cache.savedCost },
      month: { since: startOfMonth, ...totalOf(month) },
      series: { since, until, bucketMs, buckets },
    });
  });

  api.get("/usage", async (c) => {
    const by = c.req.query("by") ?? "key";
    if (!(GROUP_BY as readonly string[]).includes(by)) {
      throw new RelayError(400, "invalid_request", `\`by\` must be one of ${GROUP_BY.join(", ")}`);
    }
    const until = timeParam(c.req.query("until"), "until") ?? Date.now() + 1;
    const since = timeParam(c.req.query("since"), "since") ?? until - DAY;
    if (since >= until) throw new RelayError(400, "invalid_request", "`since` must be before `until`");
    await sync?.();
    const data = await store.usageByGroup({ since, until }, by as UsageGroupBy);
    return c.json({ object: "list", by, since, until, data });
  });

  api.get("/guardrails", async (c) => {
    const until = timeParam(c.req.query("until"), "until") ?? Date.now() + 1;
    const since = timeParam(c.req.query("since"), "since") ?? until - DAY;
    if (since >= until) throw new RelayError(400, "invalid_request", "`since` must be before `until`");
    await sync?.();
    const entries: JournalEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listJournal({ since, until, guardrails: true, limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
      entries.push(...page.entries);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined && entries.length < GUARDRAIL_ENTRIES);
    return c.json({ object: "dashboard.guardrails", since, until, entries: entries.length, truncated: cursor !== undefined, data: summarizeGuardrails(entries) });
  });

  return api;
}

/** The most entries the guardrail summary reads (newest first); beyond, it says it was truncated. */
const GUARDRAIL_ENTRIES = 20_000;

/** The all-entries group, or zeros when the range holds no entry. */
function totalOf(groups: readonly UsageGroup[]): Omit<UsageGroup, "group"> {
  const { group: _group, ...total } = groups[0] ?? {
    group: null, calls: 0, ok: 0, refused: 0, errors: 0, inFlight: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0,
    cost: 0, lastAt: null, totalMsP50: null, totalMsP95: null, overheadMsP50: null, overheadMsP95: null,
  };
  return total;
}

/** `bucket_ms`: a whole number of ms (at least one second) cutting the range into at most MAX_BUCKETS; default an hour, or a day past 60 days. */
function bucketParam(value: string | undefined, since: number, until: number): number {
  if (since >= until) throw new RelayError(400, "invalid_request", "`since` must be before `until`");
  const bucketMs = value === undefined ? (until - since > 60 * DAY ? DAY : HOUR) : Number(value);
  if (!Number.isSafeInteger(bucketMs) || bucketMs < 1000) throw new RelayError(400, "invalid_request", "`bucket_ms` must be an integer of at least 1000");
  if ((until - since) / bucketMs > MAX_BUCKETS) {
    throw new RelayError(400, "invalid_request", `\`bucket_ms\` cuts the range into more than ${MAX_BUCKETS} buckets; use a larger bucket or a shorter range`);
  }
  return bucketMs;
}
