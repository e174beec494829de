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
