import type { Target } from "./route-plan.ts";
import { circuitState, type CircuitState, type TargetHealth } from "./target-health.ts";

/** One target as `/admin/targets`, `/readyz` and `/metrics` show it. */
export interface TargetStatus {
  readonly provider: string;
  readonly upstreamModel: string;
  /** The public models it serves. */
  readonly models: readonly string[];
  /** `closed`: in use; `open`: skipped until `cooldownUntil`; `half-open`: the next call probes it. */
  readonly state: CircuitState;
  /** Failures within the cooldown window (not yet enough to open it). */
  readonly recentFailures: number;
  /** Epoch ms the cool-down ends; null while closed. */
  readonly cooldownUntil: number | null;
  readonly inFlight: number;
  readonly lastError: string | null;
  /** Epoch ms. */
  readonly lastFailureAt: number | null;
}

/** The status of every target at `now` (epoch ms), one per provider and upstream model, in config order. */
export function targetStatuses(targets: readonly Target[], now: number): TargetStatus[] {
  const byHealth = new Map<TargetHealth, string[]>();
  for (const target of targets) {
    const models = byHealth.get(target.health) ?? [];
    if (!models.includes(target.model)) models.push(target.model);
    byHealth.set(target.health, models);
  }
  return [...byHealth].map(([health, models]) => ({
    provider: health.provider,
    upstreamModel: health.upstreamModel,
    models,
    state: circuitState(health, now),
    recentFailures: health.failures.length,
    cooldownUntil: health.openUntil === 0 ? null : health.openUntil,
    inFlight: health.inFlight,
    lastError: health.lastError,
    lastFailureAt: health.lastFailureAt,
  }));
}
