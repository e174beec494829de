/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` a client sends,
 * validated, and fresh random ids. An invalid header is ignored (a new trace starts), never an error.
 */

/** A valid `traceparent`, version 00. */
export interface TraceParent {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** The caller's span: 16 lower-case hex digits, not all zero. */
  readonly parentId: string;
  /** The trace flags byte (bit 0: sampled). */
  readonly flags: number;
}

/** The sampled bit of the trace flags. */
export const SAMPLED = 1;

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/**
 * Parses a `traceparent` header; undefined when absent or invalid. Version 00 must have exactly
 * four fields; a later version (not ff) is read for its first four, as the spec asks.
 */
export function parseTraceparent(value: string | null): TraceParent | undefined {
  if (value === null) return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (match === null) return undefined;
  const [, version, traceId, parentId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || parentId === ZERO_SPAN) return undefined;
  return { traceId, parentId, flags: parseInt(flags, 16) };
}

/** A version-00 `traceparent`. */
export function formatTraceparent(traceId: string, spanId: string, flags: number): string {
  return `00-${traceId}-${spanId}-${HEX[flags & 0xff]}`;
}

/** A `tracestate` worth forwarding: at most 512 characters (the spec's limit), else dropped. */
export function usableTracestate(value: string | null): string | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  return trimmed.length === 0 || trimmed.length > 512 ? undefined : trimmed;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
/** Random bytes drawn 4 KiB at a time (one getRandomValues per ~170 calls). */
const pool = new Uint8Array(4096);
let next = pool.length;

/** `bytes` random bytes as lower-case hex, never all zero. */
export function randomHex(bytes: 8 | 16): string {
  for (;;) {
    if (next + bytes > pool.length) {
      crypto.getRandomValues(pool);
      next = 0;
    }
    let hex = "";
    let nonZero = 0;
    for (let i = next; i < next + bytes; i++) {
      hex += HEX[pool[i]!];
      nonZero |= pool[i]!;
    }
    next += bytes;
    if (nonZero !== 0) return hex;
  }
}
