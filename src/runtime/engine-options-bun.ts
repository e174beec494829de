import process from "node:process";
import { isCompiled } from "./runtime-bun.ts";
import { ownValue } from "../shared/own-keys.ts";

/**
 * Engine options the long-running commands run with, as Bun reads them from the environment
 * when the process starts: JavaScriptCore's (`BUN_JSC_<option>`) and its allocator's
 * (`MIMALLOC_<option>`).
 *
 * `useFTLJIT=0`: no FTL, JavaScriptCore's fourth tier (the DFG tier below it still optimizes).
 * Measured on `renio serve` (2-core VM, JSON calls at 16 and 64 in flight): FTL's compiler
 * threads spent 25-40 µs of CPU per call over the first ~20,000 calls, and once everything was
 * compiled the event loop's CPU per call was the same with or without it (103 µs at 64 in
 * flight, 60,000 calls), so FTL only costs.
 *
 * `MIMALLOC_PURGE_HOLES=0`: Bun's mimalloc does not return the free spans inside pages still in
 * use to the system (every 100 ms by default); whole free pages are still returned after
 * `MIMALLOC_PURGE_DELAY` (100 ms), so memory a burst took goes back as before. Those holes are
 * taken again within milliseconds while calls keep coming, each time with page faults (the
 * pages come back zeroed) on the thread that takes them and the allocator's `mi-scavenger`
 * thread busy giving them back. Measured with `renio bench` (two alternating pairs, 2-core VM):
 * the journal and budget's CPU per non-streaming call at 16 in flight 193 / 217 → 77 / 117 µs,
 * Renio fsync's 453 / 483 → 320 / 363 µs; peak RSS 0-20 MB higher. `renio mock` and `renio
 * passthrough` run the same way, so the floor is measured with the same allocator.
 *
 * `BUN_CONFIG_MAX_HTTP_REQUESTS=65535`: Bun's fetch keeps at most 256 requests in flight by
 * default and queues the rest inside its HTTP client, where nothing shows them: at 1,024 open
 * streams the first token came three seconds late. Bun reads the variable once, when it starts,
 * so it is set here, to Bun's maximum: Renio's own limit (`server.maxConcurrentCalls`, seen on
 * /metrics) is then the one that binds.
 */
const ENGINE_OPTIONS: Readonly<Record<string, string>> = { BUN_JSC_useFTLJIT: "0", MIMALLOC_PURGE_HOLES: "0", BUN_CONFIG_MAX_HTTP_REQUESTS: "65535" };

/** The commands that serve for long (their CPU per call is what Renio publishes, or its floor). */
const LONG_RUNNING = new Set(["serve", "mock", "passthrough"]);

/**
 * For a long-running command, replaces this process (same pid, same open files) with itself
 * started with the engine options, unless they are all set already: a variable the operator
 * set keeps the operator's value. Run from source, Bun's own flags (`bun --smol …`) are kept;
 * an executable re-applies the ones built into it. Returns when nothing is to be done, or when
 * the platform cannot replace a process (then the command runs with the engine's defaults).
 */
export function restartWithEngineOptions(args: readonly string[]): void {
  if (!LONG_RUNNING.has(args[0] ?? "")) return;
  const missing = Object.entries(ENGINE_OPTIONS).filter(([name]) => ownValue(process.env, name) === undefined);
  if (missing.length === 0) return;
  const execve = (process as { execve?: (file: string, args: string[], env: Record<string, string | undefined>) => never }).execve;
  if (execve === undefined) return;
  const self = isCompiled() ? [process.execPath] : [process.execPath, ...process.execArgv, Bun.main];
  try {
    execve(self[0]!, [...self, ...args], { ...process.env, ...Object.fromEntries(missing) });
  } catch {
    // Not replaced: the command runs as it is.
  }
}
