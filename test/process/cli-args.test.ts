import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { runCommand, sourceCommand } from "../support/cli-process.ts";

const root = mkdtempSync(join(tmpdir(), "renio-cli-args-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** [command line, the command it names, the problem]: every command words the same mistake the same way. */
const mistakes: ReadonlyArray<readonly [string[], string, string]> = [
  [["serve", "--bogus"], "serve", "unknown option --bogus"],
  [["journal", "list", "--bogus"], "journal", "unknown option --bogus"],
  [["budget", "reconcile", "--bogus"], "budget", "unknown option --bogus"],
  [["mock", "-x"], "mock", "unknown option -x"],
  [["bench", "--bogus"], "bench", "unknown option --bogus"],
  [["config", "check", "renio.json", "--bogus"], "config", "unknown option --bogus"],
  [["prices", "list", "--bogus"], "prices", "unknown option --bogus"],
  [["passthrough", "--bogus"], "passthrough", "unknown option --bogus"],

  [["serve", "--host"], "serve", "--host needs a value"],
  [["journal", "list", "--key"], "journal", "--key needs a value"],
  [["journal", "export", "--format"], "journal", "--format needs a value"],
  [["bench", "--model="], "bench", "--model needs a value"],
  [["serve", "--config"], "serve", "--config needs a file"],
  [["budget", "status", "--config"], "budget", "--config needs a file"],
  [["serve", "--port"], "serve", "--port needs a number"],
  [["mock", "--port", "--host", "127.0.0.1"], "mock", '--port needs a number, got "--host"; write --port=--host if that is the value'],

  [["serve", "--port", "http"], "serve", '--port must be an integer from 0 to 65535, got "http"'],
  [["mock", "--port=70000"], "mock", '--port must be an integer from 0 to 65535, got "70000"'],
  [["passthrough", "--upstream", "http://127.0.0.1:1", "--port", "1.5"], "passthrough", '--port must be an integer from 0 to 65535, got "1.5"'],
  [["bench", "--requests", "1e3"], "bench", '--requests must be an integer from 1 to 10000000, got "1e3"'],
  [["journal", "list", "--limit", "0"], "journal", '--limit must be an integer of at least 1, got "0"'],

  [["budget", "status", "--json=yes"], "budget", '--json takes no value, got "yes"'],
  [["journal", "list", "--json=false"], "journal", '--json takes no value, got "false"'],
  [["mock", "--fault-reset=1"], "mock", '--fault-reset takes no value, got "1"'],
  [["bench", "--markdown="], "bench", '--markdown takes no value, got ""'],

  [["budget", "reconcile", "--cost-at", "half"], "budget", '--cost-at must be reserved or zero, got "half"'],
  [["bench", "--mode", "sse"], "bench", '--mode must be one of json, stream, both, capacity, got "sse"'],
  [["journal", "export"], "journal", "--format is required: jsonl or csv"],
  [["budget"], "budget", "missing subcommand"],
  [["prices", "show"], "prices", 'unknown subcommand "show"'],
  [["serve", "extra"], "serve", 'unexpected argument "extra"'],
  [["version", "x"], "version", 'unexpected argument "x"'],

  // A typo suggests what was meant: subcommands (including those another part of the command reads), options.
  [["budget", "stauts"], "budget", 'unknown subcommand "stauts"; did you mean "status"?'],
  [["budgets", "lsit"], "budget", 'unknown subcommand "lsit"; did you mean "list"?'],
  [["keys", "craete"], "keys", 'unknown subcommand "craete"; did you mean "create"?'],
  [["config", "chek"], "config", 'unknown subcommand "chek"; did you mean "check"?'],
  [["journal", "list", "--jsno"], "journal", "unknown option --jsno; did you mean --json?"],
  [["serve", "--prot", "8080"], "serve", "unknown option --prot; did you mean --port?"],
  [["budget", "status", "--verbose"], "budget", "unknown option --verbose"],
];

describe("every command reports a command-line mistake as one line naming the command and the option, exit 2", () => {
  // Four at a time, each in its own empty directory.
  const lanes: Promise<unknown>[] = [Promise.resolve(), Promise.resolve(), Promise.resolve(), Promise.resolve()];
  const runs = mistakes.map(([args], i) => {
    const cwd = mkdtempSync(join(root, "run-"));
    const result = lanes[i % lanes.length]!.then(() => runCommand([...sourceCommand(), ...args], { cwd, timeoutMs: 30_000 }));
    lanes[i % lanes.length] = result;
    return { cwd, result };
  });
  mistakes.forEach(([args, command, problem], i) => {
    test(`renio ${args.join(" ")}`, async () => {
      const { cwd, result } = runs[i]!;
      const done = await result;
      const help = command === "version" ? "renio --help" : `renio ${command} --help`;
      assert.equal(done.stderr, `renio ${command}: ${problem} (see ${help})\n`);
      assert.equal(done.code, 2);
      assert.equal(done.stdout, "");
      assert.ok(!existsSync(join(cwd, ".renio")), "nothing was opened");
    });
  });
});

describe("an unknown command suggests the one meant", () => {
  const cases: ReadonlyArray<[string[], string]> = [
    [["serv"], 'renio: unknown command "serv"; did you mean "serve"? (see renio --help)\n'],
    [["jurnal", "list"], 'renio: unknown command "jurnal"; did you mean "journal"? (see renio --help)\n'],
    [["help", "budgte"], 'renio: unknown command "budgte"; did you mean "budget"? (see renio --help)\n'],
    [["deploy"], 'renio: unknown command "deploy" (see renio --help)\n'],
  ];
  for (const [args, stderr] of cases) {
    test(`renio ${args.join(" ")}`, async () => {
      const cwd = mkdtempSync(join(root, "run-"));
      const done = await runCommand([...sourceCommand(), ...args], { cwd, timeoutMs: 30_000 });
      assert.equal(done.stderr, stderr);
      assert.equal(done.code, 2);
      assert.equal(done.stdout, "");
    });
  }
});
