import type { JournalAttempt } from "../shared/journal-records.ts";
import { outcomeOf, type CallEnd } from "./call-end.ts";
import { retryableFailure, retryableStatus } from "./retry-policy.ts";
import type { Target } from "./route-plan.ts";
import { attemptEnded, attemptStarted, type AttemptVerdict, type CooldownSettings } from "./target-health.ts";
import { sumAmounts } from "../shared/money.ts";

/** What attempts cost: each target's bound, and the ceiling a strict budget puts on their sum. */
export interface AttemptCosts {
  /** The bound (reservation) of an attempt on `target`: charged when it may have been billed without usage; null without a price. */
  boundOf(target: Target): number | null;
  /** Under a strict budget, the call's reservation: attempts together are never charged more; undefined without one. */
  readonly ceiling: number | undefined;
}

/**
 * A call's upstream attempts as they happen: each one's record for the journal, what the
 * attempts that did not serve the call are charged, and the targets' health (in flight, cooldown).
 * One attempt is open at a time; the last one is closed at settlement ({@link finish}).
 */
export class CallAttempts {
  /** The closed attempts, oldest first (the last one joins at settlement). */
  readonly records: JournalAttempt[] = [];
  /** Charged for the attempts that did not serve the call. */
  charged = 0;
  /** Part of `charged` is a reservation charged without usage. */
  estimated = false;
  private target: Target | undefined;
  private sentAt = 0;
  private probe = false;
  private open = false;

  constructor(
    private readonly costs: AttemptCosts,
    private readonly clock: () => number,
    private readonly cooldown: CooldownSettings,
  ) {}

  /** The target of the open (or last) attempt. */
  get last(): Target | undefined {
    return this.target;
  }

  /** Attempts made so far (the open one included). */
  get count(): number {
    return this.records.length + (this.open ? 1 : 0);
  }

  /** An attempt on `target` starts. */
  begin(target: Target): void {
    this.target = target;
    this.sentAt = performance.now();
    this.probe = attemptStarted(target.health, this.clock());
    this.open = true;
  }

  /** The open attempt ended without serving the call; one that may have been billed is charged its bound. */
  failed(status: number | null, errorCode: string, mayHaveBeenBilled: boolean, verdict: AttemptVerdict): void {
    const target = this.target!;
    const bound = this.costs.boundOf(target);
    const cost = bound === null ? null : mayHaveBeenBilled ? bound : 0;
    if (cost !== null && cost > 0) {
      this.charged = sumAmounts([this.charged, cost]);
      this.estimated = true;
    }
    this.close(status, errorCode, verdict, cost);
  }

  /** Whether an attempt on `next` still fits under the ceiling after what was charged (and the open attempt's bound when it may have been billed). */
  roomFor(next: Target, openMayHaveBeenBilled: boolean): boolean {
    const ceiling = this.costs.ceiling;
    if (ceiling === undefined) return true;
    const open = openMayHaveBeenBilled && this.open ? (this.costs.boundOf(this.target!) ?? 0) : 0;
    return this.charged + open + (this.costs.boundOf(next) ?? 0) <= ceiling + 1e-9;
  }

  /** Closes the last attempt, if open, at settlement: how the call ended, and what that attempt was charged. */
  finish(end: CallEnd, cost: number | null): void {
    if (!this.open) return;
    const { errorCode } = outcomeOf(end);
    this.close(end.kind === "failed" ? null : end.status, errorCode, verdictOf(end), cost);
  }

  /** One line per attempt (`mock-a upstream_503`), for messages. */
  summary(): string {
    return this.records.map((r) => `${r.provider} ${r.errorCode ?? r.status ?? "ok"}`).join(", ");
  }

  private close(status: number | null, errorCode: string | null, verdict: AttemptVerdict, cost: number | null): void {
    const target = this.target!;
    this.open = false;
    attemptEnded(target.health, this.probe, verdict, this.clock(), this.cooldown, errorCode);
    this.records.push({ provider: target.provider.id, upstreamModel: target.upstreamModel, model: target.model, status, errorCode, ms: performance.now() - this.sentAt, cost });
  }
}

/** What the way a call ended says about its last target's health. */
function verdictOf(end: CallEnd): AttemptVerdict {
  if (end.kind !== "failed") return end.kind === "completed" && retryableStatus(end.status) ? "failed" : "answered";
  return retryableFailure(end.error.code) ? "failed" : "neutral";
}
