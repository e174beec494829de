import assert from "node:assert/strict";
import { test } from "node:test";
import { formatTraceparent, parseTraceparent, randomHex, usableTracestate } from "./trace-context.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

test("a valid version-00 traceparent is read; surrounding spaces are allowed", () => {
  assert.deepEqual(parseTraceparent(`00-${TRACE}-${SPAN}-01`), { traceId: TRACE, parentId: SPAN, flags: 1 });
  assert.deepEqual(parseTraceparent(` 00-${TRACE}-${SPAN}-00 `), { traceId: TRACE, parentId: SPAN, flags: 0 });
});

test("a later version is read for its first four fields, as the spec asks", () => {
  assert.deepEqual(parseTraceparent(`01-${TRACE}-${SPAN}-03-whatever`), { traceId: TRACE, parentId: SPAN, flags: 3 });
});

test("invalid traceparents are ignored (undefined), never an error", () => {
  for (const value of [
    null,
    "",
    `ff-${TRACE}-${SPAN}-01`,
    `00-${"0".repeat(32)}-${SPAN}-01`,
    `00-${TRACE}-${"0".repeat(16)}-01`,
    `00-${TRACE.toUpperCase()}-${SPAN}-01`,
    `00-${TRACE}-${SPAN}-01-extra`,
    `00-${TRACE.slice(1)}-${SPAN}-01`,
    `00-${TRACE}-${SPAN}-1`,
    `0-${TRACE}-${SPAN}-01`,
    `00_${TRACE}_${SPAN}_01`,
  ]) {
    assert.equal(parseTraceparent(value), undefined, String(value));
  }
});

test("formatting writes version 00 with two-digit flags", () => {
  assert.equal(formatTraceparent(TRACE, SPAN, 1), `00-${TRACE}-${SPAN}-01`);
  assert.equal(formatTraceparent(TRACE, SPAN, 0), `00-${TRACE}-${SPAN}-00`);
});

test("tracestate: kept when present and within 512 characters", () => {
  assert.equal(usableTracestate("a=1,b=2"), "a=1,b=2");
  assert.equal(usableTracestate(null), undefined);
  assert.equal(usableTracestate("  "), undefined);
  assert.equal(usableTracestate(`a=${"x".repeat(511)}`), undefined);
});

test("random ids are lower-case hex of the right length and differ", () => {
  const ids = new Set(Array.from({ length: 1000 }, () => randomHex(8)));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, /^[0-9a-f]{16}$/);
  assert.match(randomHex(16), /^[0-9a-f]{32}$/);
});
