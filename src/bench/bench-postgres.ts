import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, appendFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import process from "node:process";
import pg from "pg";

/** The PostgreSQL a benchmark's Renios store into: a throwaway server started here, or one given by URL. */
export interface BenchPostgres {
  /** How the report names it (never a password). */
  readonly description: string;
  /** A URL of a database for one relay (a fresh database on a throwaway server; the given one otherwise). */
  databaseUrl(name: string): Promise<string>;
  /** Stops a throwaway server and deletes its data (nothing for a given URL). */
  stop(): void;
}

/** A given server: every relay uses its database (budget ids keep the relays' rows apart). */
export function givenPostgres(url: string): BenchPostgres {
  const parsed = new URL(url);
  return { description: `postgres (given: ${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname})`, databaseUrl: () => Promise.resolve(url), stop: () => undefined };
}

/**
 * Starts a throwaway PostgreSQL the way scripts/pg-start.sh does: initdb into a temporary
 * directory (trust auth, C locale), a free loopback port, fsync on; as root the server runs as
 * the OS user `postgres`. Binaries: $PG_BIN, else `initdb` on PATH, else the newest
 * /usr/lib/postgresql/N/bin. `stop` stops it (immediate) and removes the directory.
 */
export async function startThrowawayPostgres(): Promise<BenchPostgres> {
  const bin = postgresBinDir();
  const base = mkdtempSync(join(tmpdir(), "renio-bench-pg-"));
  const asRoot = process.getuid?.() === 0;
  const run = (tool: string, args: string[]): string => {
    const argv = asRoot ? ["runuser", "-u", "postgres", "--", join(bin, tool), ...args] : [join(bin, tool), ...args];
    return execFileSync(argv[0]!, argv.slice(1), { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  };
  chmodSync(base, 0o755);
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    chownSync(base, uid, -1);
  }
  const data = join(base, "data");
  let started = false;
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    process.off("exit", stop);
    try {
      if (started) run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-s", "stop"]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  };
  try {
    run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
    const port = await freePort();
    appendFileSync(join(data, "postgresql.conf"), `listen_addresses = '127.0.0.1'\nport = ${port}\nunix_socket_directories = '${base}'\nfsync = on\nmax_connections = 200\n`);
    run("pg_ctl", ["-D", data, "-l", join(base, "server.log"), "-w", "-t", "30", "-s", "start"]);
    started = true;
    // Also on Ctrl-C (bench-child exits the process on SIGINT/SIGTERM): the server is no child of ours.
    process.once("exit", stop);
    const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const version = (await sqlOn(admin, "show server_version")).rows[0]?.server_version as string;
    return {
      description: `postgres ${version.split(" ")[0]} (throwaway server, temporary directory, fsync on)`,
      async databaseUrl(name) {
        await sqlOn(admin, `create database ${name}`);
        return `postgres://postgres@127.0.0.1:${port}/${name}`;
      },
      stop,
    };
  } catch (error) {
    try {
      stop();
    } catch {
      // the start failure is what to report
    }
    throw new Error(`cannot start a throwaway PostgreSQL with ${bin}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The directory of initdb and pg_ctl; throws naming what is missing. */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PG_BIN) return env.PG_BIN;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    const initdb = join(dir, "initdb");
    if (dir !== "" && existsSync(initdb)) return dirname(realpathSync(initdb));
  }
  const versions = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").filter((name) => existsSync(`/usr/lib/postgresql/${name}/bin/initdb`)) : [];
  const newest = versions.sort((a, b) => Number(a) - Number(b)).at(-1);
  if (newest !== undefined) return `/usr/lib/postgresql/${newest}/bin`;
  throw new Error("PostgreSQL server binaries (initdb, pg_ctl) not found: install PostgreSQL 15, set PG_BIN, or give --pg-url");
}

async function sqlOn(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/** A loopback port free right now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
