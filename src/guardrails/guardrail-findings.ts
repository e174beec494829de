import type { GuardrailPosition, JournalGuardrail } from "../shared/journal-records.ts";

/** Positions kept per finding: enough to locate the matches, bounded so a row stays small. */
export const MAX_POSITIONS = 16;

/** What a policy does on a match, request or answer. */
export type GuardAction = JournalGuardrail["action"];

/** How strongly an action keeps a value from leaving: where policies disagree on a match, the strongest applies. */
const STRENGTH: Readonly<Record<GuardAction, number>> = { log: 0, pseudonymise: 1, redact: 2, block: 3 };

/** The strongest of `actions` (log when there is none). */
export function strongest(actions: Iterable<GuardAction>): GuardAction {
  let best: GuardAction = "log";
  for (const action of actions) if (STRENGTH[action] > STRENGTH[best]) best = action;
  return best;
}

/**
 * The guardrail findings of one call, as the journal records them: per policy, direction and
 * detector, a count and the first positions. Values are never passed in, so none can be kept.
 */
export class FindingLog {
  private readonly byKey = new Map<string, JournalGuardrail>();

  /** Counts a match of `detector` for `policy` at `start` (length `length`) of `part`. */
  add(policy: string, on: JournalGuardrail["on"], detector: string, action: GuardAction, position?: GuardrailPosition): void {
    const finding = this.entry(policy, on, detector, action);
    finding.count++;
    if (position !== undefined && finding.at.length < MAX_POSITIONS) finding.at.push(position);
  }

  /** Records that a policy's external check failed (`error`), and what was done about it. */
  fail(policy: string, action: GuardAction, error: string): void {
    const finding = this.entry(policy, "request", "webhook", action);
    finding.count++;
    finding.error = error;
  }

  /** Whether anything was recorded. */
  get empty(): boolean {
    return this.byKey.size === 0;
  }

  /** The findings, in the order first seen. */
  records(): JournalGuardrail[] {
    return [...this.byKey.values()];
  }

  private entry(policy: string, on: JournalGuardrail["on"], detector: string, action: GuardAction): JournalGuardrail {
    const key = `${policy}\u0000${on}\u0000${detector}\u0000${action}`;
    let finding = this.byKey.get(key);
    if (finding === undefined) {
      finding = { policy, on, detector, action, count: 0, at: [] };
      this.byKey.set(key, finding);
    }
    return finding;
  }
}

/** Findings of several logs as one list; the same policy, direction, detector and action seen in two logs counts once, with the larger count. */
export function mergeFindings(logs: Iterable<FindingLog>): JournalGuardrail[] {
  const merged = new Map<string, JournalGuardrail>();
  for (const log of logs) {
    for (const finding of log.records()) {
      const key = `${finding.policy}\u0000${finding.on}\u0000${finding.detector}\u0000${finding.action}`;
      const seen = merged.get(key);
      if (seen === undefined || seen.count < finding.count) merged.set(key, finding);
    }
  }
  return [...merged.values()];
}
