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
  /** Applies the oldest waiting items (up to maxBatch) now, after any apply in flight; rejects when it fails. */
  applyOnce(): Promise<void>;
  /** Applies everything waiting now; rejects when an apply fails. */
  flush(): Promise<void>;
  /** Stops applying on its own (timers cleared) and lets everything waiting for room go on. */
  stop(): void;
}

/**
 * Applies queued records to the database in batches: after a delay (so one transaction
 * carries many), at once when many wait, one apply at a time, again after a failure (every
 * retryMs, the records kept in order), with a bounded backlog for backpressure.
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

  const letWaitersGo = (): void => {
    if (roomWaiters.length > 0) for (const go of roomWaiters.splice(0)) go();
  };

  const schedule = (ms: number): void => {
    timerSoon = ms === 0;
    timer = setTimeout(() => {
      timer = undefined;
      // A failed apply is retried after retryMs (armed when it ends, see applyOnce).
      applyOnce().catch(onError);
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

  const applyOnce = async (): Promise<void> => {
    while (applying) await applying.catch(() => undefined);
    if (waiting.length === 0) return;
    const batch = waiting.length <= maxBatch ? waiting.slice() : waiting.slice(0, maxBatch);
    let applied: Promise<void>;
    try {
      applied = apply(batch);
    } catch (error) {
      applied = Promise.reject(error);
    }
    applying = applied.then(
      () => {
        failing = false;
        waiting.splice(0, batch.length);
        queuedAt.splice(0, batch.length);
        appliedCount += batch.length;
        options.applied?.(waiting);
        if (waiting.length <= maxBacklog) letWaitersGo();
      },
      (error: unknown) => {
        failing = true;
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
