/**
 * Finds where a JSON text first breaks the grammar, for runtimes whose JSON.parse errors carry
 * no position (Bun's JavaScriptCore says only "JSON Parse error: Expected '}'").
 */
export function jsonSyntaxErrorOffset(json: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw new JsonSyntaxAt(i);
  };
  const space = () => {
    while (i < json.length && " \t\n\r".includes(json[i]!)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (json[i] !== ch) fail();
      i++;
    }
  };
  const string = () => {
    i++;
    for (;;) {
      if (i >= json.length) fail();
      const code = json.charCodeAt(i);
      if (code === 0x22) {
        i++;
        return;
      }
      if (code < 0x20) fail();
      if (code === 0x5c) {
        i++;
        const escape = json[i];
        if (escape === "u") {
          for (let k = 0; k < 4; k++) {
            i++;
            if (!/[0-9a-fA-F]/.test(json[i] ?? "")) fail();
          }
        } else if (escape === undefined || !'"\\/bfnrt'.includes(escape)) fail();
      }
      i++;
    }
  };
  const digits = () => {
    const start = i;
    while (i < json.length && json[i]! >= "0" && json[i]! <= "9") i++;
    if (i === start) fail();
  };
  const number = () => {
    if (json[i] === "-") i++;
    if (json[i] === "0") i++;
    else digits();
    if (json[i] === ".") {
      i++;
      digits();
    }
    if (json[i] === "e" || json[i] === "E") {
      i++;
      if (json[i] === "+" || json[i] === "-") i++;
      digits();
    }
  };
  const value = (): void => {
    space();
    const ch = json[i];
    if (ch === "{") return container("}", true);
    if (ch === "[") return container("]", false);
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) return number();
    fail();
  };
  const container = (close: string, object: boolean) => {
    i++;
    space();
    if (json[i] === close) {
      i++;
      return;
    }
    for (;;) {
      if (object) {
        space();
        if (json[i] !== '"') fail();
        string();
        space();
        if (json[i] !== ":") fail();
        i++;
      }
      value();
      space();
      if (json[i] === close) {
        i++;
        return;
      }
      if (json[i] !== ",") fail();
      i++;
    }
  };
  try {
    value();
    space();
    if (i < json.length) fail();
    return undefined;
  } catch (error) {
    if (error instanceof JsonSyntaxAt) return Math.min(error.offset, json.length);
    throw error;
  }
}

class JsonSyntaxAt {
  constructor(readonly offset: number) {}
}
