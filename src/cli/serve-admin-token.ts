import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";

/** The file beside the embedded default's SQLite store that keeps its generated admin token. */
export const ADMIN_TOKEN_FILE = "admin-token";

/** The embedded default's admin token, and whether this run created it (then, and only then, the banner shows it). */
export interface EmbeddedAdminToken {
  readonly token: string;
  /** Absolute path of the file that keeps it (mode 0600). */
  readonly file: string;
  readonly created: boolean;
}

/**
 * The admin token of the embedded default when `RENIO_ADMIN_TOKEN` is not set: the one kept in
 * `admin-token` beside the store (`storePath`'s folder), else a new random one written there with
 * mode 0600, so the dashboard's sign-in survives a restart and the secret is printed only once.
 * A kept file shorter than 16 characters (edited by hand) is replaced.
 */
export function embeddedAdminToken(storePath: string, cwd = process.cwd()): EmbeddedAdminToken {
  const folder = dirname(resolve(cwd, storePath));
  const file = join(folder, ADMIN_TOKEN_FILE);
  if (existsSync(file)) {
    const kept = readFileSync(file, "utf8").trim();
    if (kept.length >= 16 && /^\S+$/.test(kept)) return { token: kept, file, created: false };
  }
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const token = `renio-admin-${randomBytes(24).toString("base64url")}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its old mode under writeFileSync
  return { token, file, created: true };
}
