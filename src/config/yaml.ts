import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type ErrorCode, type Node } from "yaml";
import { ConfigSyntaxError, type ConfigDocument, type TextPosition } from "./config-document.ts";

/** YAML text that does not parse: where it breaks and why. */
export class YamlSyntaxError extends ConfigSyntaxError {
  constructor(position: TextPosition, reason: string) {
    super("YAML", position, reason);
    this.name = "YamlSyntaxError";
  }
}

/**
 * Parses a YAML 1.2 text (core schema: `yes`/`on` stay strings, no timestamps) with the `yaml`
 * package. Throws {@link YamlSyntaxError} at the first problem, a repeated key included. Its
 * messages are the package's own without the quoted source line (which may hold a secret).
 */
export function parseYamlDocument(text: string): ConfigDocument {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, logLevel: "error" });
  const positionOf = (offset: number): TextPosition => {
    const { line, col } = lines.linePos(Math.max(0, offset));
    return { line, column: col };
  };
  const first = document.errors[0];
  if (first !== undefined) throw new YamlSyntaxError(positionOf(first.pos[0]), REASONS[first.code] ?? first.message);
  if (document.contents === null) throw new YamlSyntaxError(positionOf(0), "the document is empty");
  return {
    value: document.toJS({ maxAliasCount: 100 }) as unknown,
    locate: (path) => positionOf(writtenAt(document, path)),
  };
}

/** Messages of the package written for a programmer, said for an operator. */
const REASONS: Partial<Record<ErrorCode, string>> = {
  DUPLICATE_KEY: "a key is repeated (keys must be unique)",
  MULTIPLE_DOCS: "several documents (---); a config file holds one",
};

/** The offset of the node at `path` (of its key when it is a map value), else of its nearest ancestor written. */
function writtenAt(document: Document, path: ReadonlyArray<PropertyKey>): number {
  let node: unknown = document.contents;
  let at = rangeStart(node) ?? 0;
  for (const part of path) {
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && keyText(item.key) === String(part));
      if (pair === undefined) break;
      at = rangeStart(pair.key) ?? at;
      node = pair.value;
    } else if (isSeq(node) && typeof part === "number" && part < node.items.length) {
      node = node.items[part];
      at = rangeStart(node) ?? at;
    } else {
      break;
    }
  }
  return at;
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String(key.value) : undefined;
}

function rangeStart(node: unknown): number | undefined {
  return (node as Node | null | undefined)?.range?.[0];
}
