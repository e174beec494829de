import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { closest, didYouMean, editDistance } from "./did-you-mean.ts";

describe("did you mean", () => {
  it("counts a swap of neighbours as one edit", () => {
    assert.equal(editDistance("stauts", "status"), 1);
    assert.equal(editDistance("serv", "serve"), 1);
    assert.equal(editDistance("", "abc"), 3);
    assert.equal(editDistance("kitten", "sitting"), 3);
  });

  it("suggests the closest candidate only when it is close enough to be a typo", () => {
    const commands = ["serve", "mock", "bench", "journal", "budget", "budgets", "keys", "audit", "alerts"];
    assert.equal(closest("serv", commands), "serve");
    assert.equal(closest("jornal", commands), "journal");
    assert.equal(closest("budgte", commands), "budget");
    assert.equal(closest("KEYS", commands), "keys");
    assert.equal(closest("deploy", commands), undefined);
    assert.equal(closest("x", commands), undefined);
  });

  it("words the suggestion", () => {
    assert.equal(didYouMean("serv", ["serve"]), '; did you mean "serve"?');
    assert.equal(didYouMean("--jsno", ["--json"], false), "; did you mean --json?");
    assert.equal(didYouMean("zzz", ["serve"]), "");
  });
});
