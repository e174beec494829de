import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import process from "node:process";

const scripts = fileURLToPath(new URL("../../scripts/", import.meta.url));

/** A throwaway cluster this process started. */
export interface PostgresCluster {
  readonly url: string;
  /** Stops the server, keeping its data (simulates an outage). */
  pause(): void;
  /** Starts the paused server again on the same port. */
  resume(): void;
  /** Stops the server and deletes its data. */
  destroy(): void;
}

/** Starts a throwaway PostgreSQL cluster with scripts/pg-start.sh, stopped at process exit. */
export function startPostgresCluster(): PostgresCluster {
  const url = execFileSync("bash", [`${scripts}pg-start.sh`], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const port = new URL(url).port;
  const stateDir = process.env.RENIO_PG_STATE_DIR ?? process.env.TMPDIR ?? "/tmp";
  const base = readFileSync(`${stateDir}/renio-pg-${port}.dir`, "utf8").trim();
  let destroyed = false;
  const pgCtl = (...args: string[]): void => {
    const bin = `${execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim()}/pg_ctl`;
    const command = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", bin, ...args] : [bin, ...args];
    execFileSync(command[0] as string, command.slice(1), { stdio: "ignore" });
  };
  const destroy = (): void => {
    if (destroyed) return;
    destroyed = true;
    execFileSync("bash", [`${scripts}pg-stop.sh`, url], { stdio: "ignore" });
  };
  process.on("exit", destroy);
  // Test runners do not always emit "exit" (and a killed process never does): a detached
  // watchdog removes the cluster once this process is gone.
  const watchdog = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; exec bash '${scripts}pg-stop.sh' '${url}'`;
  spawn("bash", ["-c", watchdog], { detached: true, stdio: "ignore" }).unref();
  return {
    url,
    pause: () => pgCtl("-D", `${base}/data`, "-m", "immediate", "-w", "-s", "stop"),
    resume: () => pgCtl("-D", `${base}/data`, "-l", `${base}/server.log`, "-w", "-t", "30", "-s", "start"),
    destroy,
  };
}

let shared: string | undefined;

/** `RENIO_TEST_PG_URL` if set, else a cluster started once per test process. */
export function testPostgresUrl(): string {
  shared ??= process.env.RENIO_TEST_PG_URL || startPostgresCluster().url;
  return shared;
}
