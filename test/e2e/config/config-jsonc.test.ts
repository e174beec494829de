import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError, formatProblem } from "../../../src/config/config-error.ts";
import { parseConfigText } from "../../../src/config/config-load.ts";
import { parseJsonc, parseJsoncDocument } from "../../../src/config/jsonc.ts";

/** The "line L, column C" parseJsonc reports for `text`. */
function located(text: string): string {
  try {
    parseJsonc(text);
  } catch (error) {
    assert.ok(error instanceof SyntaxError);
    const match = /^invalid JSON at (line \d+, column \d+): /.exec(error.message);
    assert.ok(match, error.message);
    return match[1]!;
  }
  assert.fail("parsed without an error");
}

describe("parseJsonc", () => {
  test("comments and trailing commas are accepted; strings keep // and /*", () => {
    const text = '// head\n{ /* c */ "a": [1, 2,], "url": "http://x//y/*z*/", // tail\n "b": { "c": true, }, }\n';
    assert.deepEqual(parseJsonc(text), { a: [1, 2], url: "http://x//y/*z*/", b: { c: true } });
  });

  test("errors name the line and column on every runtime", () => {
    assert.equal(located('{\n  "a": 1\n  "b": 2\n}'), "line 3, column 3");
    assert.equal(located('{ "a": tru }'), "line 1, column 8");
    assert.equal(located('{\n  // comment\n  "a": [1, 2\n}'), "line 4, column 1");
    assert.equal(located('{ "a": "unterminated\n}'), "line 1, column 8");
    assert.equal(located('{ "a": 1 } x'), "line 1, column 12");
    assert.equal(located(""), "line 1, column 1");
  });
});

describe("parseJsonc", () => {
  test("says what is wrong in words", () => {
    const reason = (text: string) => {
      try {
        parseJsonc(text);
      } catch (error) {
        return (error as Error).message.replace(/^invalid JSON at line \d+, column \d+: /, "");
      }
      assert.fail(`${text} parsed`);
    };
    assert.equal(reason('{ "a": tru }'), 'unexpected "tru"');
    assert.equal(reason('{ "a" 1 }'), "expected ':'");
    assert.equal(reason('{ "a": 1 "b": 2 }'), "expected ','");
    assert.equal(reason("{ 'a': 1 }"), `unexpected "'a'"`);
    assert.equal(reason('{ "a": "x\n" }'), "unterminated string");
    assert.equal(reason('{ "a": 1 } /* open'), "unterminated comment");
    assert.equal(reason('{ "a": 1 } {}'), "unexpected text after the end");
  });

  test("a key named __proto__ is an own key, and a repeated key keeps its last value, as with JSON.parse", () => {
    const value = parseJsonc('{ "__proto__": { "x": 1 }, "k": 1, "k": 2 }') as Record<string, unknown>;
    assert.deepEqual(Object.keys(value), ["__proto__", "k"]);
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.equal(value["k"], 2);
  });
});

describe("parseJsoncDocument locate", () => {
  const text = '{\n  // keys\n  "keys": [\n    { "id": "a", "regions": "eu" },\n    {}\n  ],\n}\n';
  const document = parseJsoncDocument(text);
  test("an object member is located at its key, an array element at its start", () => {
    assert.deepEqual(document.locate(["keys", 0, "regions"]), { line: 4, column: 18 });
    assert.deepEqual(document.locate(["keys", 1]), { line: 5, column: 5 });
    assert.deepEqual(document.locate(["keys"]), { line: 3, column: 3 });
  });

  test("a path not written in the text is located at its nearest written ancestor", () => {
    assert.deepEqual(document.locate(["keys", 1, "secret"]), { line: 5, column: 5 });
    assert.deepEqual(document.locate(["server", "port"]), { line: 1, column: 1 });
  });
});

describe("parseConfigText: every problem at source:line:column", () => {
  const problems = (text: string, env: Record<string, string> = {}): string[] => {
    try {
      parseConfigText(text, env, "renio.json");
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems.map(formatProblem);
    }
    assert.fail("the config was accepted");
  };
  const text = `{
  "providers": {
    "m": { "type": "mock", "colour": "blue" }
  },
  "models": { "x": { "provider": "nope" } },
  "server": { "port": "8080" },
  "keys": [
    { "id": "a", "secret": "\${RENIO_TEST_SURELY_UNSET}" },
    { "id": "b" }
  ]
}
`;

  test("unknown key, wrong type, missing key (at its object), unset variable (once: not also the empty value's problem)", () => {
    assert.deepEqual(problems(text).sort(), [
      "renio.json:3:28: providers.m.colour: unknown key",
      "renio.json:6:15: server.port: Invalid input: expected number, received string",
      "renio.json:8:18: keys[0].secret: environment variable RENIO_TEST_SURELY_UNSET is not set",
      "renio.json:9:5: keys[1].secret: Invalid input: expected string, received undefined",
    ]);
  });

  test("cross-field problems are located too", () => {
    const fixed = text.replace(', "colour": "blue"', "").replace('"8080"', "8080").replace('{ "id": "b" }', '{ "id": "a", "secret": "sk-renio-0123456789" }');
    assert.deepEqual(problems(fixed, { RENIO_TEST_SURELY_UNSET: "sk-renio-9876543210" }).sort(), [
      'renio.json:5:22: models.x.provider: unknown provider "nope" (configured: m)',
      'renio.json:9:7: keys[1].id: duplicate key id "a"',
    ]);
  });

  test("a syntax error, in the same form", () => {
    assert.deepEqual(problems('{\n  "providers": {}\n  "models": {}\n}'), ["renio.json:3:3: invalid JSON: expected ','"]);
  });
});
