import { journalText } from "../shared/input-text.ts";
/** One problem in a config, located by its path (e.g. `["providers", "mistral", "baseUrl"]`). */
export interface ConfigProblem {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
  /** Where in the config file, when it came from one: `renio.json:12:5`. */
  readonly at?: string;
}

/** A config that cannot be used; `problems` lists every issue found. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join("\n"));
    this.name = "ConfigError";
  }
}

/** `file:line:column: path: message`, leaving out the parts a problem does not have. */
export function formatProblem(problem: ConfigProblem): string {
  return [problem.at, joinPath(problem.path), problem.message].filter((part) => part !== undefined && part !== "").join(": ");
}

/** Joins a zod-style path into dotted form with [i] for array indexes. */
export function joinPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    // A name from the file is printed with control characters escaped (it may hold any), never raw.
    else out += (out ? "." : "") + journalText(String(part), Infinity);
  }
  return out;
}
