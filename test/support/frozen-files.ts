import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import process from "node:process";

// Root ignores permission bits, and an open file descriptor keeps its write access anyway;
// the immutable attribute makes every write of the running relay to that file fail (EPERM).
export const canFreeze = process.getuid?.() === 0 && existsSync("/usr/bin/chattr");

/** Makes `paths` immutable while `during` runs. */
export async function frozen(paths: readonly string[], during: () => Promise<void>): Promise<void> {
  execFileSync("chattr", ["+i", ...paths]);
  try {
    await during();
  } finally {
    execFileSync("chattr", ["-i", ...paths]);
  }
}
