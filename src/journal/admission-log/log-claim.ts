import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { SqliteDatabase } from "../../runtime/runtime.ts";
import { StoreOpenError } from "../../shared/store-open-error.ts";
import { admissionLogDir } from "./log-segments.ts";

/** A relay's claim on an admission log directory (and so on its SQLite database). */
export interface LogClaim {
  release(): void;
}

/**
 * Claims the admission log directory of the SQLite database at `databasePath` for this process: budgets are decided in the memory of the one
 * relay owning the database, so a second relay on the same SQLite file must not start. The
 * claim is an exclusive transaction held open on a small lock database in the directory: an
 * operating-system file lock, released by the kernel when the process ends however it ends
 * (no stale claim after a crash), and seen by every process on the host, in any container.
 * Throws StoreOpenError when another relay holds it.
 */
export function claimAdmissionLog(databasePath: string, openSqlite: (path: string) => SqliteDatabase): LogClaim {
  const dir = admissionLogDir(databasePath);
  mkdirSync(dir, { recursive: true });
  const lock = openSqlite(join(dir, "owner.lock"));
  try {
    lock.exec("pragma busy_timeout = 0");
    lock.exec("begin exclusive");
  } catch {
    lock.close();
    throw new StoreOpenError(
      `the SQLite database ${databasePath} is in use by another Renio relay; one relay owns an SQLite file (use PostgreSQL to share budgets between relays)`,
    );
  }
  return {
    release() {
      lock.exec("rollback");
      lock.close();
    },
  };
}
