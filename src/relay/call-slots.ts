import { RelayError } from "../shared/relay-error.ts";

/** How many calls the relay serves at once, and how long the rest may wait (`server.*`). */
export interface SlotLimits {
  /** Calls served at once (a stream holds its slot until it ends). */
  readonly maxConcurrentCalls: number;
  /** Calls waiting for a slot at once; 0: none wait. */
  readonly maxQueuedCalls: number;
  /** How long a call waits for a slot before it is refused (ms). */
  readonly queueTimeoutMs: number;
}

/** What /metrics shows of the slots. */
export interface SlotState {
  readonly active: number;
  readonly queued: number;
  readonly limits: SlotLimits;
}

/**
 * The relay's own bound on the calls it serves at once: no queue anywhere in Renio is hidden or
 * unbounded. A call takes a slot when it arrives (before its body is read, so a waiting call holds
 * no body) and gives it back when it ends. At the limit it waits, in arrival order, at most
 * `queueTimeoutMs` and only while fewer than `maxQueuedCalls` wait; otherwise it is refused with
 * 503 `overloaded` and `retry-after`. A call whose client goes away while it waits leaves the queue.
 */
export interface CallSlots {
  /** Takes a slot: undefined when one was free (the common case: no promise, no allocation), else a promise that resolves once one is, or rejects with the 503. */
  enter(limits: SlotLimits, signal: AbortSignal): Promise<void> | undefined;
  /** Gives a slot back (once per successful {@link enter}); the oldest waiting call takes it. */
  leave(): void;
  state(): SlotState;
}

/** A waiting call: `admit` gives it the slot, false when it left the queue already. */
interface Waiter {
  admit(): boolean;
  /** Still in the queue. */
  readonly queued: boolean;
}

/**
 * Creates the slots; `limits` is what /metrics reports before the first call. With `loops` event
 * loops serving, each holds its share of the limits (rounded up).
 */
export function createCallSlots(initial: SlotLimits, loops = 1): CallSlots {
  let active = 0;
  let waiting = 0;
  let given = initial;
  let limits = shareOf(initial, loops);
  /** Arrival order; waiters that left (timed out, client gone) are skipped when their turn comes. */
  let queue: Waiter[] = [];
  let head = 0;

  const refuse = (why: string): RelayError =>
    new RelayError(503, "overloaded", `Renio is serving its limit of ${limits.maxConcurrentCalls} concurrent calls (server.maxConcurrentCalls)${why}; retry shortly`, { "retry-after": "1" });

  return {
    enter(config, signal) {
      if (config !== given) [given, limits] = [config, shareOf(config, loops)];
      const current = limits;
      if (active < current.maxConcurrentCalls && waiting === 0) {
        active++;
        return undefined;
      }
      if (signal.aborted) return Promise.reject(new RelayError(499, "client_aborted", "The client closed the request before a slot came free"));
      if (current.queueTimeoutMs === 0 || current.maxQueuedCalls === 0) return Promise.reject(refuse(""));
      if (waiting >= current.maxQueuedCalls) return Promise.reject(refuse(` and ${waiting} calls wait for one (server.maxQueuedCalls)`));
      waiting++;
      // Entries of calls that left are dropped before they outnumber the calls still waiting.
      if (queue.length - head > 2 * waiting + 64) {
        queue = queue.slice(head).filter((waiter) => waiter.queued);
        head = 0;
      }
      return new Promise<void>((resolve, reject) => {
        let queued = true;
        const leaveQueue = (): boolean => {
          if (!queued) return false;
          queued = false;
          waiting--;
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          return true;
        };
        const onAbort = () => leaveQueue() && reject(new RelayError(499, "client_aborted", "The client closed the request while it waited for a free slot"));
        const timer = setTimeout(() => leaveQueue() && reject(refuse(` and none came free within ${current.queueTimeoutMs} ms (server.queueTimeoutMs)`)), current.queueTimeoutMs);
        signal.addEventListener("abort", onAbort, { once: true });
        queue.push({
          get queued() {
            return queued;
          },
          admit() {
            if (!leaveQueue()) return false;
            active++;
            resolve();
            return true;
          },
        });
      });
    },
    leave() {
      active--;
      while (waiting > 0 && active < limits.maxConcurrentCalls && head < queue.length) queue[head++]!.admit();
      if (head > 0 && (head === queue.length || (head > 64 && head * 2 > queue.length))) {
        queue = queue.slice(head);
        head = 0;
      }
    },
    state: () => ({ active, queued: waiting, limits }),
  };
}

/** One event loop's share of the limits. */
function shareOf(limits: SlotLimits, loops: number): SlotLimits {
  if (loops === 1) return limits;
  return { maxConcurrentCalls: Math.ceil(limits.maxConcurrentCalls / loops), maxQueuedCalls: Math.ceil(limits.maxQueuedCalls / loops), queueTimeoutMs: limits.queueTimeoutMs };
}
