import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseInteger, parseOptions, parseSubcommand, UsageError } from "./cli-args.ts";

const OPTIONS = {
  name: { type: "string" },
  mode: { type: "string", oneOf: ["a", "b", "c"], default: "a" },
  header: { type: "string", multiple: true },
  count: { type: "integer", min: 1, max: 9, default: 3 },
  json: { type: "boolean" },
} as const;

describe("parseOptions", () => {
  test("defaults when nothing is given: booleans false, repeatable options empty", () => {
    assert.deepEqual(parseOptions([], OPTIONS), { values: { name: undefined, mode: "a", header: [], count: 3, json: false }, positionals: [] });
  });

  test("--name value and --name=value; a repeated option keeps the last, a repeatable one keeps all in order", () => {
    const { values } = parseOptions(["--name", "x", "--name=y", "--mode=c", "--header", "h1", "--header=h2", "--count", "9", "--json"], OPTIONS);
    assert.deepEqual(values, { name: "y", mode: "c", header: ["h1", "h2"], count: 9, json: true });
  });

  test("a value may start with a dash when written --name=-v; after -- everything is positional", () => {
    const { values, positionals } = parseOptions(["--name=-v", "file", "--", "--json"], OPTIONS, 2);
    assert.equal(values.name, "-v");
    assert.equal(values.json, false);
    assert.deepEqual(positionals, ["file", "--json"]);
  });

  test("every mistake is a UsageError", () => {
    for (const args of [["--nope"], ["-n"], ["--name"], ["--name", "--json"], ["--json=1"], ["--mode", "d"], ["--count", "10"], ["--count", "0x3"], ["extra"]]) {
      assert.throws(() => parseOptions(args, OPTIONS), UsageError, args.join(" "));
    }
  });
});

describe("parseSubcommand", () => {
  const SUBS = { list: { config: { type: "string" }, json: { type: "boolean" } }, export: { config: { type: "string" }, format: { type: "string" } } } as const;

  test("the subcommand is the first plain argument, its options before or after it", () => {
    assert.deepEqual(parseSubcommand(["--config", "list", "export", "--format", "csv"], SUBS), { sub: "export", values: { config: "list", format: "csv" }, positionals: [] });
    assert.deepEqual(parseSubcommand(["--json", "list"], SUBS), { sub: "list", values: { config: undefined, json: true }, positionals: [] });
  });

  test("plain arguments after the subcommand, up to its maximum", () => {
    assert.deepEqual(parseSubcommand(["export", "a", "--format", "csv"], SUBS, { export: 1 }).positionals, ["a"]);
    assert.throws(() => parseSubcommand(["export", "a", "b", "--format", "csv"], SUBS, { export: 1 }), new UsageError('unexpected argument "b"'));
    assert.throws(() => parseSubcommand(["list", "a"], SUBS, { export: 1 }), new UsageError('unexpected argument "a"'));
  });

  test("a missing or unknown subcommand, or an option of another subcommand, is a UsageError", () => {
    assert.throws(() => parseSubcommand(["--json"], SUBS), new UsageError("missing subcommand"));
    assert.throws(() => parseSubcommand(["show"], SUBS), new UsageError('unknown subcommand "show"'));
    assert.throws(() => parseSubcommand(["list", "--format", "csv"], SUBS), new UsageError("unknown option --format"));
  });
});

describe("parseInteger", () => {
  test("decimal digits within the range only", () => {
    assert.equal(parseInteger("--n", "42", 0, 100), 42);
    assert.equal(parseInteger("--n", "-1", -5), -1);
    for (const text of ["", " 1", "1.0", "1e2", "0x10", "101", "99999999999999999999"]) {
      assert.throws(() => parseInteger("--n", text, 0, 100), new UsageError(`--n must be an integer from 0 to 100, got "${text}"`));
    }
  });
});
