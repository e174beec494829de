import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { runCommand, sourceCommand, type CliResult } from "../support/cli-process.ts";

const root = mkdtempSync(join(tmpdir(), "renio-cli-store-args-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** Runs `renio …args` in a fresh empty directory; returns the result and whether ./.renio/ appeared. */
async function renioIn(args: readonly string[]): Promise<CliResult & { storeCreated: boolean }> {
  const cwd = mkdtempSync(join(root, "run-"));
  const result = await runCommand([...sourceCommand(), ...args], { cwd });
  return { ...result, storeCreated: existsSync(join(cwd, ".renio")) };
}

describe("renio journal / budget read their arguments before opening the store", () => {
  for (const args of [["journal", "--help"], ["journal", "list", "-h"], ["budget", "--help"], ["budget", "status", "--config", "missing.jsonc", "--help"]]) {
    test(`renio ${args.join(" ")}: usage on stdout, exit 0, no store`, async () => {
      const result = await renioIn(args);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`^usage: renio ${args[0]} `));
      assert.equal(result.stderr, "");
      assert.equal(result.storeCreated, false, "./.renio/ was not created");
    });
  }

  const mistakes: Array<[string[], RegExp]> = [
    [["journal"], /^renio journal: missing subcommand \(see renio journal --help\)\n$/],
    [["journal", "list", "--since", "yesterday"], /^renio journal: --since must be an ISO time/],
    [["journal", "export", "--format", "xml"], /^renio journal: --format must be jsonl or csv/],
    [["journal", "list", "--config"], /^renio journal: --config needs a file/],
    [["budget", "reconcile", "--cost-at", "half"], /^renio budget: --cost-at must be reserved or zero/],
    [["budget", "status", "--verbose"], /^renio budget: unknown option --verbose/],
  ];
  for (const [args, message] of mistakes) {
    test(`renio ${args.join(" ")}: one line on stderr, exit 2, no store`, async () => {
      const result = await renioIn(args);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stderr.split("\n").filter((line) => line !== "").length, 1, result.stderr);
      assert.equal(result.stdout, "");
      assert.equal(result.storeCreated, false, "./.renio/ was not created");
    });
  }

  test("valid arguments without a target: exit 2 naming what is needed, no store", async () => {
    const result = await renioIn(["budget", "status", "--json"]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^renio budget: needs a target: --url URL or RENIO_URL .* --config FILE or RENIO_CONFIG /);
    assert.equal(result.stdout, "");
    assert.equal(result.storeCreated, false, "./.renio/ was not created");
  });
});
