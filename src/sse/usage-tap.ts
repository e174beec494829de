import type { Usage, WireFormat } from "../shared/usage.ts";
import { createUsageScanner, type UsageTapOptions } from "./usage-scanner.ts";

export type { UsageTapOptions } from "./usage-scanner.ts";

/** A pass-through stream over an SSE response that records the usage it carries. */
export interface UsageTap {
  readonly stream: TransformStream<Uint8Array, Uint8Array>;
  /** Usage seen so far (null when none); callable at any time, also after an error or cancel. */
  usage(): Usage | null;
  /** Whether the provider's final usage event was seen (see UsageScanner.usageFinal). */
  usageFinal(): boolean;
}

/**
 * Watches an SSE response as it passes and records its usage: a TransformStream over
 * createUsageScanner (see there for the events read and the drop rule). Without
 * `dropUsageChunk` every input chunk is forwarded as the same object; with it, the usage-only
 * chunk event is removed, every other byte is forwarded unchanged, and at most the incomplete
 * trailing event is held back. Where no stream is needed, use the scanner directly.
 */
export function createUsageTap(format: WireFormat, options: UsageTapOptions): UsageTap {
  const scanner = createUsageScanner(format, options);
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(input, controller) {
      const out = scanner.push(input);
      if (out.length > 0 || out === input) controller.enqueue(out);
    },
    flush(controller) {
      const rest = scanner.end();
      if (rest.length > 0) controller.enqueue(rest);
    },
  });
  return { stream, usage: scanner.usage, usageFinal: scanner.usageFinal };
}
