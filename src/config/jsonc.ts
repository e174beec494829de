import { ConfigSyntaxError, type ConfigDocument, type TextPosition } from "./config-document.ts";
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";

/** JSON(C) text that does not parse: where it breaks and why. */
export class JsoncSyntaxError extends ConfigSyntaxError {
  constructor(position: TextPosition, reason: string) {
    super("JSON", position, reason);
    this.name = "JsoncSyntaxError";
  }
}

/** A parsed JSON(C) text: its value, and where each part of it is written. */
export type JsoncDocument = ConfigDocument;

/**
 * Parses JSON with comments (`//`, `/* *\/`) and trailing commas, as editors write it, with
 * Microsoft's jsonc-parser (the one VS Code uses). Throws {@link JsoncSyntaxError} at the first
 * problem.
 */
export function parseJsoncDocument(text: string): JsoncDocument {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined || root === undefined) {
    const offset = first?.offset ?? 0;
    throw new JsoncSyntaxError(positionOf(text, offset), first === undefined ? "expected a value" : reason(first, text));
  }
  return {
    value: valueOf(root),
    locate: (path) => positionOf(text, writtenAt(root, path).offset),
  };
}

/** The value of a JSON(C) text; see {@link parseJsoncDocument}. */
export function parseJsonc(text: string): unknown {
  return parseJsoncDocument(text).value;
}

/** The node at `path`, its key when it is an object member, else the nearest ancestor written. */
function writtenAt(root: Node, path: ReadonlyArray<PropertyKey>): Node {
  for (let length = path.length; length > 0; length--) {
    const segments = path.slice(0, length).map((part) => (typeof part === "number" ? part : String(part)));
    const node = findNodeAtLocation(root, segments);
    if (node !== undefined) return node.parent?.type === "property" ? (node.parent.children?.[0] ?? node) : node;
  }
  return root;
}

/** Plain objects (own properties even for `__proto__`), arrays and primitives; a repeated key keeps its last value, as JSON.parse does. */
function valueOf(node: Node): unknown {
  if (node.type === "array") return (node.children ?? []).map(valueOf);
  if (node.type !== "object") return node.value as unknown;
  const object: Record<string, unknown> = {};
  for (const property of node.children ?? []) {
    const [key, value] = property.children ?? [];
    if (key !== undefined && value !== undefined) {
      Object.defineProperty(object, String(key.value), { value: valueOf(value), enumerable: true, writable: true, configurable: true });
    }
  }
  return object;
}

const REASONS: Readonly<Record<string, string>> = {
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: "expected ':'",
  CommaExpected: "expected ','",
  CloseBraceExpected: "expected '}'",
  CloseBracketExpected: "expected ']'",
  EndOfFileExpected: "unexpected text after the end",
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid \\u escape",
  InvalidEscapeCharacter: "invalid escape in a string",
  InvalidCharacter: "control character in a string (escape it)",
};

function reason(error: ParseError, text: string): string {
  const name = printParseErrorCode(error.error);
  if (name === "InvalidSymbol") return `unexpected ${JSON.stringify(text.slice(error.offset, error.offset + Math.min(error.length, 20)))}`;
  return REASONS[name] ?? name;
}

function positionOf(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
