import { isDeepStrictEqual } from "node:util";
import type { Config } from "./config-schema.ts";

/** Settings a running relay cannot change: they are fixed when it opens its listeners and storage. */
const RESTART_ONLY: ReadonlyArray<readonly [string, (config: Config) => unknown]> = [
  ["server.host", (config) => config.server.host],
  ["server.port", (config) => config.server.port],
  ["server.admin.host", (config) => config.server.admin.host],
  ["server.admin.port", (config) => config.server.admin.port],
  ["server.admin.oidc", (config) => config.server.admin.oidc],
  ["server.upstreamClient", (config) => config.server.upstreamClient],
  ["server.idleTimeoutSeconds", (config) => config.server.idleTimeoutSeconds],
  ["server.eventLoops", (config) => config.server.eventLoops],
  ["storage", (config) => config.storage],
  ["journal.enabled", (config) => config.journal.enabled],
  ["journal.durability", (config) => config.journal.durability],
  ["journal.retentionDays", (config) => config.journal.retentionDays],
  ["journal.booksCheckMs", (config) => config.journal.booksCheckMs],
  ["tracing", (config) => config.tracing],
  ["redis", (config) => config.redis],
  ["cache.store", (config) => config.cache?.store],
  ["cache.path", (config) => config.cache?.path],
];

/** The restart-only settings (dotted paths) that differ between the running config and a new one. */
export function restartNeeded(running: Config, next: Config): string[] {
  return RESTART_ONLY.filter(([, read]) => !isDeepStrictEqual(read(running), read(next))).map(([path]) => path);
}

/** `next` with the restart-only settings of `running`: what a reload can put into effect. */
export function withRestartOnly(next: Config, running: Config): Config {
  const { host, port, admin, upstreamClient, idleTimeoutSeconds, eventLoops } = running.server;
  const { enabled, durability, retentionDays, booksCheckMs } = running.journal;
  return {
    ...next,
    server: { ...next.server, host, port, upstreamClient, idleTimeoutSeconds, eventLoops, admin: { ...next.server.admin, host: admin.host, port: admin.port, oidc: admin.oidc } },
    storage: running.storage,
    journal: { ...next.journal, enabled, durability, retentionDays, booksCheckMs },
    tracing: running.tracing,
    redis: running.redis,
    // The cache's store is opened at startup: a reload changes what is cached and for how long, not where.
    cache: next.cache === undefined || running.cache === undefined ? undefined : { ...next.cache, store: running.cache.store, path: running.cache.path },
  };
}
