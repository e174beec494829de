/**
 * Runs every `bench/*.bench.ts` in sequence on this runtime, each in its own process.
 * `node_modules/.bin/bun bench/run-all.ts [name-filter…]`; exits non-zero if any failed.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const PER_FILE_TIMEOUT_MS = 300_000;
const dir = fileURLToPath(new URL(".", import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((name) => name.endsWith(".bench.ts") && (filters.length === 0 || filters.some((filter) => name.includes(filter))))
  .sort();
if (files.length === 0) {
  console.error(`no bench/*.bench.ts file matches ${filters.join(", ")}`);
  process.exit(2);
}

/** argv prefix that runs a TypeScript file on the current runtime. */
const runner = "Deno" in globalThis ? [process.execPath, "run", "-A"] : [process.execPath];

const failed: string[] = [];
for (const file of files) {
  console.log(`\n=== ${file}`);
  const started = performance.now();
  const code = await new Promise<number>((resolve) => {
    const child = spawn(runner[0]!, [...runner.slice(1), `${dir}${file}`], { stdio: "inherit" });
    const timer = setTimeout(() => child.kill("SIGKILL"), PER_FILE_TIMEOUT_MS);
    child.once("error", () => resolve(1));
    child.once("exit", (status, signal) => {
      clearTimeout(timer);
      resolve(signal === null ? (status ?? 1) : 1);
    });
  });
  console.log(`=== ${file}: ${code === 0 ? "done" : `FAILED (exit ${code})`} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (code !== 0) failed.push(file);
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(", ")}`);
  process.exit(1);
}
