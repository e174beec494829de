import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Sink } from "./client-sandbox.ts";

/** Where one run of a client points, and with what: the scripted providers (direct) or Renio (via). */
export interface ClientEndpoint {
  /** OpenAI API base URL, `/v1` included. */
  readonly openaiBaseUrl: string;
  /** Anthropic API base URL (no `/v1`, as the Anthropic SDK and Claude Code take it). */
  readonly anthropicBaseUrl: string;
  readonly openaiKey: string;
  readonly anthropicKey: string;
  readonly model: string;
  /** A fresh HOME for this run. */
  readonly home: string;
  /** The task's working directory, the same for both runs (it holds `note.txt`). */
  readonly workdir: string;
  readonly sink: Sink;
}

/** What a client's user got from one run. */
export interface ClientResult {
  /** The client says the task completed. */
  readonly finished: boolean;
  /** What it answered its user (and what its tools were called with), normalized. */
  readonly received: string;
  /** Why it did not finish (its output, an error), for the report. */
  readonly detail?: string;
}

/** A real client from npm, driven through one task. */
export interface ClientDriver {
  readonly name: string;
  /** Its npm package and the version installed (pinned in package.json). */
  readonly packageName: string;
  run(endpoint: ClientEndpoint): Promise<ClientResult>;
}

/** The SDK clients' tool: its name, what the scripted providers call it with, and what it returns. */
export const WEATHER = {
  name: "get_weather",
  description: "The current weather in a city",
  arguments: { city: "Berlin" },
  result: (city: string) => `Sunny in ${city}, 21 C`,
} as const;

/** The task every SDK client is given. */
export const WEATHER_PROMPT = "What is the weather in Berlin? Use the get_weather tool.";

/** The directory of an installed npm package (an optional platform package included), as npm installs it at the repository's root. */
export function packageDir(name: string): string {
  return fileURLToPath(new URL(`../../../node_modules/${name}`, import.meta.url));
}

/** The version of an installed npm package. */
export function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(`${packageDir(name)}/package.json`, "utf8")) as { version: string }).version;
}

/** A one-line summary of an error for the report (no stack). */
export function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : String(error).slice(0, 300);
}
