import assert from "node:assert/strict";
import { test } from "node:test";
import { regionContradiction, regionOfLocation, regionOfUrl } from "./provider-region.ts";

test("region-bearing hosts name their region; others name none", () => {
  assert.equal(regionOfUrl("https://bedrock-runtime.eu-central-1.amazonaws.com"), "eu");
  assert.equal(regionOfUrl("https://bedrock-runtime.us-east-1.amazonaws.com"), "us");
  assert.equal(regionOfUrl("https://europe-west4-aiplatform.googleapis.com/v1"), "eu");
  assert.equal(regionOfUrl("https://us-central1-aiplatform.googleapis.com/v1"), "us");
  assert.equal(regionOfUrl("https://eu.api.openai.com/v1"), "eu");
  assert.equal(regionOfUrl("https://api.openai.com/v1"), undefined);
  assert.equal(regionOfUrl("http://127.0.0.1:11434/v1"), undefined);
});

test("Azure, AWS and Google locations map to Renio regions", () => {
  assert.deepEqual(["swedencentral", "westeurope", "eastus2", "uksouth", "eu-west-3", "europe-west6", "asia-northeast1", "global"].map(regionOfLocation), ["eu", "eu", "us", "uk", "eu", "ch", "asia", undefined]);
});

test("a known label contradicting the named region is reported; global and custom labels are not", () => {
  assert.match(regionContradiction("eu", "us", "baseUrl x") ?? "", /region "eu" contradicts baseUrl x, which is in region "us"/);
  assert.equal(regionContradiction("eu", "eu", "x"), undefined);
  assert.equal(regionContradiction("global", "us", "x"), undefined);
  assert.equal(regionContradiction("eu", undefined, "x"), undefined);
});
