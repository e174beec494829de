import type { Detector, Match } from "./detector.ts";

/**
 * The matches of `detectors` in `text` that start at or after `from`, in order and never
 * overlapping: where two overlap, the detector of lower priority number wins, then the longer
 * match (a card number is not also a phone number).
 */
export function findMatches(text: string, detectors: readonly Detector[], from = 0): Match[] {
  const found: Match[] = [];
  for (const detector of detectors) detector.find(text, from, found);
  if (found.length <= 1) return found;
  found.sort((a, b) => a.detector.priority - b.detector.priority || b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: Match[] = [];
  for (const match of found) if (!kept.some((k) => k.start < match.end && match.start < k.end)) kept.push(match);
  return kept.sort((a, b) => a.start - b.start);
}

/**
 * What separates the texts findEach scans together: characters no built-in detector matches
 * or reads across (a word list's phrases allow three between words, this has six).
 */
export const TEXT_SEPARATOR = "\n\u0000\u0000\u0000\u0000\n";

/**
 * The matches in each of `texts` (offsets within each), found in one scan of them joined by
 * TEXT_SEPARATOR: a request's many short strings cost one pass of each detector instead of one
 * per string. A match reaching across a separator (only a custom pattern could) is dropped.
 */
export function findEach(texts: readonly string[], detectors: readonly Detector[]): Match[][] {
  const each: Match[][] = texts.map(() => []);
  if (texts.length === 0 || detectors.length === 0) return each;
  const starts: number[] = [];
  let at = 0;
  for (const text of texts) {
    starts.push(at);
    at += text.length + TEXT_SEPARATOR.length;
  }
  for (const match of findMatches(texts.join(TEXT_SEPARATOR), detectors)) {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= match.start) lo = mid;
      else hi = mid - 1;
    }
    const offset = starts[lo]!;
    if (match.end - offset > texts[lo]!.length) continue;
    each[lo]!.push({ start: match.start - offset, end: match.end - offset, detector: match.detector });
  }
  return each;
}

/** The earliest index of `text` from which more text could still make or change a match of any of `detectors`. */
export function pendingFrom(text: string, detectors: readonly Detector[]): number {
  let from = text.length;
  for (const detector of detectors) from = Math.min(from, detector.pending(text));
  return from;
}

/** A replacement of the characters [start, end) of a text. */
export interface Replacement {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** `text` with the replacements (in order, not overlapping) applied. */
export function applyReplacements(text: string, replacements: readonly Replacement[]): string {
  if (replacements.length === 0) return text;
  let out = "";
  let at = 0;
  for (const r of replacements) {
    out += text.slice(at, r.start) + r.text;
    at = r.end;
  }
  return out + text.slice(at);
}
