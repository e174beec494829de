import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { childEnv, runChild } from "./client-sandbox.ts";
import { packageDir, type ClientDriver, type ClientEndpoint, type ClientResult } from "./client-driver.ts";

/**
 * Codex (`@openai/codex`), non-interactive: `codex exec` checks the thread's goal with its
 * `get_goal` tool and reports it. npm delivers the native binary in an optional platform
 * package (`@openai/codex-linux-x64`, an alias of `@openai/codex@<version>-linux-x64`); the
 * wrapper finds it at run time, no install script involved; the suite runs the binary from the
 * platform package directly. Config lives in a temporary CODEX_HOME: a custom model provider
 * pointing at the run's base URL (Responses API), plugins (which sync from GitHub) and
 * analytics off, no update check.
 */

const TRIPLES: Readonly<Record<string, string>> = { "linux-x64": "x86_64-unknown-linux-musl", "linux-arm64": "aarch64-unknown-linux-musl", "darwin-x64": "x86_64-apple-darwin", "darwin-arm64": "aarch64-apple-darwin" };

/** The native `codex` binary of this machine's platform package. */
export function codexBinary(): string {
  const key = `${process.platform}-${process.arch}`;
  const triple = TRIPLES[key];
  if (triple === undefined) throw new Error(`Codex has no native binary for ${key} in this suite`);
  return join(packageDir(`@openai/codex-${key}`), "vendor", triple, "bin", "codex");
}

export const CODEX_PROMPT = "Check the goal of this thread with get_goal and report what it says.";

/** config.toml of one run. */
function config(endpoint: ClientEndpoint): string {
  return [
    `model = "${endpoint.model}"`,
    `model_provider = "gateway"`,
    "check_for_update_on_startup = false",
    "[analytics]",
    "enabled = false",
    "[features]",
    "plugins = false",
    "[model_providers.gateway]",
    `name = "Gateway"`,
    `base_url = "${endpoint.openaiBaseUrl}"`,
    `env_key = "GATEWAY_API_KEY"`,
    `wire_api = "responses"`,
    "",
  ].join("\n");
}

export const codex: ClientDriver = {
  name: "Codex",
  packageName: "@openai/codex",
  async run(endpoint: ClientEndpoint): Promise<ClientResult> {
    const codexHome = join(endpoint.home, ".codex");
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, "config.toml"), config(endpoint));
    const last = join(endpoint.home, "last-message.txt");
    const env = childEnv(endpoint.home, endpoint.sink, { CODEX_HOME: codexHome, GATEWAY_API_KEY: endpoint.openaiKey });
    const args = ["exec", "--skip-git-repo-check", "--ephemeral", "--color", "never", "-C", endpoint.workdir, "-o", last, CODEX_PROMPT];
    const run = await runChild(codexBinary(), args, { env, cwd: endpoint.workdir, timeoutMs: 60_000 });
    let received = "";
    try {
      received = readFileSync(last, "utf8").trim();
    } catch {
      // No last message: reported below.
    }
    const finished = run.code === 0 && received !== "";
    const detail = finished ? undefined : `exit ${run.code}${run.timedOut ? " (timed out)" : ""}: ${(run.stdout + run.stderr).slice(-600)}`;
    return { finished, received, ...(detail === undefined ? {} : { detail }) };
  },
};
