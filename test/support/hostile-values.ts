import type { Prng } from "./prng.ts";

/**
 * Values a hostile caller or an unlucky operator sends: names of `Object.prototype` members,
 * NUL and other control characters, lone surrogates, 10,000-character strings, right-to-left
 * text and emoji, SQL and JSON metacharacters, and values of the wrong type.
 */

/** Names that a lookup on a plain object finds on its prototype. */
export const PROTOTYPE_NAMES = [
  "constructor", "toString", "__proto__", "hasOwnProperty", "valueOf", "isPrototypeOf", "propertyIsEnumerable",
  "toLocaleString", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
] as const;

const CONTROL = ["\u0000", "a\u0000b", "\u0001", "\u0007", "\t", "\n", "\r\n", "\u001b[31mred\u001b[0m", "\u007f", "\u0085", "\u009f"];
const SURROGATES = ["\ud800", "x\udfff", "\udbff\u0041", "\ud83d"];
const LONG = ["a".repeat(10_000), "é".repeat(10_000), "🚀".repeat(5_000), "x".repeat(257), "y".repeat(1025)];
const TEXT = ["مرحبا بالعالم", "\u202eevil\u202c", "שלום", "🚀", "👩‍👩‍👧‍👦", "ñandú", "日本語", "Zalgo\u0301\u0301\u0301", " ", "", "  padded  "];
const SQL = ["' OR '1'='1", "'; drop table journal_entry; --", "\"; delete from budget_usage; --", "%", "_", "\\", "a' || 'b", "$1", "?"];
const JSON_META = ["{\"a\":1}", "[", "]", "\"", "\\u0000", "\\\"", "null", "true", "1e309", "-0", "NaN", "}{"];
const PATHISH = ["../..", "/", "a/b", "%00", "%2F", "?x=1", "#frag", ".", ".."];
const PLAIN = ["mock-gpt", "mock-claude", "tests", "test", "all", "default", "ok", "refused"];

/** One hostile string, sometimes glued to a plain one. */
export function hostileString(rng: Prng): string {
  const pool = rng.pick([PROTOTYPE_NAMES, CONTROL, SURROGATES, LONG, TEXT, SQL, JSON_META, PATHISH, PLAIN] as const);
  const value = rng.pick(pool);
  return rng.chance(0.25) ? `${rng.pick(PLAIN)}${value}` : value;
}

/** A hostile string that can travel in an HTTP header value (Latin-1, no NUL, CR or LF). */
export function hostileHeader(rng: Prng): string {
  for (;;) {
    const value = hostileString(rng);
    if (/^[\u0020-\u007e\u0080-\u00ff\t]{0,10000}$/.test(value) && !/[\u0000\r\n]/.test(value)) return value;
  }
}

/** Any JSON value a field might be given: mostly hostile strings, sometimes another type. */
export function hostileValue(rng: Prng, depth = 0): unknown {
  const roll = rng.int(12);
  if (roll < 7 || depth > 1) return hostileString(rng);
  if (roll === 7) return rng.pick([0, -1, 1.5, 1e308, -0, 9_007_199_254_740_993, 2 ** 31]);
  if (roll === 8) return rng.pick([null, true, false]);
  if (roll === 9) return [hostileValue(rng, depth + 1), hostileValue(rng, depth + 1)];
  return hostileObject(rng, depth + 1);
}

/** A JSON object whose keys are hostile (prototype names among them) and values anything. */
export function hostileObject(rng: Prng, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = rng.int(3) + 1; i > 0; i--) {
    // defineProperty: a `__proto__` key is a key, as JSON.parse on the other side will make it.
    Object.defineProperty(out, depth > 2 ? "x" : hostileString(rng), { value: depth > 2 ? 1 : hostileValue(rng, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A path segment carrying `value`: percent-encoded as UTF-8, a lone surrogate as the three bytes
 * a lenient encoder would send (not valid UTF-8).
 */
export function pathSegment(value: string): string {
  let out = "";
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join("");
    else out += encodeURIComponent(char);
  }
  return out;
}
