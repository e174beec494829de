import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JournalCompletion, JournalStart } from "../shared/journal-records.ts";
import { createLogger, defaultLogOptions, type LogOptions } from "./call-log.ts";

const start: JournalStart = {
  id: "01JDENTRY",
  receivedAt: 0,
  requestId: "req 1",
  keyId: "key-1",
  project: "support",
  route: "/v1/chat/completions",
  model: 'evil"model\nnext line',
  provider: "openai",
  upstreamModel: "gpt-4o-mini",
  stream: false,
  requestBytes: 10,
  clientAddress: "127.0.0.1",
  requestBody: '{"secret prompt":"do not log"}',
};
const end = (status: number): JournalCompletion => ({
  outcome: status === 200 ? "ok" : "upstream_error",
  status,
  ttfbMs: 12.3456,
  totalMs: 20.5,
  upstreamMs: 19,
  usage: { inputTokens: 5, cachedInputTokens: 1, outputTokens: 7 },
  cost: 0.000012,
  errorCode: status === 200 ? null : `upstream_${status}`,
  responseBody: '{"answer":"do not log"}',
});

function linesOf(options: LogOptions, run: (logger: ReturnType<typeof createLogger>) => void): string[] {
  const lines: string[] = [];
  run(createLogger(options, (line) => lines.push(line)));
  return lines;
}

describe("call log", () => {
  test("JSON by default off a terminal, text on one", () => {
    assert.equal(defaultLogOptions(false).format, "json");
    assert.equal(defaultLogOptions(true).format, "text");
  });

  test("a JSON line parses, keeps user data intact, and holds no body", () => {
    const [line] = linesOf({ format: "json", level: "info" }, (log) => log.ended(start, end(200)));
    assert.ok(line!.endsWith("\n") && line!.indexOf("\n") === line!.length - 1, "one line");
    const parsed = JSON.parse(line!) as Record<string, unknown>;
    assert.equal(parsed.model, start.model);
    assert.equal(parsed.requestId, "req 1");
    assert.equal(parsed.outputTokens, 7);
    assert.equal(parsed.ttfbMs, 12.346);
    assert.ok(!line!.includes("do not log"));
  });

  test("a text line stays one line with odd user data quoted", () => {
    const [line] = linesOf({ format: "text", level: "info" }, (log) => log.ended(start, end(502)));
    assert.equal(line!.indexOf("\n"), line!.length - 1, "one line");
    assert.match(line!, / error call 502 upstream_error error=upstream_502 /);
    assert.ok(line!.includes('model="evil\\"model\\nnext line"'));
    assert.ok(line!.includes('request="req 1"'));
    assert.ok(!line!.includes("do not log"));
  });

  test("lines below the level are not written; 5xx calls are errors, 4xx warnings", () => {
    const lines = linesOf({ format: "json", level: "warn" }, (log) => {
      log.ended(start, end(200));
      log.ended(start, end(404));
      log.ended(start, end(500));
    });
    assert.deepEqual(lines.map((line) => (JSON.parse(line) as { level: string }).level), ["warn", "error"]);
  });

  test("one warn line per failed upstream attempt, with the entry id and the code; none at level error", () => {
    const attempts = [
      { provider: "p1", upstreamModel: "m-up", model: "m", status: 503, errorCode: "upstream_503", ms: 12.3456, cost: 0 },
      { provider: "p2", upstreamModel: "m-up", model: "m", status: null, errorCode: "upstream_reset", ms: 3, cost: 0 },
      { provider: "p3", upstreamModel: "m-up", model: "m", status: 200, errorCode: null, ms: 20, cost: 0.000012 },
    ];
    const json = linesOf({ format: "json", level: "info" }, (log) => log.ended(start, { ...end(200), attempts }));
    const faults = json.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line["msg"] === "upstream fault");
    assert.deepEqual(faults.map((f) => [f["level"], f["entryId"], f["attempt"], f["provider"], f["status"], f["errorCode"], f["ms"]]), [
      ["warn", start.id, 1, "p1", 503, "upstream_503", 12.346],
      ["warn", start.id, 2, "p2", null, "upstream_reset", 3],
    ]);
    const text = linesOf({ format: "text", level: "info" }, (log) => log.ended(start, { ...end(200), attempts }));
    assert.equal(text.length, 3);
    assert.match(text[1]!, /^\S+ warn upstream fault upstream_503 attempt=1 provider=p1 upstream_model=m-up status=503 ms=12\.346 entry=\S+ request=/);
    assert.deepEqual(linesOf({ format: "json", level: "error" }, (log) => log.ended(start, { ...end(200), attempts })), []);
  });

  test("an error's stack only at level debug", () => {
    const error = new Error("disk full");
    const [info] = linesOf({ format: "json", level: "info" }, (log) => log.log("error", "journal write failed", error));
    assert.deepEqual(Object.keys(JSON.parse(info!) as object), ["time", "level", "msg", "error"]);
    const [debug] = linesOf({ format: "json", level: "debug" }, (log) => log.log("error", "journal write failed", error));
    assert.match((JSON.parse(debug!) as { stack: string }).stack, /disk full/);
  });

  test("a call's end user, team, tags and downgrade are in both formats; a call without them gets no such field", () => {
    const who: JournalStart = { ...start, endUser: "ann smith", team: "growth", tags: [["feature", "search"]], downgradedFrom: "big-model" };
    const [json] = linesOf({ format: "json", level: "info" }, (log) => log.ended(who, end(200)));
    const parsed = JSON.parse(json!) as Record<string, unknown>;
    assert.deepEqual([parsed["endUser"], parsed["team"], parsed["tags"], parsed["downgradedFrom"]], ["ann smith", "growth", ["feature=search"], "big-model"]);
    const [text] = linesOf({ format: "text", level: "info" }, (log) => log.ended(who, end(200)));
    assert.match(text!, / end_user="ann smith" team=growth tags="feature=search" downgraded_from=big-model /);
    const [plain] = linesOf({ format: "json", level: "info" }, (log) => log.ended(start, end(200)));
    assert.equal("endUser" in (JSON.parse(plain!) as Record<string, unknown>), false);
  });
});
