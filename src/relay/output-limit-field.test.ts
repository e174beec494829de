import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { outputLimitField } from "../providers/output-limit-field.ts";
import { inspectRequestBody, rewriteRequestBody } from "./request-body.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

describe("output limits and choices", () => {
  test("`n` and `best_of` count the outputs billed; absent means one", () => {
    const read = (text: string) => {
      const r = inspectRequestBody(enc.encode(text));
      return r.ok ? r.fields.choices : r.problem;
    };
    assert.equal(read('{"model":"m","n":8}'), 8);
    assert.equal(read('{"model":"m","n":2,"best_of":5}'), 5);
    assert.equal(read('{"model":"m","n":null}'), undefined);
    assert.equal(read('{"model":"m"}'), undefined);
    assert.equal(read('{"model":"m","n":0}'), "`n` must be a positive integer");
    assert.equal(read('{"model":"m","best_of":"3"}'), "`best_of` must be a positive integer");
  });

  test("the field each wire format and model family expects", () => {
    assert.equal(outputLimitField("/v1/responses", "gpt-4o"), "max_output_tokens");
    for (const model of ["o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5-mini", "gpt-5.1"]) {
      assert.equal(outputLimitField("/v1/chat/completions", model), "max_completion_tokens", model);
    }
    assert.equal(outputLimitField("/v1/chat/completions", "gpt-4o"), "max_tokens");
    assert.equal(outputLimitField("/v1/chat/completions", "gpt-50x"), "max_tokens");
    assert.equal(outputLimitField("/v1/completions", "gpt-3.5-turbo-instruct"), "max_tokens");
    assert.equal(outputLimitField("/v1/messages", "claude-sonnet-4"), "max_tokens");
  });

  test("rewriteRequestBody adds the limit, or replaces a null one, keeping every other byte", () => {
    const add = (text: string, field: "max_tokens" | "max_completion_tokens" | "max_output_tokens") =>
      dec.decode(rewriteRequestBody(enc.encode(text), { outputLimit: { field, tokens: 4096 } }));
    assert.equal(add('{ "model" : "m", "x": [1, 2] }', "max_tokens"), '{"max_tokens":4096, "model" : "m", "x": [1, 2] }');
    assert.equal(add("{}", "max_output_tokens"), '{"max_output_tokens":4096}');
    assert.equal(add('{"model":"o3","max_completion_tokens": null}', "max_completion_tokens"), '{"model":"o3","max_completion_tokens": 4096}');
    const both = rewriteRequestBody(enc.encode('{"model":"a","stream":true}'), {
      model: "b",
      addIncludeUsage: true,
      outputLimit: { field: "max_tokens", tokens: 7 },
    });
    assert.deepEqual(JSON.parse(dec.decode(both)), { model: "b", stream: true, stream_options: { include_usage: true }, max_tokens: 7 });
  });
});
