/** One problem in a config file, located by its path (e.g. `providers.mistral.baseUrl`). */
export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

/** A config that cannot be used; `problems` lists every issue found. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join("\n"));
    this.name = "ConfigError";
  }
}

/** `path: message`, or just the message for the file as a whole. */
export function formatProblem(problem: ConfigProblem): string {
  return problem.path ? `${problem.path}: ${problem.message}` : problem.message;
}

/** Joins a zod-style path into dotted form with [i] for array indexes. */
export function joinPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += (out ? "." : "") + String(part);
  }
  return out;
}
