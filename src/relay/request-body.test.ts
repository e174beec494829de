import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RelayError } from "../shared/relay-error.ts";
import { inspectRequestBody, rewriteRequestBody } from "./request-body.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const bytesOf = (text: string) => enc.encode(text);

describe("inspectRequestBody", () => {
  test("reads model, stream, include_usage and the output limit", () => {
    const result = inspectRequestBody(
      bytesOf('{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"max_tokens":100,"messages":[]}'),
    );
    assert.deepEqual(result, { ok: true, fields: { model: "gpt-4o", stream: true, includeUsage: true, maxOutputTokens: 100 } });
  });

  test("defaults and null values", () => {
    assert.deepEqual(inspectRequestBody(bytesOf("{}")), { ok: true, fields: { stream: false, includeUsage: false } });
    assert.deepEqual(
      inspectRequestBody(bytesOf('{"model":null,"stream":null,"stream_options":null,"max_tokens":null}')),
      { ok: true, fields: { stream: false, includeUsage: false } },
    );
    const r = inspectRequestBody(bytesOf('{"stream_options":{"include_usage":"yes"}}'));
    assert.equal(r.ok && r.fields.includeUsage, false);
  });

  test("takes the largest of the output limit fields", () => {
    for (const name of ["max_tokens", "max_completion_tokens", "max_output_tokens"]) {
      const r = inspectRequestBody(bytesOf(`{"${name}":77}`));
      assert.equal(r.ok && r.fields.maxOutputTokens, 77);
    }
    const r = inspectRequestBody(bytesOf('{"max_tokens":10,"max_completion_tokens":500}'));
    assert.equal(r.ok && r.fields.maxOutputTokens, 500);
  });

  test("accepts a UTF-8 byte order mark", () => {
    const r = inspectRequestBody(new Uint8Array([0xef, 0xbb, 0xbf, ...bytesOf('{"model":"m"}')]));
    assert.equal(r.ok && r.fields.model, "m");
  });

  const problems: Array<[string | Uint8Array, string]> = [
    ["", "request body is not valid JSON"],
    ["{", "request body is not valid JSON"],
    [new Uint8Array([0x7b, 0xff, 0x7d]), "request body is not valid JSON"],
    ["[]", "request body must be a JSON object"],
    ["null", "request body must be a JSON object"],
    ['"x"', "request body must be a JSON object"],
    ['{"model":5}', "`model` must be a non-empty string"],
    ['{"model":""}', "`model` must be a non-empty string"],
    ['{"stream":"true"}', "`stream` must be a boolean"],
    ['{"stream_options":[]}', "`stream_options` must be an object"],
    ['{"max_tokens":0}', "`max_tokens` must be a positive integer"],
    ['{"max_tokens":1.5}', "`max_tokens` must be a positive integer"],
    ['{"max_completion_tokens":"9"}', "`max_completion_tokens` must be a positive integer"],
    ['{"max_output_tokens":1e300}', "`max_output_tokens` must be a positive integer"],
  ];
  for (const [body, problem] of problems) {
    test(`refuses ${typeof body === "string" ? JSON.stringify(body) : "invalid UTF-8"}`, () => {
      assert.deepEqual(inspectRequestBody(typeof body === "string" ? bytesOf(body) : body), { ok: false, problem });
    });
  }
});

describe("rewriteRequestBody", () => {
  test("returns the same object when nothing changes", () => {
    const body = bytesOf('{"model":"a","stream_options":{"include_usage":true}}');
    assert.equal(rewriteRequestBody(body, {}), body);
    assert.equal(rewriteRequestBody(body, { model: "a", addIncludeUsage: true }), body);
  });

  test("splices only the top-level model value, keeping every other byte", () => {
    const body = '{ "tools" : [{"model":"inner"}], "model"\n:\t"gpt-4o" , "meta":{"model":"x"} }';
    const out = dec.decode(rewriteRequestBody(bytesOf(body), { model: "gpt-4o-2024-08-06" }));
    assert.equal(out, body.replace('"gpt-4o"', '"gpt-4o-2024-08-06"'));
  });

  test("handles escaped strings in the model and before it", () => {
    const body = '{"note":"a \\"model\\": \\\\\\"x","model":"we\\"ird\\u00e9","m":"}"}';
    const out = dec.decode(rewriteRequestBody(bytesOf(body), { model: 'new"é' }));
    assert.equal(out, '{"note":"a \\"model\\": \\\\\\"x","model":"new\\"é","m":"}"}');
    assert.equal(JSON.parse(out).model, 'new"é');
  });

  test("finds an escaped top-level key", () => {
    const out = dec.decode(rewriteRequestBody(bytesOf('{"mod\\u0065l":"a"}'), { model: "b" }));
    assert.equal(JSON.parse(out).model, "b");
  });

  test("replaces every duplicate top-level model", () => {
    const out = dec.decode(rewriteRequestBody(bytesOf('{"model":"a","x":1,"model":"b"}'), { model: "c" }));
    assert.equal(out, '{"model":"c","x":1,"model":"c"}');
  });

  test("adds stream_options after the opening brace", () => {
    assert.equal(
      dec.decode(rewriteRequestBody(bytesOf(' {"model":"a"}'), { addIncludeUsage: true })),
      ' {"stream_options":{"include_usage":true},"model":"a"}',
    );
    assert.equal(dec.decode(rewriteRequestBody(bytesOf("{ }"), { addIncludeUsage: true })), '{"stream_options":{"include_usage":true} }');
  });

  test("merges into an existing stream_options, replacing only its value", () => {
    const body = '{"stream_options" : {"include_usage":false, "x":1} ,"model":"a"}';
    assert.equal(
      dec.decode(rewriteRequestBody(bytesOf(body), { addIncludeUsage: true })),
      '{"stream_options" : {"include_usage":true,"x":1} ,"model":"a"}',
    );
    assert.equal(
      dec.decode(rewriteRequestBody(bytesOf('{"stream_options":null}'), { addIncludeUsage: true })),
      '{"stream_options":{"include_usage":true}}',
    );
  });

  test("both changes at once, model absent is inserted", () => {
    const out = dec.decode(rewriteRequestBody(bytesOf('{"messages":[]}'), { model: "m", addIncludeUsage: true }));
    assert.equal(out, '{"stream_options":{"include_usage":true},"model":"m","messages":[]}');
  });

  test("throws invalid_json on a body that is not a JSON object", () => {
    for (const body of ["", "[1]", '{"a"', '{"a":}', '{"a":1 "b":2}', '{"a":"x']) {
      assert.throws(
        () => rewriteRequestBody(bytesOf(body), { model: "m" }),
        (error: unknown) => error instanceof RelayError && error.code === "invalid_json",
        body,
      );
    }
  });

  test("fuzz: matches JSON.parse of the intended object", () => {
    const random = prng(42);
    for (let round = 0; round < 1500; round++) {
      const value = randomObject(random, 0);
      if (random() < 0.7) value["model"] = randomString(random);
      const optionsChoice = random();
      if (optionsChoice < 0.25) value["stream_options"] = { include_usage: random() < 0.5, other: randomString(random) };
      else if (optionsChoice < 0.35) value["stream_options"] = null;
      const text = serialize(value, random);
      assert.deepEqual(JSON.parse(text), value, "generator sanity");
      const model = random() < 0.8 ? randomString(random) : undefined;
      const addIncludeUsage = random() < 0.6;
      const out = rewriteRequestBody(bytesOf(text), { model, addIncludeUsage });
      const expected: Record<string, unknown> = { ...value };
      if (model !== undefined) expected["model"] = model;
      if (addIncludeUsage) {
        const current = value["stream_options"];
        expected["stream_options"] = current !== null && typeof current === "object" && !Array.isArray(current) ? { ...current, include_usage: true } : { include_usage: true };
      }
      assert.deepEqual(JSON.parse(dec.decode(out)), expected, text);
      if (model === undefined && !addIncludeUsage) assert.equal(dec.decode(out), text);
    }
  });
});

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ["model", '"', "\\", "{", "}", "[", "]", ",", ":", "é", "😀", "\n", "\u2028", "\u0001", "a", "b", " ", "stream_options"];
function randomString(random: () => number): string {
  let s = "";
  const n = Math.floor(random() * 6);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(random() * PIECES.length)];
  return s;
}

function randomValue(random: () => number, depth: number): unknown {
  const r = random();
  if (depth > 3 || r < 0.3) return randomString(random);
  if (r < 0.4) return Math.floor(random() * 1e6) / 100 - 50;
  if (r < 0.5) return random() < 0.5;
  if (r < 0.55) return null;
  if (r < 0.75) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
  return randomObject(random, depth + 1);
}

function randomObject(random: () => number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = Math.floor(random() * 5);
  for (let i = 0; i < n; i++) out[random() < 0.3 ? "model" : randomString(random)] = randomValue(random, depth);
  return out;
}

/** JSON.stringify with random whitespace and random escaping of keys and strings. */
function serialize(value: unknown, random: () => number): string {
  const ws = () => [" ", "", "\n", "\t", "\r\n", ""][Math.floor(random() * 6)]!;
  const str = (s: string) =>
    random() < 0.2 ? `"${s.split("").map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"` : JSON.stringify(s);
  if (typeof value === "string") return str(value);
  if (Array.isArray(value)) return `[${ws()}${value.map((v) => serialize(v, random)).join(`${ws()},${ws()}`)}${ws()}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(([k, v]) => `${ws()}${str(k)}${ws()}:${ws()}${serialize(v, random)}${ws()}`);
    return `${ws()}{${members.join(",")}}${ws()}`;
  }
  return JSON.stringify(value);
}

describe("service tier and tool-call bound", () => {
  test("inspectRequestBody reads service_tier and max_tool_calls, and names a bad one", () => {
    const inspected = inspectRequestBody(enc.encode(JSON.stringify({ model: "gpt-5", service_tier: "priority", max_tool_calls: 3 })));
    assert.ok(inspected.ok);
    assert.equal(inspected.fields.serviceTier, "priority");
    assert.equal(inspected.fields.maxToolCalls, 3);
    assert.deepEqual(inspectRequestBody(enc.encode('{"model":"m","max_tool_calls":0}')), { ok: false, problem: "`max_tool_calls` must be a positive integer" });
    assert.deepEqual(inspectRequestBody(enc.encode('{"model":"m","service_tier":1}')), { ok: false, problem: "`service_tier` must be a string" });
  });

  test("rewriteRequestBody adds max_tool_calls, or fills a null one, with the output limit", () => {
    const added = dec.decode(rewriteRequestBody(enc.encode('{"model":"m","input":"x"}'), { maxToolCalls: 4, outputLimit: { field: "max_output_tokens", tokens: 100 } }));
    assert.deepEqual(JSON.parse(added), { model: "m", input: "x", max_tool_calls: 4, max_output_tokens: 100 });
    const filled = dec.decode(rewriteRequestBody(enc.encode('{"model":"m","max_tool_calls":null}'), { maxToolCalls: 2 }));
    assert.equal(filled, '{"model":"m","max_tool_calls":2}');
  });
});
