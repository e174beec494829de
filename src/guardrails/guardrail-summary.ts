import type { JournalGuardrail } from "../shared/journal-records.ts";

/** What one policy's detector did over a range of journal entries (the dashboard's summary). */
export interface GuardrailSummaryRow {
  readonly policy: string;
  readonly detector: string;
  readonly action: JournalGuardrail["action"];
  readonly on: JournalGuardrail["on"];
  /** Entries on which it fired. */
  calls: number;
  /** Matches it found over those entries. */
  matches: number;
  /** Entries on which the policy's external check failed. */
  failures: number;
  /** received_at of the newest of them. */
  lastAt: number;
}

/** Sums what fired on `entries` by policy, detector, action and direction; most calls first. */
export function summarizeGuardrails(entries: Iterable<{ readonly receivedAt: number; readonly guardrails: readonly JournalGuardrail[] | null }>): GuardrailSummaryRow[] {
  const rows = new Map<string, GuardrailSummaryRow>();
  for (const entry of entries) {
    for (const finding of entry.guardrails ?? []) {
      const key = `${finding.policy}\u0000${finding.detector}\u0000${finding.action}\u0000${finding.on}`;
      let row = rows.get(key);
      if (row === undefined) {
        row = { policy: finding.policy, detector: finding.detector, action: finding.action, on: finding.on, calls: 0, matches: 0, failures: 0, lastAt: entry.receivedAt };
        rows.set(key, row);
      }
      row.calls++;
      row.matches += finding.count;
      if (finding.error !== undefined) row.failures++;
      row.lastAt = Math.max(row.lastAt, entry.receivedAt);
    }
  }
  return [...rows.values()].sort((a, b) => b.calls - a.calls || a.policy.localeCompare(b.policy) || a.detector.localeCompare(b.detector));
}
