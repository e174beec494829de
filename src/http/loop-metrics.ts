import { family, histogramSamples, labelText, sample } from "../observe/prom-text.ts";
import type { Histogram } from "../shared/histogram.ts";

/** One event loop's figures on /metrics (`loop` is its index: 0 the owner, up to server.eventLoops - 1). */
export interface LoopFigures {
  readonly loop: number;
  /** How late its probe timer ran (seconds). */
  readonly lag: Histogram;
  /** Model calls it served (settled or refused). */
  readonly calls: number;
}

/** The event loops serving HTTP: how many, each one's lag and the calls it served. */
export function writeLoops(out: string[], loops: readonly LoopFigures[]): void {
  family(out, "renio_event_loops", "gauge", "Event loops serving HTTP (server.eventLoops).");
  sample(out, "renio_event_loops", "", loops.length);
  family(out, "renio_event_loop_lag_seconds", "histogram", "How late a timer due every 100 ms ran on each event loop: its wait for a CPU, or long synchronous work.");
  for (const loop of loops) histogramSamples(out, "renio_event_loop_lag_seconds", labelText([["loop", loop.loop]]), loop.lag);
  family(out, "renio_event_loop_calls_total", "counter", "Model calls each event loop served (settled or refused).");
  for (const loop of loops) sample(out, "renio_event_loop_calls_total", labelText([["loop", loop.loop]]), loop.calls);
}
