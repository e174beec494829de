/**
 * A JSON document read with the place of each string in its text, so that a string can be
 * replaced and every other byte kept: numbers keep their digits (JSON.parse would round large
 * integers), spacing and key order stay as the caller wrote them.
 */

/** A string value: its decoded text and where its token (quotes included) is in the document. */
export interface JsonString {
  readonly kind: "string";
  readonly value: string;
  readonly start: number;
  readonly end: number;
}
export interface JsonObject {
  readonly kind: "object";
  readonly entries: ReadonlyArray<readonly [string, JsonNode]>;
}
export interface JsonArray {
  readonly kind: "array";
  readonly items: readonly JsonNode[];
}
/** A number, boolean or null, as written. */
export interface JsonScalar {
  readonly kind: "scalar";
  readonly raw: string;
}
export type JsonNode = JsonString | JsonObject | JsonArray | JsonScalar;

/** The deepest nesting read; deeper documents are refused rather than scanned in part. */
export const MAX_JSON_DEPTH = 256;

/** A document Renio will not scan (not JSON, or nested deeper than MAX_JSON_DEPTH). */
export class JsonSpanError extends Error {
  override name = "JsonSpanError";
}

const SCALAR = /^(?:-?\d+(?:\.\d+)?(?:[eE][+\-]?\d+)?|true|false|null)$/;
/** What ends a number or literal: , } ] and white space. */
const DELIMITER = new Set([44, 125, 93, 32, 10, 13, 9]);

/** Reads `text` (a JSON document) into nodes; throws JsonSpanError when it is not JSON or too deep. */
export function readJsonSpans(text: string): JsonNode {
  let i = 0;
  const space = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else return;
    }
  };
  const string = (): JsonString => {
    const start = i;
    // The closing quote: the next one not escaped (preceded by an even run of backslashes).
    let close = text.indexOf('"', start + 1);
    for (;;) {
      if (close < 0) throw new JsonSpanError(`unterminated string at ${start}`);
      let slashes = 0;
      while (text.charCodeAt(close - 1 - slashes) === 92) slashes++;
      if (slashes % 2 === 0) break;
      close = text.indexOf('"', close + 1);
    }
    i = close + 1;
    const backslash = text.indexOf("\\", start + 1);
    if (backslash < 0 || backslash > close) return { kind: "string", value: text.slice(start + 1, close), start, end: i };
    try {
      return { kind: "string", value: JSON.parse(text.slice(start, i)) as string, start, end: i };
    } catch {
      throw new JsonSpanError(`invalid string at ${start}`);
    }
  };
  const value = (depth: number): JsonNode => {
    if (depth > MAX_JSON_DEPTH) throw new JsonSpanError(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    space();
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) return string();
    if (c === 123 /* { */) {
      i++;
      const entries: [string, JsonNode][] = [];
      space();
      if (text.charCodeAt(i) === 125) return i++, { kind: "object", entries };
      for (;;) {
        space();
        if (text.charCodeAt(i) !== 34) throw new JsonSpanError(`expected a key at ${i}`);
        const key = string().value;
        space();
        if (text.charCodeAt(i++) !== 58 /* : */) throw new JsonSpanError(`expected ':' at ${i - 1}`);
        entries.push([key, value(depth + 1)]);
        space();
        const next = text.charCodeAt(i++);
        if (next === 125 /* } */) return { kind: "object", entries };
        if (next !== 44 /* , */) throw new JsonSpanError(`expected ',' or '}' at ${i - 1}`);
      }
    }
    if (c === 91 /* [ */) {
      i++;
      const items: JsonNode[] = [];
      space();
      if (text.charCodeAt(i) === 93) return i++, { kind: "array", items };
      for (;;) {
        items.push(value(depth + 1));
        space();
        const next = text.charCodeAt(i++);
        if (next === 93 /* ] */) return { kind: "array", items };
        if (next !== 44) throw new JsonSpanError(`expected ',' or ']' at ${i - 1}`);
      }
    }
    // A number, true, false or null: up to the next delimiter.
    const from = i;
    while (i < text.length && !DELIMITER.has(text.charCodeAt(i))) i++;
    const raw = text.slice(from, i);
    if (!SCALAR.test(raw)) throw new JsonSpanError(`unexpected value at ${from}`);
    return { kind: "scalar", raw };
  };
  const root = value(0);
  space();
  if (i !== text.length) throw new JsonSpanError(`unexpected text after the document at ${i}`);
  return root;
}

/** The member `key` of an object node (the last one when repeated, as JSON.parse reads it), or undefined. */
export function member(node: JsonNode | undefined, key: string): JsonNode | undefined {
  if (node?.kind !== "object") return undefined;
  for (let i = node.entries.length - 1; i >= 0; i--) if (node.entries[i]![0] === key) return node.entries[i]![1];
  return undefined;
}

/** The number `node` holds, or undefined. */
export function numberOf(node: JsonNode | undefined): number | undefined {
  return node?.kind === "scalar" && node.raw !== "null" && node.raw !== "true" && node.raw !== "false" ? Number(node.raw) : undefined;
}

/** The string value of `node`, or undefined. */
export function stringOf(node: JsonNode | undefined): string | undefined {
  return node?.kind === "string" ? node.value : undefined;
}
