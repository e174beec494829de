import { createHistogram, observe, type Histogram } from "../shared/histogram.ts";

/** Lateness buckets in seconds: 1 ms to 5 s. */
export const LAG_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** How often the probe's timer is due (ms): ten samples a second, a cost too small to measure. */
const PROBE_MS = 100;

/** An event loop's lag, sampled by a timer. */
export interface LoopLag {
  /** How late the probe's timer ran, in seconds, one sample per tick. */
  readonly histogram: Histogram;
  stop(): void;
}

/**
 * Samples the event loop's lag: a timer due every 100 ms records how late it ran. A loop short
 * of CPU, or busy with long synchronous work, runs it late, so every call on it waits as long.
 */
export function watchLoopLag(): LoopLag {
  const histogram = createHistogram(LAG_BUCKETS);
  let due = performance.now() + PROBE_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    const now = performance.now();
    observe(histogram, Math.max(0, now - due) / 1000);
    due = now + PROBE_MS;
    timer = setTimeout(tick, PROBE_MS);
    unref(timer);
  };
  timer = setTimeout(tick, PROBE_MS);
  unref(timer);
  return { histogram, stop: () => clearTimeout(timer) };
}

/** The probe never keeps a process alive (Bun's and Node's timers have unref; Deno's numbers do not). */
function unref(timer: ReturnType<typeof setTimeout>): void {
  if (typeof timer === "object" && timer !== null && "unref" in timer) (timer as { unref(): void }).unref();
}
