/**
 * Circuit breaking per target (one deployment: a provider and an upstream model), kept in this
 * relay's memory across reloads: `failures` failures within `windowMs` open the circuit, the
 * target is skipped for `cooldownMs`, then one call probes it (half-open): an answer closes the
 * circuit, a failure opens it again.
 */

/** When a target cools down (config `routing.cooldown`). */
export interface CooldownSettings {
  readonly failures: number;
  readonly windowMs: number;
  readonly cooldownMs: number;
}

/** How an attempt went, for the target's health. */
export type AttemptVerdict = "answered" | "failed" | "neutral";

/** One target's state; mutated only through the functions below. */
export interface TargetHealth {
  readonly provider: string;
  readonly upstreamModel: string;
  /** Attempts in flight on this target (least-busy routing). */
  inFlight: number;
  /** Epoch ms until which the target is skipped; 0 while closed. */
  openUntil: number;
  /** A half-open probe is in flight: nobody else may use the target meanwhile. */
  probing: boolean;
  /** Epoch ms of recent failures (within the window, oldest first). */
  readonly failures: number[];
  /** Error code of the last failure. */
  lastError: string | null;
  lastFailureAt: number | null;
}

/** The circuit's state at `now`. */
export type CircuitState = "closed" | "open" | "half-open";

/** Whether a call may use the target at `now` (closed, or half-open with no probe in flight). */
export function usable(health: TargetHealth, now: number): boolean {
  return health.openUntil === 0 || (health.openUntil <= now && !health.probing);
}

/** The circuit's state at `now`. */
export function circuitState(health: TargetHealth, now: number): CircuitState {
  return health.openUntil === 0 ? "closed" : health.openUntil > now ? "open" : "half-open";
}

/** An attempt starts on the target; returns whether it is the half-open probe. */
export function attemptStarted(health: TargetHealth, now: number): boolean {
  health.inFlight++;
  if (health.openUntil === 0 || health.openUntil > now) return false;
  health.probing = true;
  return true;
}

/** An attempt on the target ended (`probe`: what attemptStarted returned). */
export function attemptEnded(health: TargetHealth, probe: boolean, verdict: AttemptVerdict, now: number, settings: CooldownSettings, errorCode: string | null): void {
  health.inFlight--;
  if (probe) health.probing = false;
  if (verdict === "answered") {
    health.failures.length = 0;
    if (probe) health.openUntil = 0;
    return;
  }
  if (verdict === "neutral") return;
  health.lastError = errorCode;
  health.lastFailureAt = now;
  if (probe) {
    health.openUntil = now + settings.cooldownMs;
    return;
  }
  const failures = health.failures;
  failures.push(now);
  while (failures.length > 0 && (failures[0]! <= now - settings.windowMs || failures.length > settings.failures)) failures.shift();
  if (failures.length >= settings.failures) {
    health.openUntil = now + settings.cooldownMs;
    failures.length = 0;
  }
}

/** Every target's health, by provider and upstream model, for the life of the relay process. */
export interface TargetHealthBook {
  /** The health of a target (created closed on first use). */
  of(provider: string, upstreamModel: string): TargetHealth;
}

/** Creates an empty book. */
export function createTargetHealthBook(): TargetHealthBook {
  const targets = new Map<string, TargetHealth>();
  return {
    of(provider, upstreamModel) {
      const id = `${provider}\u0000${upstreamModel}`;
      let health = targets.get(id);
      if (health === undefined) {
        health = { provider, upstreamModel, inFlight: 0, openUntil: 0, probing: false, failures: [], lastError: null, lastFailureAt: null };
        targets.set(id, health);
      }
      return health;
    },
  };
}
