import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BUILT_IN_DETECTORS } from "../../../src/config/guardrails-schema.ts";
import { BUILT_IN } from "../../../src/guardrails/detector-catalog.ts";
import { findMatches } from "../../../src/guardrails/text-scan.ts";
import { CODE, PROSE, ordinaryNumbers } from "../../support/ordinary-corpus.ts";

/**
 * False positives: a corpus of ordinary prose (seven EU languages), code and configuration, and
 * 30,000 generated everyday numbers, none of them personal data or a credential. Prose and code
 * must not match at all; on the numbers, each detector's count is the figure docs/guardrails.md
 * states (a change to a detector that moves it fails here until the docs say so).
 */

/** Matches on the generated numbers, as docs/guardrails.md's false-positive table states them. */
const ON_NUMBERS: Readonly<Record<string, number>> = {
  phone: 39,
  payment_card: 271,
  nl_bsn: 92,
  fr_nir: 3,
  de_steuer_id: 4,
  be_national_number: 6,
  pl_pesel: 14,
};

const numbers = ordinaryNumbers();

describe("false positives on ordinary text, code and numbers", () => {
  test("the corpus: prose, code and 30,000 numbers", () => {
    assert.equal(numbers.length, 30_000);
    assert.ok(PROSE.length > 2000 && CODE.length > 2000);
  });
  for (const id of BUILT_IN_DETECTORS) {
    test(`${id}: nothing in prose or code, ${ON_NUMBERS[id] ?? 0} of the numbers`, () => {
      const detector = BUILT_IN[id];
      for (const [name, text] of [["prose", PROSE], ["code", CODE]] as const) {
        const found = findMatches(text, [detector]).map((m) => text.slice(m.start, m.end));
        assert.deepEqual(found, [], `${id} matched ${name}`);
      }
      const matched = numbers.filter((n) => findMatches(`the value ${n} here`, [detector]).length > 0);
      assert.equal(matched.length, ON_NUMBERS[id] ?? 0, `${id} matched ${matched.length} numbers, e.g. ${matched.slice(0, 3).join(", ")}`);
    });
  }
});
