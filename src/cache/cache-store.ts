import type { SqliteDatabase } from "../runtime/runtime.ts";
import type { RedisConnection } from "../redis/redis-connection.ts";

/** Where cached answers are kept: the cache's port. */
export interface CacheStore {
  /** The bytes under `key`, or null (absent or expired). */
  get(key: string): Promise<Uint8Array | null>;
  /** Keeps `value` under `key` for `ttlMs`. */
  put(key: string, value: Uint8Array, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Answers in an SQLite file beside one relay: expired entries are dropped when read or when room
 * is needed, and the oldest go first once the total passes `maxTotalBytes`.
 */
export function sqliteCacheStore(db: SqliteDatabase, maxTotalBytes: number, clock: () => number = Date.now): CacheStore {
  db.exec("pragma journal_mode = wal; pragma synchronous = normal");
  db.exec("create table if not exists cache_entry (key text primary key, value blob not null, bytes integer not null, stored_at integer not null, expires_at integer not null)");
  db.exec("create index if not exists cache_entry_stored on cache_entry (stored_at)");
  const read = db.prepare("select value, expires_at from cache_entry where key = ?");
  const remove = db.prepare("delete from cache_entry where key = ?");
  const sizeOf = db.prepare("select bytes from cache_entry where key = ?");
  const write = db.prepare("insert or replace into cache_entry (key, value, bytes, stored_at, expires_at) values (?, ?, ?, ?, ?)");
  const expired = db.prepare("delete from cache_entry where expires_at <= ?");
  const total = db.prepare("select coalesce(sum(bytes), 0) as total from cache_entry");
  const oldest = db.prepare("select key, bytes from cache_entry order by stored_at limit 64");
  let bytes = Number((total.all([])[0] as { total: number }).total);
  return {
    async get(key) {
      const row = read.all([key])[0] as { value: Uint8Array; expires_at: number } | undefined;
      if (row === undefined) return null;
      if (row.expires_at > clock()) return new Uint8Array(row.value);
      const gone = sizeOf.all([key])[0] as { bytes: number } | undefined;
      remove.run([key]);
      bytes -= gone?.bytes ?? 0;
      return null;
    },
    async put(key, value, ttlMs) {
      const now = clock();
      const replaced = sizeOf.all([key])[0] as { bytes: number } | undefined;
      write.run([key, value, value.byteLength, now, now + ttlMs]);
      bytes += value.byteLength - (replaced?.bytes ?? 0);
      if (bytes <= maxTotalBytes) return;
      expired.run([now]);
      bytes = Number((total.all([])[0] as { total: number }).total);
      while (bytes > maxTotalBytes) {
        const rows = oldest.all([]) as { key: string; bytes: number }[];
        if (rows.length === 0) break;
        for (const row of rows) {
          if (bytes <= maxTotalBytes) break;
          remove.run([row.key]);
          bytes -= row.bytes;
        }
      }
    },
    async close() {
      db.close();
    },
  };
}

/** Answers in Redis, shared by every relay using it; Redis expires them (bound its memory with `maxmemory`). */
export function redisCacheStore(redis: RedisConnection): CacheStore {
  return {
    get: (key) => redis.get(redis.key(`cache:${key}`)),
    put: (key, value, ttlMs) => redis.set(redis.key(`cache:${key}`), value, ttlMs),
    close: async () => {},
  };
}
