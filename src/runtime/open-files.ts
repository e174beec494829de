import { readdirSync, readFileSync } from "node:fs";

/** The process's open-file limit (RLIMIT_NOFILE). */
export interface OpenFileLimit {
  /** The limit in force. */
  readonly soft: number;
  /** How far the process may raise it; Infinity when unlimited. */
  readonly hard: number;
}

/**
 * The open-file limit in force, from /proc/self/limits (Linux); undefined elsewhere. Bun and Deno
 * raise the soft limit to the hard one when they start, so this is what the system allows.
 */
export function openFileLimit(): OpenFileLimit | undefined {
  let text: string;
  try {
    text = readFileSync("/proc/self/limits", "utf8");
  } catch {
    return undefined;
  }
  return parseOpenFileLimit(text);
}

/** The `Max open files` line of a /proc/PID/limits text; undefined when it has none. */
export function parseOpenFileLimit(text: string): OpenFileLimit | undefined {
  const match = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  if (match === null) return undefined;
  const value = (field: string) => (field === "unlimited" ? Number.POSITIVE_INFINITY : Number(field));
  return { soft: value(match[1]!), hard: value(match[2]!) };
}

/** Files (sockets included) the process has open now, from /proc/self/fd; undefined elsewhere. */
export function openFileCount(): number | undefined {
  try {
    // The directory's own handle, opened to list it, is one of the entries.
    return readdirSync("/proc/self/fd").length - 1;
  } catch {
    return undefined;
  }
}

/** Open files a relay needs per concurrent call: the client's connection and the provider's. */
export const FILES_PER_CALL = 2;

/** Open files a relay needs besides its calls: the store, the journal's segments, listeners, idle connections, the runtime's own. */
export const FILES_RESERVED = 256;

/** How many concurrent calls `limit` open files allow. */
export function callsAllowedBy(limit: number): number {
  return Math.max(0, Math.floor((limit - FILES_RESERVED) / FILES_PER_CALL));
}
