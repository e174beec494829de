import assert from "node:assert/strict";
import { test } from "node:test";
import { BUILTIN_PRICES, PRICES_AS_OF } from "../pricing/prices-builtin.ts";
import { runPricesCommand } from "./cli-prices.ts";

test("renio prices list prints the dated built-in table, one row per model", () => {
  const lines: string[] = [];
  const errors: string[] = [];
  assert.equal(runPricesCommand(["list"], (line) => lines.push(line), (line) => errors.push(line)), 0);
  assert.equal(errors.length, 0);
  assert.ok(lines[0]!.includes(`as of ${PRICES_AS_OF}`));
  assert.equal(lines.length, 2 + Object.keys(BUILTIN_PRICES).length);
  assert.match(lines.find((line) => line.startsWith("claude-sonnet-4 "))!, /^claude-sonnet-4\s+3\s+0\.3\s+15\s+3\.75\s+6\s+64000\s+1000000\s+above 200000: 6\/0\.6\/22\.5, web_search 0\.01\/use, web_fetch 0\/use$/);
  assert.match(lines.find((line) => line.startsWith("gpt-5 "))!, /priority 2\.5\/0\.25\/20, flex 0\.625\/0\.0625\/5, web_search 0\.01\/use/);
  assert.ok(lines.some((line) => line.startsWith("gemini-2.5-pro ")) && lines.some((line) => line.startsWith("deepseek-chat ")) && lines.some((line) => line.startsWith("grok-4 ")) && lines.some((line) => line.startsWith("llama-3.3-70b-versatile ")));
  assert.equal(runPricesCommand(["nope"], () => {}, (line) => errors.push(line)), 2);
  assert.equal(errors[0], 'renio prices: unknown subcommand "nope" (see renio prices --help)');
});
