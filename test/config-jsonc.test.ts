import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { jsonSyntaxErrorOffset } from "../src/config/json-syntax-position.ts";
import { parseJsonc } from "../src/config/jsonc.ts";

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
    assert.equal(located('{ "a": tru }'), "line 1, column 11");
    assert.equal(located('{\n  // comment\n  "a": [1, 2\n}'), "line 4, column 1");
    assert.equal(located('{ "a": "unterminated\n}'), "line 1, column 21");
    assert.equal(located('{ "a": 1 } x'), "line 1, column 12");
    assert.equal(located(""), "line 1, column 1");
  });
});

describe("jsonSyntaxErrorOffset", () => {
  test("undefined for valid JSON, the first bad offset otherwise", () => {
    for (const ok of ['{"a":[1,-2.5e+3,true,false,null,"\\u00e9\\n"]}', " [ ] ", '"x"', "0"]) assert.equal(jsonSyntaxErrorOffset(ok), undefined, ok);
    assert.equal(jsonSyntaxErrorOffset('{"a":01}'), 6);
    assert.equal(jsonSyntaxErrorOffset('{"a":"\\x"}'), 7);
    assert.equal(jsonSyntaxErrorOffset("[1,]"), 3);
    assert.equal(jsonSyntaxErrorOffset('{"a" 1}'), 5);
  });
});
