import assert from "node:assert/strict";
import { test } from "node:test";
import { createPriceBook } from "./price-book.ts";

const book = createPriceBook(new Map());

test("dated Bedrock Claude ids, with and without an inference profile prefix, get Anthropic's rates", () => {
  const direct = book.priceOf("claude-3-5-sonnet-20240620");
  for (const id of ["anthropic.claude-3-5-sonnet-20240620-v1:0", "eu.anthropic.claude-3-5-sonnet-20240620-v1:0"]) {
    const price = book.priceOf(id);
    assert.ok(price, id);
    assert.equal(price.input, direct!.input);
    assert.equal(price.output, direct!.output);
    assert.equal(price.cacheWrite5m, direct!.cacheWrite5m);
    assert.equal(price.tools, undefined, "Converse has no Anthropic server tools");
  }
});

test("Amazon Nova ids are priced, EU profile included; unknown Bedrock ids are not", () => {
  assert.equal(book.priceOf("eu.amazon.nova-pro-v1:0")?.output, 3.2);
  assert.equal(book.priceOf("amazon.nova-micro-v1:0")?.input, 0.035);
  assert.equal(book.priceOf("cohere.command-r-v1:0"), undefined);
});
