/** One match of a detector in a text: the characters [start, end). */
export interface Match {
  readonly start: number;
  readonly end: number;
  readonly detector: Detector;
}

/**
 * Finds one kind of personal data or secret in text. Every detector bounds the length of its
 * matches, which is what lets a stream be scanned as it passes: `pending` says from where the
 * end of a text could still be (or become) part of a match, and only that much is held back.
 */
export interface Detector {
  /** The id a policy names it by (`email`, `iban`, a custom id). */
  readonly id: string;
  /** The placeholder's type: `EMAIL` gives `[EMAIL_1]`. */
  readonly label: string;
  /** Where matches of two detectors overlap, the lower priority wins (then the longer match). */
  readonly priority: number;
  /** The longest match, in characters. */
  readonly maxLength: number;
  /** Appends the matches in `text` that start at or after `from`, in order. */
  find(text: string, from: number, out: Match[]): void;
  /**
   * The earliest index of `text` at which a match may start that more text could complete or
   * change (`text.length` when there is none): a stream releases text only before it.
   */
  pending(text: string): number;
}

/** A test of one UTF-16 code unit. */
export type CharTest = (code: number) => boolean;

/** A character test from a regular expression class such as `[A-Za-z0-9._-]` (ASCII only; anything else is outside). */
export function asciiClass(pattern: RegExp): CharTest {
  const table = new Uint8Array(128);
  for (let code = 0; code < 128; code++) table[code] = pattern.test(String.fromCharCode(code)) ? 1 : 0;
  return (code) => code < 128 && table[code] === 1;
}

/** The start of the run of `inside` characters ending `text`, looking back at most `limit` characters. */
export function trailingRun(text: string, inside: CharTest, limit: number): number {
  const stop = Math.max(0, text.length - limit);
  let i = text.length;
  while (i > stop && inside(text.charCodeAt(i - 1))) i--;
  return i;
}

/** Where a match may begin in the trailing run of `inside` characters: its start, after any spaces (no match begins with one). */
export function pendingRun(text: string, inside: CharTest, limit: number): number {
  let i = trailingRun(text, inside, limit);
  while (i < text.length && text.charCodeAt(i) === 32) i++;
  return i;
}

/** What a regular-expression detector is made of. */
export interface RegexDetectorSpec {
  readonly id: string;
  readonly label: string;
  readonly priority: number;
  readonly maxLength: number;
  /** A global pattern whose matches are candidates. */
  readonly pattern: RegExp;
  /** Every character a match can contain (what `pending` holds back at the end of a stream's text). */
  readonly chars: CharTest;
  /** Checks a candidate (checksum, structure): the end of the match (a candidate may be shortened), or -1 to reject it. */
  readonly accept?: (text: string, start: number, candidate: string) => number;
  /** Something every text with a match contains (a digit, `@`, a prefix): a text without it is not searched. */
  readonly hint?: RegExp;
  /**
   * Characters a match may not follow (a word boundary of the detector's own). Checked here
   * rather than as a look-behind at the start of `pattern`, which would keep the regular
   * expression engine from skipping ahead to the pattern's first character.
   */
  readonly notAfter?: CharTest;
}

/** A detector from a pattern, an optional check of each candidate and the characters its matches are made of. */
export function regexDetector(spec: RegexDetectorSpec): Detector {
  const { pattern, accept, chars, maxLength, hint, notAfter } = spec;
  const detector: Detector = {
    id: spec.id,
    label: spec.label,
    priority: spec.priority,
    maxLength,
    find(text, from, out) {
      if (hint !== undefined && !hint.test(text)) return;
      pattern.lastIndex = from;
      for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
        const candidate = m[0];
        const bounded = notAfter === undefined || m.index === 0 || !notAfter(text.charCodeAt(m.index - 1));
        const end = candidate.length === 0 || !bounded ? -1 : accept === undefined ? m.index + candidate.length : accept(text, m.index, candidate);
        if (end > m.index && end - m.index <= maxLength) {
          out.push({ start: m.index, end, detector });
          pattern.lastIndex = end;
        } else {
          // A rejected candidate may hide a valid one starting inside it.
          pattern.lastIndex = m.index + 1;
        }
      }
    },
    pending: (text) => pendingRun(text, chars, maxLength),
  };
  return detector;
}

/** The digits of `text` (separators dropped). */
export function digitsOf(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) out += text[i];
  }
  return out;
}
