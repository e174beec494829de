import type { Config } from "../config/config-schema.ts";
import { callsAllowedBy, FILES_PER_CALL, FILES_RESERVED, type OpenFileLimit } from "../runtime/open-files.ts";

/** What `renio serve` says at start about how many calls it can hold, and what caps that. */
export interface CapacityNotes {
  /** One line for the banner. */
  readonly line: string;
  /** Caps below Renio's own limit, one line each (stderr). */
  readonly warnings: string[];
}

/**
 * The banner's capacity line and its warnings: Renio's own limits (server.maxConcurrentCalls,
 * maxQueuedCalls, queueTimeoutMs), the open-file limit in force (`files`: undefined where it
 * cannot be read), and the runtime fetch's in-flight cap when calls may go through it
 * (`fetchLimit`, Bun's): either one below what the concurrent calls need is named, with the fix.
 */
export function capacityNotes(server: Config["server"], files: OpenFileLimit | undefined, fetchLimit: number | undefined): CapacityNotes {
  const { maxConcurrentCalls, maxQueuedCalls, queueTimeoutMs } = server;
  const queue = maxQueuedCalls === 0 || queueTimeoutMs === 0 ? "none waits" : `${maxQueuedCalls} wait up to ${queueTimeoutMs} ms`;
  const fileText = files === undefined ? "open files: unknown" : `open files: ${limitText(files.soft)}`;
  const warnings: string[] = [];
  if (files !== undefined && callsAllowedBy(files.soft) < maxConcurrentCalls) {
    const raisable = files.hard > files.soft ? ` (the system allows ${limitText(files.hard)})` : " (the system's hard limit)";
    warnings.push(
      `renio: open files are limited to ${limitText(files.soft)}${raisable}: enough for about ${callsAllowedBy(files.soft)} concurrent calls ` +
        `(${FILES_PER_CALL} files each, ${FILES_RESERVED} kept aside), fewer than server.maxConcurrentCalls (${maxConcurrentCalls}); ` +
        "raise it (ulimit -n, systemd LimitNOFILE=, docker --ulimit nofile=) or lower server.maxConcurrentCalls",
    );
  }
  if (fetchLimit !== undefined && fetchLimit < maxConcurrentCalls) {
    warnings.push(
      `renio: the runtime's fetch keeps at most ${fetchLimit} requests in flight (BUN_CONFIG_MAX_HTTP_REQUESTS) and queues the rest unseen, ` +
        `fewer than server.maxConcurrentCalls (${maxConcurrentCalls}); unset BUN_CONFIG_MAX_HTTP_REQUESTS (Renio then sets it to 65535), ` +
        "set server.upstreamClient to socket, or lower server.maxConcurrentCalls",
    );
  }
  return { line: `capacity: ${maxConcurrentCalls} concurrent calls, ${queue} (503 overloaded beyond); ${fileText}`, warnings };
}

function limitText(value: number): string {
  return Number.isFinite(value) ? String(value) : "unlimited";
}
