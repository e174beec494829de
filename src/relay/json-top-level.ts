import { RelayError } from "../shared/relay-error.ts";

// A byte-level scan of a JSON object's top-level members, with no parse of their values.

const decoder = new TextDecoder();

/** One member of a top-level JSON object. */
export interface TopLevelMember {
  /** The decoded key, or "" for keys the caller does not look for. */
  key: string;
  /** Byte span of the value. */
  start: number;
  end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function malformed(): RelayError {
  return new RelayError(400, "invalid_json", "request body is not valid JSON");
}

/** Skips whitespace from `i`. */
function skipSpace(b: Uint8Array, i: number): number {
  while (isSpace(b[i])) i++;
  return i;
}

/** From an opening quote, returns the index after the closing one (native search for quotes). */
function skipString(b: Uint8Array, i: number): number {
  // Short strings (keys, roles): a byte loop beats a native call.
  const stop = Math.min(b.length, i + 24);
  for (let j = i + 1; j < stop; j++) {
    const c = b[j];
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++;
  }
  let j = stop - 1; // the backslash count below decides whether a quote found from here is escaped
  for (;;) {
    j = b.indexOf(QUOTE, j + 1);
    if (j === -1) throw malformed();
    let k = j - 1;
    while (b[k] === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j + 1; // an even run of backslashes: the quote is not escaped
  }
}

/** From the first byte of a value, returns the index after it. */
function skipValue(b: Uint8Array, i: number): number {
  const first = b[i];
  if (first === QUOTE) return skipString(b, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    while (i < b.length) {
      const c = b[i];
      if (c === QUOTE) {
        i = skipString(b, i);
        continue;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (--depth === 0) return i + 1;
      }
      i++;
    }
    throw malformed();
  }
  const start = i;
  while (i < b.length) {
    const c = b[i];
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
    i++;
  }
  if (i === start) throw malformed();
  return i;
}

/** The key between quotes at [start, end), decoded only when it could be one we change. */
function keyAt(b: Uint8Array, start: number, end: number, keyLengths: ReadonlySet<number>): string {
  const raw = b.subarray(start, end);
  if (!raw.includes(BACKSLASH)) {
    return keyLengths.has(raw.length) ? String.fromCharCode(...raw) : "";
  }
  const key: unknown = JSON.parse(decoder.decode(b.subarray(start - 1, end + 1)));
  return typeof key === "string" ? key : "";
}

/**
 * Finds the top-level object's opening brace and its members' value spans in one pass; keys
 * whose length is not in `keyLengths` are not decoded (""), the caller has no use for them.
 * Throws RelayError 400 `invalid_json` on malformed JSON.
 */
export function scanTopLevel(b: Uint8Array, keyLengths: ReadonlySet<number>): { open: number; members: TopLevelMember[] } {
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0; // UTF-8 byte order mark
  i = skipSpace(b, i);
  if (b[i] !== OPEN_BRACE) throw malformed();
  const open = i;
  const members: TopLevelMember[] = [];
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_BRACE) return { open, members };
  for (;;) {
    if (b[i] !== QUOTE) throw malformed();
    const keyEnd = skipString(b, i);
    const key = keyAt(b, i + 1, keyEnd - 1, keyLengths);
    i = skipSpace(b, keyEnd);
    if (b[i] !== COLON) throw malformed();
    const start = skipSpace(b, i + 1);
    const end = skipValue(b, start);
    members.push({ key, start, end });
    i = skipSpace(b, end);
    if (b[i] === CLOSE_BRACE) return { open, members };
    if (b[i] !== COMMA) throw malformed();
    i = skipSpace(b, i + 1);
  }
}
