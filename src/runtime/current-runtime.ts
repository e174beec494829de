import type { Runtime } from "./runtime.ts";

const BUN_MODULE = "./runtime-bun.ts";
const DENO_MODULE = "./runtime-deno.ts";

/**
 * The runtime this process runs on, for tests and tools that run on both. The entry points
 * (main-bun.ts, main-deno.ts) import their runtime directly; the specifiers here are
 * variables so each type checker only sees its own runtime's globals.
 */
export async function currentRuntime(): Promise<Runtime> {
  if ("Bun" in globalThis) return ((await import(BUN_MODULE)) as { bunRuntime: Runtime }).bunRuntime;
  if ("Deno" in globalThis) return ((await import(DENO_MODULE)) as { denoRuntime: Runtime }).denoRuntime;
  throw new Error("Renio runs on Bun or Deno");
}
