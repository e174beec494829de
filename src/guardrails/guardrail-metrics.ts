import type { JournalCompletion, JournalGuardrail, JournalStart } from "../shared/journal-records.ts";

/** One series of the guardrail counters: a policy's detector, its action, on requests or answers. */
export interface GuardrailCount {
  readonly policy: string;
  readonly detector: string;
  readonly action: JournalGuardrail["action"];
  readonly on: JournalGuardrail["on"];
  /** Calls on which it fired. */
  readonly calls: number;
  /** Matches it found (a call may have several). */
  readonly matches: number;
  /** Calls on which the policy's external check failed (detector `webhook` only). */
  readonly failures: number;
}

/**
 * The guardrail counters of /metrics, fed like the call metrics by the end of every call,
 * admitted or refused (the journal's own records: what fired, never what was matched). Series
 * are bounded by the config: policies times their detectors and actions.
 */
export class GuardrailMetrics {
  private readonly series = new Map<string, { -readonly [K in keyof GuardrailCount]: GuardrailCount[K] }>();

  /** Counts what fired on a call (its completion's findings, else its start's: a call refused before it was sent). */
  ended(start: Readonly<JournalStart>, end: Readonly<JournalCompletion>): void {
    const findings = end.guardrails ?? start.guardrails;
    if (findings === undefined || findings === null) return;
    for (const finding of findings) {
      const key = `${finding.policy}\u0000${finding.detector}\u0000${finding.action}\u0000${finding.on}`;
      let series = this.series.get(key);
      if (series === undefined) {
        series = { policy: finding.policy, detector: finding.detector, action: finding.action, on: finding.on, calls: 0, matches: 0, failures: 0 };
        this.series.set(key, series);
      }
      series.calls++;
      series.matches += finding.count;
      if (finding.error !== undefined) series.failures++;
    }
  }

  /** Every series so far. */
  counts(): readonly GuardrailCount[] {
    return [...this.series.values()];
  }
}
