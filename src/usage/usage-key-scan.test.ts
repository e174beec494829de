import assert from "node:assert/strict";
import { test } from "node:test";
import { findUsageValue } from "./usage-key-scan.ts";

const enc = new TextEncoder();
const find = (text: string, from = 0) => findUsageValue(enc.encode(text), from);

test("finds a usage key with a non-null value", () => {
  assert.equal(find('{"usage":{"a":1}}'), 9);
  assert.equal(find('{"usage" :\t {"a":1}}'), 12);
  assert.equal(find('{"usage":5}'), 9);
  assert.equal(find('{"x":"usage","usage":null,"usage":[]}'), 34);
});

test("ignores null values, string values, escaped text and partial keys", () => {
  for (const text of [
    '{"usage":null}',
    '{"usage" : null}',
    '{"kind":"usage"}',
    '{"text":"say \\"usage\\": 5"}',
    '{"usages":{}}',
    '{"my_usage":{}}',
    '{"usage":',
    '"usage"',
    "usage",
    "",
  ]) {
    assert.equal(find(text), enc.encode(text).length, text);
  }
});

test("starts at `from`", () => {
  const text = '{"usage":1}\n\n{"usage":2}';
  assert.equal(find(text, 0), 9);
  assert.equal(find(text, 1), 9, "the key may start at `from`");
  assert.equal(find(text, 2), 22);
  assert.equal(find(text, 23), text.length);
});
