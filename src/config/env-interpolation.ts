import type { ConfigProblem } from "./config-error.ts";

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${NAME}` in every string value with the environment variable's value.
 * Unset variables are reported as problems (never with a value).
 */
export function interpolateEnv(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  problems: ConfigProblem[],
  path: PropertyKey[] = [],
): unknown {
  if (typeof value === "string") {
    return value.replace(REFERENCE, (_match, name: string) => {
      const resolved = env[name];
      if (resolved === undefined || resolved === "") {
        problems.push({ path, message: `environment variable ${name} is not set` });
        return "";
      }
      return resolved;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolateEnv(item, env, problems, [...path, index]));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty, not assignment: a key named __proto__ stays a key (and an unknown one).
      Object.defineProperty(out, key, { value: interpolateEnv(item, env, problems, [...path, key]), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}
