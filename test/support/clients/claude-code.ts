import { join } from "node:path";
import process from "node:process";
import { childEnv, runChild } from "./client-sandbox.ts";
import { packageDir, type ClientDriver, type ClientEndpoint, type ClientResult } from "./client-driver.ts";

/**
 * Claude Code (`@anthropic-ai/claude-code`), non-interactive: `claude -p` reads `note.txt` with
 * its Read tool and says what it holds. npm delivers the native binary in an optional platform
 * package (`@anthropic-ai/claude-code-linux-x64`, …) that a postinstall script copies over the
 * wrapper's placeholder; the binary is run from the platform package, so the suite works with
 * npm's install scripts skipped.
 */

/** The platform package's name for this machine (glibc Linux, macOS, Windows; x64 or arm64). */
function platformPackage(): string {
  const os = process.platform === "win32" ? "win32" : process.platform;
  return `@anthropic-ai/claude-code-${os}-${process.arch}`;
}

/** The native `claude` binary. */
export function claudeBinary(): string {
  return join(packageDir(platformPackage()), process.platform === "win32" ? "claude.exe" : "claude");
}

export const CLAUDE_CODE_PROMPT = "Read note.txt with your Read tool and tell me what it says.";

export const claudeCode: ClientDriver = {
  name: "Claude Code",
  packageName: "@anthropic-ai/claude-code",
  async run(endpoint: ClientEndpoint): Promise<ClientResult> {
    const env = childEnv(endpoint.home, endpoint.sink, {
      ANTHROPIC_BASE_URL: endpoint.anthropicBaseUrl,
      ANTHROPIC_API_KEY: endpoint.anthropicKey,
      // Every model Claude Code may pick (its small fast one for side tasks too) is the run's.
      ANTHROPIC_MODEL: endpoint.model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: endpoint.model,
      ANTHROPIC_DEFAULT_SONNET_MODEL: endpoint.model,
      ANTHROPIC_DEFAULT_OPUS_MODEL: endpoint.model,
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_BUG_COMMAND: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    });
    const args = ["-p", CLAUDE_CODE_PROMPT, "--model", endpoint.model, "--output-format", "json", "--max-turns", "4", "--no-session-persistence"];
    const run = await runChild(claudeBinary(), args, { env, cwd: endpoint.workdir, timeoutMs: 60_000 });
    let result: { result?: string; is_error?: boolean; subtype?: string } = {};
    try {
      result = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as typeof result;
    } catch {
      // Not JSON: reported below.
    }
    const finished = run.code === 0 && result.is_error === false && result.subtype === "success";
    const detail = finished ? undefined : `exit ${run.code}${run.timedOut ? " (timed out)" : ""}: ${(run.stdout + run.stderr).slice(-600)}`;
    return { finished, received: (result.result ?? "").trim(), ...(detail === undefined ? {} : { detail }) };
  },
};
