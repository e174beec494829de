import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { childEnvironment } from "../../src/config/child-environment.ts";

/** The repository root (where src/ and node_modules/ live). */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** True when the tests run on Deno. */
export const ON_DENO = "Deno" in globalThis;

/** argv prefix that runs Renio from source on the runtime running the tests. */
export function sourceCommand(): string[] {
  return ON_DENO
    ? [process.execPath, "run", "-A", `${REPO_ROOT}src/main-deno.ts`]
    : [process.execPath, `${REPO_ROOT}src/main-bun.ts`];
}

/** How a finished command ended. */
export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options for running a command. */
export interface CliOptions {
  readonly cwd?: string;
  /** Added to the child's environment, which otherwise holds only the runtime's variables and this process's RENIO_* (child-environment.ts). */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill (SIGKILL) after this long; default 20 s. */
  readonly timeoutMs?: number;
}

/** Runs `command` to its end and collects its output. */
export function runCommand(command: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const child = launch(command, options);
  return finished(child, options.timeoutMs ?? 45_000);
}

/** A long-running command (serve, mock). */
export interface RunningCli {
  readonly child: ChildProcess;
  /** Everything printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout match of `pattern`; rejects if the process ends first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends SIGTERM and resolves when the process has exited. */
  stop(timeoutMs?: number): Promise<CliResult>;
}

/** Starts `command` and returns a handle to watch its output and stop it. */
export function startCommand(command: readonly string[], options: CliOptions = {}): RunningCli {
  const child = launch(command, options);
  let out = "";
  let err = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  const exited = finished(child, options.timeoutMs ?? 60_000);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = out.match(pattern);
          if (match) {
            cleanup();
            resolve(match);
          }
        };
        const onExit = () => {
          cleanup();
          reject(new Error(`process exited before printing ${pattern}; stdout: ${out}; stderr: ${err}`));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${pattern} within ${timeoutMs} ms; stdout: ${out}; stderr: ${err}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          child.stdout!.off("data", check);
          child.off("exit", onExit);
        };
        child.stdout!.on("data", check);
        child.once("exit", onExit);
        check();
      });
    },
    async stop(timeoutMs = 10_000) {
      // process.kill, not child.kill: Deno's child.kill makes a child that handles SIGTERM and
      // exits 0 look killed by the signal (code null, signal SIGTERM).
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      try {
        const result = await exited;
        return { ...result, stdout: out, stderr: err };
      } finally {
        clearTimeout(killer);
      }
    },
  };
}

function launch(command: readonly string[], options: CliOptions): ChildProcess {
  const [file, ...args] = command;
  return spawn(file!, args, {
    cwd: options.cwd ?? REPO_ROOT,
    // What a child needs (the runtime's variables, RENIO_*) plus what the test gives it: no other variable of this process's.
    env: { ...childEnvironment(process.env, { renio: true }), NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function finished(child: ChildProcess, timeoutMs: number): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
