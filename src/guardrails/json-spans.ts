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

const NUMBER_OR_WORD = /-?\d+(?:\.\d+)?(?:[eE][+\-]?\d+)?|true|false|null/y;

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
    let escaped = false;
    for (i++; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 34 /* " */) break;
      if (c === 92 /* \ */) {
        escaped = true;
        i++;
      } else if (c < 32) throw new JsonSpanError(`control character in a string at ${i}`);
    }
    if (i >= text.length) throw new JsonSpanError(`unterminated string at ${start}`);
    i++;
    const token = text.slice(start, i);
    if (!escaped) return { kind: "string", value: token.slice(1, -1), start, end: i };
    try {
      return { kind: "string", value: JSON.parse(token) as string, start, end: i };
    } catch {
      throw new JsonSpanError(`invalid escape in a string at ${start}`);
    }
  };
  const value = (depth: number): JsonNode => {
    if (depth > MAX_JSON_DEPTH) throw new JsonSpanError(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    space();
    const c = text[i];
    if (c === '"') return string();
    if (c === "{") {
      i++;
      const entries: [string, JsonNode][] = [];
      space();
      if (text[i] === "}") return i++, { kind: "object", entries };
      for (;;) {
        space();
        if (text[i] !== '"') throw new JsonSpanError(`expected a key at ${i}`);
        const key = string().value;
        space();
        if (text[i++] !== ":") throw new JsonSpanError(`expected ':' at ${i - 1}`);
        entries.push([key, value(depth + 1)]);
        space();
        const next = text[i++];
        if (next === "}") return { kind: "object", entries };
        if (next !== ",") throw new JsonSpanError(`expected ',' or '}' at ${i - 1}`);
      }
    }
    if (c === "[") {
      i++;
      const items: JsonNode[] = [];
      space();
      if (text[i] === "]") return i++, { kind: "array", items };
      for (;;) {
        items.push(value(depth + 1));
        space();
        const next = text[i++];
        if (next === "]") return { kind: "array", items };
        if (next !== ",") throw new JsonSpanError(`expected ',' or ']' at ${i - 1}`);
      }
    }
    NUMBER_OR_WORD.lastIndex = i;
    const m = NUMBER_OR_WORD.exec(text);
    if (m === null) throw new JsonSpanError(`unexpected character at ${i}`);
    i += m[0].length;
    return { kind: "scalar", raw: m[0] };
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
