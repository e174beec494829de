import type { RetrySettings } from "../config/model-routes.ts";
import type { Provider } from "../providers/provider.ts";
import { usable, type TargetHealth } from "./target-health.ts";

/** Whether a target may be picked at `now`; NaN ignores its health (a route of one target). */
function usableAt(health: TargetHealth, now: number): boolean {
  return Number.isNaN(now) || usable(health, now);
}

/** Where a call may go: one deployment of a public model. */
export interface Target {
  readonly provider: Provider;
  readonly upstreamModel: string;
  /** The public model whose entry lists it (the requested one, or a fallback). */
  readonly model: string;
  readonly weight: number;
  readonly priority: number;
  readonly connectTimeoutMs: number;
  readonly firstByteTimeoutMs: number;
  /** Shared by every target with this provider and upstream model. */
  readonly health: TargetHealth;
  /** Its position among its model's targets: its bit in a call's masks. */
  readonly slot: number;
}

/** One model's targets as a call may use them. */
export interface RouteStage {
  readonly model: string;
  /** Targets by priority group, highest first (never empty). */
  readonly groups: ReadonlyArray<readonly Target[]>;
  readonly leastBusy: boolean;
  readonly retry: RetrySettings;
  /** The stages a "prompt too long" answer moves the call to (the model's context fallback). */
  readonly contextFallback: readonly RouteStage[] | undefined;
}

/** A resolved route: the requested model's stage, then its fallbacks' (each model once). */
export interface RoutePlan {
  readonly model: string;
  readonly stages: readonly RouteStage[];
  /** The call's total deadline (ms). */
  readonly timeoutMs: number;
  /** Every target the call may be sent to, each once (the reservation covers the dearest). */
  readonly targets: readonly Target[];
}

/**
 * A call's position in its plan: which stage, how many attempts it made there, which targets it
 * tried (and which it must not try again). Picks the next target: the stage's highest priority
 * group with a usable target it has not tried yet (weighted random, or least busy), then the
 * ones it has tried, within the stage's `maxAttempts`; then the next stage.
 */
export class RouteCursor {
  private stage = 0;
  private attempts = 0;
  private tried = 0;
  private excluded = 0;

  /**
   * `heeded`: whether cooling-down targets are skipped; a route with a single target ignores
   * cooldowns (skipping its only target would only refuse calls it might serve).
   */
  constructor(
    private stages: readonly RouteStage[],
    private readonly random: () => number,
    private readonly heeded = true,
  ) {}

  /** The next target to try at `now` (epoch ms), or undefined when none is left. */
  next(now: number): Target | undefined {
    // NaN: no time at which a circuit is open (see usableAt).
    if (!this.heeded) now = Number.NaN;
    while (this.stage < this.stages.length) {
      const stage = this.stages[this.stage]!;
      if (this.attempts < stage.retry.maxAttempts) {
        const target = pick(stage, this.tried | this.excluded, now, this.random) ?? pick(stage, this.excluded, now, this.random);
        if (target !== undefined) return target;
      }
      this.stage++;
      this.attempts = 0;
      this.tried = 0;
      this.excluded = 0;
    }
    return undefined;
  }

  /** The stage the cursor is in. */
  get current(): RouteStage | undefined {
    return this.stages[this.stage];
  }

  /** An attempt starts on `target`. */
  started(target: Target): void {
    this.attempts++;
    this.tried |= 1 << target.slot;
  }

  /** `target` is not tried again in its stage (its retry-after is too long). */
  exclude(target: Target): void {
    this.excluded |= 1 << target.slot;
  }

  /** Whether `target` was tried already. */
  triedBefore(target: Target): boolean {
    return (this.tried & (1 << target.slot)) !== 0;
  }

  /** Moves the call to other stages (a context-window fallback), from their start. */
  switchTo(stages: readonly RouteStage[]): void {
    this.stages = stages;
    this.stage = 0;
    this.attempts = 0;
    this.tried = 0;
    this.excluded = 0;
  }
}

/** A usable target of the stage outside `skip` (a bit mask of slots), highest group first; undefined when none. */
function pick(stage: RouteStage, skip: number, now: number, random: () => number): Target | undefined {
  for (const group of stage.groups) {
    if (group.length === 1) {
      const only = group[0]!;
      if ((skip & (1 << only.slot)) === 0 && usableAt(only.health, now)) return only;
      continue;
    }
    // Least busy: only the targets with the fewest attempts in flight take part in the draw.
    let fewest = Infinity;
    if (stage.leastBusy) {
      for (const target of group) if ((skip & (1 << target.slot)) === 0 && usableAt(target.health, now) && target.health.inFlight < fewest) fewest = target.health.inFlight;
    }
    let total = 0;
    for (const target of group) if (eligible(target, skip, now, fewest)) total += target.weight;
    if (total === 0) continue;
    let draw = random() * total;
    let last: Target | undefined;
    for (const target of group) {
      if (!eligible(target, skip, now, fewest)) continue;
      last = target;
      draw -= target.weight;
      if (draw < 0) return target;
    }
    return last;
  }
  return undefined;
}

function eligible(target: Target, skip: number, now: number, fewest: number): boolean {
  return (skip & (1 << target.slot)) === 0 && usableAt(target.health, now) && (fewest === Infinity || target.health.inFlight === fewest);
}
