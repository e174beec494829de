/** What {@link createLogApplier} applies, and when. */
export interface LogApplierOptions<T> {
  /**
   * Applies one batch (the oldest items waiting, in order) to the database. The items stay
   * waiting until it resolves; after a failure they are applied again.
   */
  apply(batch: readonly T[]): Promise<void>;
  /** A batch was applied and taken off; `waiting` is what is left. */
  applied?(waiting: readonly T[]): void;
  /** Items wait at most this long before being applied (ms). */
  delayMs: number;
  /** This many waiting are applied at once, without the delay. */
  soonAt: number;
  /** Most items in one apply (default: every item waiting). */
  maxBatch?: number;
  /** Wait before retrying after a failed apply (ms). */
  retryMs: number;
  /** Items waiting beyond which {@link LogApplier.full} says new work should wait (default: no limit). */
  maxBacklog?: number;
  /** Told about failed applies the applier retries on its own. */
  onError(error: unknown): void;
  /**
   * Items of a batch cut on the applier's own schedule that would rather wait for the next
   * batch (e.g. an admission whose completion is not in this one: applied together they are
   * one row write). Each item waits at most once, and never when everything is flushed.
   */
  holdBack?(batch: readonly T[]): ReadonlySet<T>;
}

/** Records waiting to be applied to the database. */
export interface LogApplier<T> {
  /** Queues `item`; it is applied within the delay (sooner when many wait). */
  add(item: T): void;
  /** What waits, oldest first. */
  readonly waiting: readonly T[];
  /** More than maxBacklog wait (see {@link untilRoom}). */
  readonly full: boolean;
  /** The last apply failed (cleared by the next that succeeds). */
  readonly failing: boolean;
  /** ms the oldest waiting item has waited (0 when none waits): the apply lag. */
  lagMs(): number;
  /** Resolves once the backlog is back under maxBacklog, an apply fails, or the applier stops. */
  untilRoom(): Promise<void>;
  /** Applies the oldest waiting items (up to maxBatch, none held back) now, after any apply in flight; rejects when it fails. */
  applyOnce(): Promise<void>;
  /** Applies everything waiting now; rejects when an apply fails. */
  flush(): Promise<void>;
  /** Stops applying on its own (timers cleared) and lets everything waiting for room go on. */
  stop(): void;
}

/**
 * Applies queued records to the database in batches: after a delay (so one transaction
 * carries many), at once when many wait, one apply at a time, again after a failure (every
 * retryMs, the records kept in order), with a bounded backlog for backpressure. Items a
 * scheduled batch holds back (holdBack) stay first in line, in order, for the next one.
 */
export function createLogApplier<T>(options: LogApplierOptions<T>): LogApplier<T> {
  const { apply, delayMs, soonAt, retryMs, onError } = options;
  const maxBatch = options.maxBatch ?? Infinity;
  const maxBacklog = options.maxBacklog ?? Infinity;
  const waiting: T[] = [];
  /** performance.now() when each waiting item was added (parallel to `waiting`). */
  const queuedAt: number[] = [];
  let applying: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The pending timer was armed without the delay (soonAt items were waiting). */
  let timerSoon = false;
  let failing = false;
  let stopped = false;
  /** Items applied so far (flush applies up to a count). */
  let appliedCount = 0;
  /** Calls waiting for room (the backlog was full). */
  const roomWaiters: Array<() => void> = [];
  /** Items held back once already (never again). */
  const heldOnce = new Set<T>();

  const letWaitersGo = (): void => {
    if (roomWaiters.length > 0) for (const go of roomWaiters.splice(0)) go();
  };

  const schedule = (ms: number): void => {
    timerSoon = ms === 0;
    timer = setTimeout(() => {
      timer = undefined;
      // A failed apply is retried after retryMs (armed when it ends, see applyBatch).
      applyBatch(true).catch(onError);
    }, ms);
  };

  /** Arms the timer for what waits, unless an apply or a timer is already on its way. */
  const scheduleNext = (): void => {
    if (stopped || applying !== undefined || waiting.length === 0) return;
    if (timer !== undefined) {
      if (timerSoon || waiting.length < soonAt || failing) return;
      clearTimeout(timer);
    }
    schedule(failing ? retryMs : waiting.length >= soonAt ? 0 : delayMs);
  };

  /** Splits the first `cut` waiting items into those applied now and those held back (with when they were queued). */
  const split = (cut: number, hold: boolean): { batch: T[]; held: T[]; heldAt: number[] } => {
    const candidates = waiting.slice(0, cut);
    const wanted = hold && options.holdBack ? options.holdBack(candidates) : undefined;
    if (wanted === undefined || wanted.size === 0) return { batch: candidates, held: [], heldAt: [] };
    const batch: T[] = [];
    const held: T[] = [];
    const heldAt: number[] = [];
    candidates.forEach((item, i) => {
      if (wanted.has(item) && !heldOnce.has(item)) {
        heldOnce.add(item);
        held.push(item);
        heldAt.push(queuedAt[i]!);
      } else batch.push(item);
    });
    return { batch, held, heldAt };
  };

  const applyOnce = (): Promise<void> => applyBatch(false);
  const applyBatch = async (hold: boolean): Promise<void> => {
    while (applying) await applying.catch(() => undefined);
    if (waiting.length === 0) return;
    const cut = Math.min(waiting.length, maxBatch);
    const { batch, held, heldAt } = split(cut, hold);
    if (batch.length === 0) {
      // Everything cut waits for the next batch (each item once): armed by scheduleNext.
      waiting.splice(0, cut, ...held);
      queuedAt.splice(0, cut, ...heldAt);
      scheduleNext();
      return;
    }
    let applied: Promise<void>;
    try {
      applied = apply(batch);
    } catch (error) {
      applied = Promise.reject(error);
    }
    applying = applied.then(
      () => {
        failing = false;
        waiting.splice(0, cut, ...held);
        queuedAt.splice(0, cut, ...heldAt);
        appliedCount += batch.length;
        for (const item of batch) heldOnce.delete(item);
        options.applied?.(waiting);
        if (waiting.length <= maxBacklog) letWaitersGo();
      },
      (error: unknown) => {
        failing = true;
        // Held items keep their place: the batch is applied again, in order, with them.
        letWaitersGo();
        throw error;
      },
    );
    try {
      await applying;
    } finally {
      applying = undefined;
      scheduleNext();
    }
  };

  return {
    add(item) {
      waiting.push(item);
      queuedAt.push(performance.now());
      if (timer === undefined || (waiting.length === soonAt && !timerSoon)) scheduleNext();
    },
    waiting,
    get full() {
      return waiting.length > maxBacklog;
    },
    get failing() {
      return failing;
    },
    lagMs: () => (queuedAt.length === 0 ? 0 : performance.now() - queuedAt[0]!),
    untilRoom: () => new Promise<void>((go) => roomWaiters.push(go)),
    applyOnce,
    async flush() {
      clearTimeout(timer);
      timer = undefined;
      const until = appliedCount + waiting.length;
      while (appliedCount < until && waiting.length > 0) await applyOnce();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      letWaitersGo();
    },
  };
}
