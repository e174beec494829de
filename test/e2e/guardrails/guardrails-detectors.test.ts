import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BUILT_IN_DETECTORS } from "../../../src/config/guardrails-schema.ts";
import { BUILT_IN } from "../../../src/guardrails/detector-catalog.ts";
import { customDetector } from "../../../src/guardrails/custom-detectors.ts";
import { findMatches } from "../../../src/guardrails/text-scan.ts";
import { allSamples } from "../../support/pii-samples.ts";

/**
 * Every built-in detector against generated samples: each valid one (check digits computed as
 * the issuer does, in each documented format), set in a sentence, is found whole; each invalid
 * one (a check digit changed, a structure broken) is not found by that detector.
 */

const samples = allSamples();
const contexts = [(s: string) => `Here it is: ${s}. Thanks!`, (s: string) => `${s}`, (s: string) => `"${s}",\n(${s})`];

describe("built-in detectors: generated samples, checksums both ways", () => {
  test("every built-in detector has samples", () => {
    assert.deepEqual(Object.keys(samples).sort(), [...BUILT_IN_DETECTORS].sort());
  });
  for (const id of BUILT_IN_DETECTORS) {
    const detector = BUILT_IN[id];
    const { valid, invalid } = samples[id]!;
    test(`${id}: ${valid.length} valid samples found whole, ${invalid.length} invalid ones not`, () => {
      assert.ok(valid.length >= 6 && invalid.length >= 2);
      for (const sample of valid) {
        for (const wrap of contexts) {
          const text = wrap(sample);
          const found = findMatches(text, [detector]).map((m) => text.slice(m.start, m.end));
          assert.ok(found.length >= 1 && found.every((f) => f === sample), `${id} should find exactly ${JSON.stringify(sample)} in ${JSON.stringify(text)}, found ${JSON.stringify(found)}`);
        }
      }
      for (const sample of invalid) {
        const text = `Here it is: ${sample}. Thanks!`;
        const found = findMatches(text, [detector]).map((m) => text.slice(m.start, m.end));
        assert.deepEqual(found, [], `${id} must not match ${JSON.stringify(sample)}`);
      }
    });
  }
  test("a card number is reported as a card, not also as a phone number or an id (overlaps resolved by priority)", () => {
    const text = `pay with ${samples["payment_card"]!.valid[1]} today`;
    const found = findMatches(text, Object.values(BUILT_IN));
    assert.deepEqual(found.map((m) => m.detector.id), ["payment_card"]);
  });
});

describe("custom detectors", () => {
  test("a pattern matches up to its maxLength, case as configured", () => {
    const detector = customDetector({ id: "employee", pattern: "EMP-[0-9]{6}", ignoreCase: true, maxLength: 10 });
    const text = "ids EMP-123456, emp-654321 and EMP-12345";
    assert.deepEqual(findMatches(text, [detector]).map((m) => text.slice(m.start, m.end)), ["EMP-123456", "emp-654321"]);
    assert.equal(detector.label, "EMPLOYEE");
    // A stream holds back the pattern's maxLength: its characters are unknown.
    assert.equal(detector.pending("x".repeat(100)), 90);
  });
  test("a word list matches whole words and phrases, case-insensitively, whatever the spacing or punctuation between a phrase's words", () => {
    const detector = customDetector({ id: "codenames", words: ["Falcon", "Project Osprey"], ignoreCase: false, maxLength: 64, placeholder: "CODENAME" });
    const text = "Falcon, falconry, FALCON and project  osprey or Project-Osprey; not Osprey alone";
    assert.deepEqual(findMatches(text, [detector]).map((m) => text.slice(m.start, m.end)), ["Falcon", "FALCON", "project  osprey", "Project-Osprey"]);
    assert.equal(detector.label, "CODENAME");
    // A stream holds back a trailing word, or with phrases in the list as much as the longest phrase.
    const words = customDetector({ id: "names", words: ["Falcon"], ignoreCase: false, maxLength: 64 });
    assert.equal(words.pending("we talked about fal"), "we talked about ".length);
    assert.equal(words.pending("we talked about it."), "we talked about it.".length);
    assert.equal(detector.pending("we talked about proj"), "we talked about proj".length - detector.maxLength);
  });
});
