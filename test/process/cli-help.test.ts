import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { runCommand, sourceCommand } from "../support/cli-process.ts";

const root = mkdtempSync(join(tmpdir(), "renio-cli-help-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** Synopsis lines (after `renio `) of a usage text, continuation lines joined. */
function synopses(text: string): string[] {
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    const start = /^(?:usage: |\s+)renio (\S.*)$/.exec(line);
    if (start) lines.push(start[1]!);
    else if (/^\s+\[/.test(line) && lines.length > 0) lines[lines.length - 1] += ` ${line.trim()}`;
    else if (line.trim() === "") continue;
    else break;
  }
  return lines;
}

const main = await runCommand([...sourceCommand(), "--help"]);
const mainText = main.stdout.replace(/\n\s+\[/g, " [");

describe("renio <command> --help", () => {
  test("renio --help lists passthrough with its real flags", () => {
    assert.equal(main.code, 0, main.stderr);
    assert.match(main.stdout, /^ {2}passthrough --upstream URL \[--host H\] \[--port N\]$/m);
    assert.match(main.stdout, /^ {2}serve \[--config FILE\] \[--host H\] \[--port N\]$/m);
  });

  const cases: Array<[string[], RegExp]> = [
    [["serve", "--help"], /^usage: renio serve \[--config FILE\]/],
    [["serve", "-h"], /^usage: renio serve /],
    [["mock", "--help"], /^usage: renio mock \[--port N\][^]*--fault-reset\]/],
    [["passthrough", "--help"], /^usage: renio passthrough --upstream URL \[--host H\] \[--port N\]/],
    [["config", "--help"], /^usage: renio config check FILE\n {7}renio config schema\n/],
    [["config", "check", "-h"], /^usage: renio config check FILE/],
    [["journal", "--help"], /^usage: renio journal list /],
    [["budget", "--help"], /^usage: renio budget status /],
    [["budgets", "--help"], /^usage: renio budget status [^]*renio budget set ID /],
  ];
  for (const [args, usage] of cases) {
    test(`renio ${args.join(" ")}: usage on stdout, exit 0, nothing started, matches renio --help`, async () => {
      const cwd = mkdtempSync(join(root, "run-"));
      const result = await runCommand([...sourceCommand(), ...args], { cwd, timeoutMs: 15_000 });
      assert.equal(result.code, 0, `exit ${result.code} ${result.signal}; stderr: ${result.stderr}`);
      assert.match(result.stdout, usage);
      assert.equal(result.stderr, "");
      assert.ok(!existsSync(join(cwd, ".renio")), "no store created");
      const lines = synopses(result.stdout);
      assert.ok(lines.length > 0);
      for (const line of lines) assert.ok(mainText.includes(`  ${line}\n`), `renio --help lists "${line}"`);
    });
  }
});
