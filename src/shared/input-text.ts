import { RelayError } from "./relay-error.ts";

/**
 * The one set of rules for text that enters Renio and may reach the store (an id, a name, a
 * filter, a path segment): no control characters (U+0000–U+001F, U+007F–U+009F), no lone
 * surrogates (half of a UTF-16 pair, which has no UTF-8 form), and a bounded length. PostgreSQL
 * refuses U+0000 in text and SQLite keeps it, so checking here gives both backends the same
 * answer: a 400 naming the field, before anything is stored. Lengths are UTF-16 code units (an
 * emoji counts as two).
 */
export const TEXT_BOUNDS = {
  /** A name or id: a model, project, key, budget, provider, region, scope, filter value. */
  name: 256,
  /** One query parameter value (a cursor, a time, a filter). */
  queryValue: 1024,
  /** The request target (path and query) as sent; longer ones get 414. */
  url: 8192,
  /** A command-line argument of the CLI. */
  argument: 4096,
} as const;

/** The largest admin API request body (JSON), in bytes; larger ones get 413. */
export const ADMIN_BODY_MAX_BYTES = 1024 * 1024;

/** A control character, or a surrogate without its other half. */
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const FORBIDDEN_ALL = new RegExp(FORBIDDEN.source, "g");

/**
 * What is wrong with `value` as input text of at most `max` code units, as the end of a
 * sentence naming the field ("contains a control character (U+0000) at character 3; remove
 * it"); undefined when it is fine.
 */
export function textProblem(value: string, max: number): string | undefined {
  if (value.length > max) return `is ${value.length} characters long; the limit is ${max}`;
  const found = FORBIDDEN.exec(value);
  if (found === null) return undefined;
  const code = found[0].charCodeAt(0);
  const what = code >= 0xd800 && code <= 0xdfff ? "a lone surrogate (half of a UTF-16 pair)" : "a control character";
  return `contains ${what} (${codePoint(code)}) at character ${found.index + 1}; remove it`;
}

/**
 * The first string of a parsed JSON value (a key or a value, at any depth) that breaks the input
 * rules, with its path (`["team", 0]`); undefined when every one is fine.
 */
export function jsonTextProblem(value: unknown, max: number, path: (string | number)[] = []): { path: (string | number)[]; problem: string } | undefined {
  if (typeof value === "string") {
    const problem = textProblem(value, max);
    return problem === undefined ? undefined : { path, problem };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = jsonTextProblem(item, max, [...path, index]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    const problem = textProblem(key, max);
    if (problem !== undefined) return { path: [...path, key], problem: `(the key) ${problem}` };
    const found = jsonTextProblem(item, max, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `value`, or a 400 `invalid_request` naming `field` (e.g. "The `model` field", "Query parameter `key`"). */
export function checkedText(field: string, value: string, max: number): string {
  const problem = textProblem(value, max);
  if (problem !== undefined) throw new RelayError(400, "invalid_request", `${field} ${problem}`);
  return value;
}

/**
 * `value` in a form every store accepts, for the record of a refused request: its first `max`
 * code units, control characters and lone surrogates written as `\uXXXX` escapes, and `…` when
 * it was cut. Never holds a raw NUL.
 */
export function journalText(value: string, max: number = TEXT_BOUNDS.name): string {
  const head = value.length > max ? value.slice(0, max) : value;
  const escaped = FORBIDDEN.test(head) ? head.replace(FORBIDDEN_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) : head;
  return head === value ? escaped : `${escaped}…`;
}

function codePoint(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}
