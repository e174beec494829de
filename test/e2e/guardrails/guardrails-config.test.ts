import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError } from "../../../src/config/config-error.ts";
import { validateConfig } from "../../../src/config/config-load.ts";
import { patternProblem } from "../../../src/config/guardrails-schema.ts";

/**
 * The `guardrails` section: every policy and detector checked where the config enters, with
 * the path and a message naming the fix; custom patterns that could make a scan slow
 * (catastrophic backtracking) refused by rule, with the reason.
 */

const base = (guardrails: unknown) => ({ providers: { mock: { type: "mock" } }, models: { "mock-gpt": { provider: "mock" } }, guardrails });

function problems(raw: unknown): string[] {
  try {
    validateConfig(raw, {});
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.path.join(".")}: ${p.message}`);
    throw error;
  }
  return [];
}

describe("guardrails config", () => {
  test("a valid section with defaults: parts all, no home region, no custom detectors", () => {
    const config = validateConfig(base({ policies: [{ id: "eu-pii", detectors: ["pii", "credentials"], request: "redact", answer: "log" }] }), {});
    const [policy] = config.guardrails.policies;
    assert.deepEqual(policy!.parts, ["messages", "system", "toolArguments", "toolResults"]);
    assert.equal(policy!.match.outsideHomeRegion, false);
    assert.deepEqual(validateConfig(base(undefined), {}).guardrails.policies, []);
  });

  test("problems name the place and the fix: each item's, then (once the items are valid) the references between them", () => {
    const items = problems(
      base({
        detectors: [{ id: "both", pattern: "a", words: ["b"] }, { id: "Bad Id", words: ["x"] }],
        policies: [
          { id: "p", detectors: ["email"] },
          { id: "q", detectors: [], request: "log" },
          { id: "s", detectors: ["email"], answer: "pseudonymise" },
          { id: "t", webhook: { url: "http://127.0.0.1:9/check" }, answer: "block" },
          { id: "u", detectors: ["email"], request: "redact", parts: ["images"] },
        ],
      }),
    );
    const references = problems(
      base({
        detectors: [{ id: "email", words: ["x"] }, { id: "dup", words: ["x"] }, { id: "dup", words: ["y"] }],
        policies: [
          { id: "p", detectors: ["emial"], request: "redact" },
          { id: "p", detectors: ["email"], request: "log" },
          { id: "r", detectors: ["email"], request: "redact", match: { outsideHomeRegion: true } },
        ],
      }),
    );
    const expect = [
      /^guardrails\.detectors\.0: set exactly one of pattern and words$/,
      /^guardrails\.detectors\.1\.id: use lowercase letters, digits, _ and - \(starting with a letter\)$/,
      /^guardrails\.policies\.0: set `request`, `answer` or both: what a match does$/,
      /^guardrails\.policies\.1\.detectors: name at least one detector, or set a webhook$/,
      /^guardrails\.policies\.2\.answer: /,
      /^guardrails\.policies\.3\.webhook: a webhook checks requests: set `request`$/,
      /^guardrails\.policies\.4\.parts\.0: /,
      /^guardrails\.detectors\.0\.id: "email" is a built-in detector or group name$/,
      /^guardrails\.detectors\.2\.id: duplicate detector id "dup"$/,
      /^guardrails\.policies\.0\.detectors\.0: unknown detector "emial" \(built in: email, phone, .*; groups: contact, financial, national_ids, pii, credentials; or an id of guardrails\.detectors\)$/,
      /^guardrails\.policies\.1\.id: duplicate policy id "p"$/,
      /^guardrails\.policies\.2\.match\.outsideHomeRegion: set guardrails\.homeRegion \(or homeRegions\) so that a key has a home region$/,
    ];
    const found = [...items, ...references];
    for (const re of expect) assert.ok(found.some((p) => re.test(p)), `expected a problem like ${re}, got:\n${found.join("\n")}`);
  });

  test("custom patterns: bounded ones accepted; catastrophic, unbounded, backreferencing and broken ones refused with the reason", () => {
    for (const ok of ["EMP-[0-9]{6}", "(?:AB|CD)-\\d{4}", "(?<![A-Z])X{2,4}(?!\\d)", "[A-Z]{2}\\d{2}[A-Z0-9]{4,30}", "(?<year>\\d{4})-\\d{2}", "\\{\\d{1,3}\\}"]) {
      assert.equal(patternProblem(ok), undefined, ok);
    }
    const refused: ReadonlyArray<readonly [string, RegExp]> = [
      ["(a+)+$", /unbounded repetition `\+`/],
      ["\\d+", /unbounded repetition/],
      ["x*", /unbounded repetition/],
      ["a{2,}", /unbounded repetition `\{2,\}`/],
      ["(\\w{1,10}){1,10}", /a repeated group may not itself repeat or hold alternatives/],
      ["(a|aa){1,20}b", /a repeated group may not itself repeat or hold alternatives/],
      ["(a)\\1", /backreferences are not allowed/],
      ["(?<x>a)\\k<x>", /backreferences are not allowed/],
      [".{0,1000}.{0,1000}", /more than 1024 ways to match at one position/],
      ["a{0,2000}", /above 1000/],
      ["[unclosed", /not a valid regular expression/],
      ["x".repeat(501), /longer than 500 characters/],
    ];
    for (const [pattern, reason] of refused) assert.match(patternProblem(pattern) ?? "", reason, pattern);
    assert.match(problems(base({ detectors: [{ id: "slow", pattern: "(a+)+b" }] })).join("\n"), /^guardrails\.detectors\.0\.pattern: unbounded repetition/);
  });
});
