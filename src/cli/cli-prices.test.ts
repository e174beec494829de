import assert from "node:assert/strict";
import { test } from "node:test";
import { BUILTIN_PRICES, PRICES_AS_OF } from "../budget/prices-builtin.ts";
import { runPricesCommand } from "./cli-prices.ts";

test("renio prices list prints the dated built-in table, one row per model", () => {
  const lines: string[] = [];
  const errors: string[] = [];
  assert.equal(runPricesCommand(["list"], (line) => lines.push(line), (line) => errors.push(line)), 0);
  assert.equal(errors.length, 0);
  assert.ok(lines[0]!.includes(`as of ${PRICES_AS_OF}`));
  assert.equal(lines.length, 2 + Object.keys(BUILTIN_PRICES).length);
  assert.match(lines.find((line) => line.startsWith("claude-sonnet-4 "))!, /^claude-sonnet-4\s+3\s+0\.3\s+15\s+3\.75\s+6\s+64000\s+200000$/);
  assert.equal(runPricesCommand(["nope"], () => {}, (line) => errors.push(line)), 2);
  assert.equal(errors[0], 'renio prices: unknown subcommand "nope" (see renio prices --help)');
});
