import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeLogRecord, encodeLogRecord, LogRecordError, type LogRecord } from "./admission-log-record.ts";

const start = { id: "e1", receivedAt: 1, requestId: "r-1", keyId: null, project: null, route: "/v1/messages", model: null, provider: null, upstreamModel: null, stream: true, requestBytes: 9, clientAddress: "::1", requestBody: "{}" };
const charges = [{ budgetId: "b", period: "2026-12", limit: 5, mode: "observe" as const, amount: 0.25 }];
const records: LogRecord[] = [
  { admit: { start, charges, admitted: false, decidedAt: 2, instanceId: null } },
  { finish: { kind: "complete", id: "e1", completion: { outcome: "timeout", status: 504, ttfbMs: null, totalMs: 7, upstreamMs: null, usage: { inputTokens: 1, cachedInputTokens: 2, outputTokens: 3 }, cost: null, errorCode: "upstream_timeout", responseBody: null }, charges, actualCost: 0.1, finishedAt: 3 } },
  { finish: { kind: "refuse", refusal: { start, status: 401, errorCode: "invalid_api_key" }, finishedAt: 4 } },
];

test("each kind of record reads back as written, one JSON line carrying its format version first", () => {
  for (const record of records) {
    const line = encodeLogRecord(record);
    assert.ok(line.startsWith('{"v":1,') && line.endsWith("}\n") && !line.slice(0, -1).includes("\n"), line);
    assert.deepEqual(decodeLogRecord(line.slice(0, -1)), record);
  }
});

test("an unsent record (a failed admission write) is written as format version 2 and reads back; every other record stays version 1", () => {
  const unsent: LogRecord = { finish: { kind: "unsent", start, finishedAt: 5, fence: false } };
  const line = encodeLogRecord(unsent);
  assert.ok(line.startsWith('{"v":2,"finish":'), line);
  assert.deepEqual(decodeLogRecord(line.slice(0, -1)), unsent);
});

test("a record missing a field, or with a value of the wrong kind, is refused saying where", () => {
  const line = encodeLogRecord(records[1]!).slice(0, -1);
  for (const [broken, where] of [
    [line.replace('"outcome":"timeout"', '"outcome":"great"'), /finish\.completion\.outcome: /],
    [line.replace('"actualCost":0.1,', ""), /finish\.actualCost: /],
    [line.replace('"kind":"complete"', '"kind":"cancel"'), /finish\.kind: /],
  ] as const) {
    assert.throws(() => decodeLogRecord(broken), (error: unknown) => error instanceof LogRecordError && where.test(error.message) && error.message.startsWith("not a valid finish record: "));
  }
  assert.throws(() => decodeLogRecord("[1]"), { name: "LogRecordError", message: "not a JSON object" });
});
