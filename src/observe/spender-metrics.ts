import type { JournalCompletion, JournalStart } from "../shared/journal-records.ts";
import { toNanos } from "../shared/money.ts";
import { family, labelText, moneySample, sample } from "./prom-text.ts";

/** How many of the day's heaviest end users /metrics shows (by rank, never by name). */
export const TOP_END_USERS = 10;
/** End users tracked per UTC day; calls of end users beyond it count in the totals only. */
const MAX_TRACKED_END_USERS = 200_000;
const DAY_MS = 86_400_000;

/** Spend by team and by tag, and the day's end users in aggregate, for /metrics. */
export interface SpenderMetrics {
  ended(start: Readonly<JournalStart>, end: Readonly<JournalCompletion>): void;
  write(out: string[]): void;
}

/**
 * Bounded families: teams and tag values are bounded by the config (teams, each key's tag
 * allowlist); end users are not, so they are never a label: the day's count, their total
 * spend and the spend of the top {@link TOP_END_USERS} by rank only.
 */
export function createSpenderMetrics(currency: string, clock: () => number = Date.now): SpenderMetrics {
  const byTeam = new Map<string, number>();
  const byTag = new Map<string, number>();
  let day = -1;
  let endUsers = new Map<string, number>();
  let endUserNanos = 0;
  const currencyLabel = labelText([["currency", currency]]);
  return {
    ended(start, end) {
      if (end.cost === null || end.cost === 0) return;
      const nanos = toNanos(end.cost);
      if (start.team) byTeam.set(start.team, (byTeam.get(start.team) ?? 0) + nanos);
      if (start.tags) for (const [name, value] of start.tags) byTag.set(`${name}=${value}`, (byTag.get(`${name}=${value}`) ?? 0) + nanos);
      if (!start.endUser) return;
      const today = Math.floor(clock() / DAY_MS);
      if (today !== day) [day, endUsers, endUserNanos] = [today, new Map(), 0];
      endUserNanos += nanos;
      // Within its project: the same name under two keys' projects is two end users.
      const who = `${start.project ?? ""}\u0000${start.endUser}`;
      const spent = endUsers.get(who);
      if (spent !== undefined) endUsers.set(who, spent + nanos);
      else if (endUsers.size < MAX_TRACKED_END_USERS) endUsers.set(who, nanos);
    },
    write(out) {
      family(out, "renio_team_cost_total", "counter", "Settled cost of calls by team, in the budget currency.");
      for (const [team, nanos] of byTeam) moneySample(out, "renio_team_cost_total", `${labelText([["team", team]])},${currencyLabel}`, nanos);
      family(out, "renio_tag_cost_total", "counter", "Settled cost of calls by tag (name=value; a call with two tags counts in both), in the budget currency.");
      for (const [tag, nanos] of byTag) moneySample(out, "renio_tag_cost_total", `${labelText([["tag", tag]])},${currencyLabel}`, nanos);
      const today = day === Math.floor(clock() / DAY_MS);
      family(out, "renio_end_users_today", "gauge", "End users with a settled call today (UTC).");
      sample(out, "renio_end_users_today", "", today ? endUsers.size : 0);
      family(out, "renio_end_user_cost_today", "gauge", "Settled cost of calls with an end user today (UTC), in the budget currency.");
      moneySample(out, "renio_end_user_cost_today", currencyLabel, today ? endUserNanos : 0);
      family(out, "renio_top_end_user_cost_today", "gauge", `Settled cost today of the ${TOP_END_USERS} heaviest end users, by rank (1 = heaviest; no end user is named).`);
      const top = today ? topValues(endUsers.values(), TOP_END_USERS) : [];
      top.forEach((nanos, i) => moneySample(out, "renio_top_end_user_cost_today", `${labelText([["rank", i + 1]])},${currencyLabel}`, nanos));
    },
  };
}

/** The `n` largest values, largest first, in one pass (n is small). */
function topValues(values: Iterable<number>, n: number): number[] {
  const top: number[] = [];
  for (const value of values) {
    if (top.length === n && value <= top[n - 1]!) continue;
    let i = top.length < n ? top.length : n - 1;
    if (top.length < n) top.push(value);
    while (i > 0 && top[i - 1]! < value) {
      top[i] = top[i - 1]!;
      i--;
    }
    top[i] = value;
  }
  return top;
}
