import { readFileSync } from "node:fs";

/** The environment process `pid` runs with (Linux: /proc/PID/environ; after an execve, the new one's). */
export function environOf(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return new Map(entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
}
