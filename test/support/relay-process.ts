import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { childEnvironment } from "../../src/config/child-environment.ts";
import { referencedVariables } from "../../src/config/env-interpolation.ts";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import { TEST_KEY } from "./relay-harness.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const runtimeName = (await currentRuntime()).name;

/** How long a child may take to print its listening line or to exit. */
const START_TIMEOUT_MS = 20_000;

const children = new Set<ChildProcess>();
process.on("exit", () => children.forEach((child) => child.kill("SIGKILL")));

const dirs: string[] = [];
process.on("exit", () => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A temporary directory removed when the test process exits. */
export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "renio-proc-"));
  dirs.push(dir);
  return dir;
}

/** argv running the renio CLI from source on the runtime that runs the tests. */
export function renioArgv(args: readonly string[]): [string, string[]] {
  return runtimeName === "bun"
    ? [process.execPath, [join(root, "src/main-bun.ts"), ...args]]
    : [process.execPath, ["run", "-A", join(root, "src/main-deno.ts"), ...args]];
}

/**
 * The environment of a renio child: the runtime's variables, the `RENIO_*` ones, and the variables
 * its `--config` file's `${NAME}` references name; nothing else of this process's (no unrelated secret).
 */
export function renioEnv(args: readonly string[]): Record<string, string> {
  const at = args.indexOf("--config");
  const configPath = (at >= 0 ? args[at + 1] : undefined) ?? process.env.RENIO_CONFIG;
  const referenced = configPath === undefined || configPath === "" ? [] : referencedVariables(readFileSync(resolve(root, configPath), "utf8"));
  return { ...childEnvironment(process.env, { renio: true, referenced }), NO_COLOR: "1" };
}

/** How a child process ended. */
export interface Exit {
  code: number | null;
  signal: string | null;
}

/** A renio child process. */
export interface RenioProcess {
  readonly child: ChildProcess;
  /** Base URL from its `listening on` line. */
  readonly url: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** What it printed on stderr so far. */
  stderr(): string;
  /** Resolves when it has exited. */
  readonly exited: Promise<Exit>;
  /** Sends a signal and waits (bounded) for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

function track(child: ChildProcess): { output: () => string; stderr: () => string; exited: Promise<Exit> } {
  children.add(child);
  let text = "";
  let errors = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    text += chunk;
    errors += chunk;
  });
  const exited = new Promise<Exit>((resolve) =>
    child.once("exit", (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return { output: () => text, stderr: () => errors, exited };
}

/** Rejects after `ms` with `message` (the timer is cleared when `promise` settles). */
export function bounded<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message())), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Starts `renio <args>` and waits (bounded) for the line `listening on http://HOST:PORT`.
 * Rejects with its output if it exits or stays silent.
 */
export async function startRenio(args: readonly string[]): Promise<RenioProcess> {
  const [command, argv] = renioArgv(args);
  const child = spawn(command, argv, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: renioEnv(args) });
  const { output, stderr, exited } = track(child);
  const listening = new Promise<string>((resolve, reject) => {
    const onData = (): void => {
      const match = /listening on (http:\/\/\S+)/.exec(output());
      if (match) {
        child.stdout?.off("data", onData);
        resolve(match[1] as string);
      }
    };
    child.stdout?.on("data", onData);
    void exited.then((exit) => reject(new Error(`renio ${args.join(" ")} exited (${exit.code ?? exit.signal}) before listening:\n${output()}`)));
  });
  const url = await bounded(listening, START_TIMEOUT_MS, () => `renio ${args.join(" ")} did not listen within ${START_TIMEOUT_MS} ms:\n${output()}`).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  return {
    child,
    url,
    output,
    stderr,
    exited,
    stop(signal = "SIGTERM") {
      // process.kill, not child.kill: Deno's ChildProcess reports any child it signalled as killed by that signal, even when it exits 0.
      process.kill(child.pid!, signal);
      return bounded(exited, START_TIMEOUT_MS, () => `renio did not exit after ${signal}:\n${output()}`);
    },
  };
}

/** Starts `renio serve --config FILE`. */
export function startRelayProcess(configPath: string): Promise<RenioProcess> {
  return startRenio(["serve", "--config", configPath]);
}

/** Runs a one-shot renio command (bounded); resolves with its exit code and output. */
export async function runRenio(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [command, argv] = renioArgv(args);
  const child = spawn(command, argv, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: renioEnv(args) });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const code = await bounded(exited, START_TIMEOUT_MS, () => `renio ${args.join(" ")} did not exit:\n${stdout}${stderr}`).finally(() => children.delete(child));
  return { code, stdout, stderr };
}

/**
 * Raw config of a relay on a free loopback port forwarding `mock-gpt` and `mock-claude` to
 * the mock at `mockUrl`, with the harness key. `overrides` replace top-level sections.
 */
export function relayConfig(mockUrl: string, storage: Record<string, unknown>, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000 },
    storage,
    providers: { mock: { type: "mock", baseUrl: mockUrl, firstByteTimeoutMs: 15_000 } },
    models: { "mock-gpt": { provider: "mock" }, "mock-claude": { provider: "mock" } },
    keys: [{ id: "test", secret: TEST_KEY, project: "tests" }],
    ...overrides,
  };
}

/** Writes a config file into `dir` and returns its path (a validated config's Maps, e.g. `models`, written as objects). */
export function writeConfig(dir: string, raw: Record<string, unknown>, name = "renio.json"): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(raw, (_key, value: unknown) => (value instanceof Map ? Object.fromEntries(value) : value), 2));
  return path;
}
