import { jsonSyntaxErrorOffset } from "./json-syntax-position.ts";

/**
 * Parses JSON with comments (`//`, `/* *\/`) and trailing commas, as editors write it.
 * Throws SyntaxError naming line and column.
 */
export function parseJsonc(text: string): unknown {
  const json = stripJsonc(text);
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new SyntaxError(describeSyntaxError(json, error));
  }
}

/** Replaces comments and trailing commas with spaces, keeping every offset in place. */
function stripJsonc(text: string): string {
  const out = text.split("");
  let i = 0;
  let lastSignificant = -1;
  while (i < text.length) {
    const ch = text[i];
    const next = text[i + 1];
    if (ch === '"') {
      const start = i;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
      lastSignificant = start;
    } else if (ch === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") out[i++] = " ";
    } else if (ch === "/" && next === "*") {
      while (i < text.length && !(text[i] === "*" && text[i + 1] === "/")) {
        if (text[i] !== "\n") out[i] = " ";
        i++;
      }
      if (i < text.length) out[i] = out[i + 1] = " ";
      i += 2;
    } else {
      if ((ch === "}" || ch === "]") && lastSignificant >= 0 && text[lastSignificant] === ",") out[lastSignificant] = " ";
      if (ch !== undefined && !/\s/.test(ch)) lastSignificant = i;
      i++;
    }
  }
  return out.join("");
}

function describeSyntaxError(json: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(message)?.[1] ?? jsonSyntaxErrorOffset(json);
  if (position === undefined) return `invalid JSON: ${message}`;
  const before = json.slice(0, Number(position));
  const line = before.split("\n").length;
  const column = Number(position) - before.lastIndexOf("\n");
  return `invalid JSON at line ${line}, column ${column}: ${message.replace(/ in JSON at position \d+.*$/, "")}`;
}
