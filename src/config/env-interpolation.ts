import type { ConfigProblem } from "./config-error.ts";
import { joinPath } from "./config-error.ts";
import { ownValue } from "../shared/own-keys.ts";

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A config value with its `${NAME}` references resolved, and what could not be resolved. */
export interface Interpolated {
  readonly value: unknown;
  /** One problem per unset (or empty) variable, at its first use, naming its other uses. */
  readonly problems: ConfigProblem[];
  /** {@link joinPath}s of every value that referenced an unset variable (other checks skip them). */
  readonly unresolvedPaths: ReadonlySet<string>;
}

/** The variable names a config text's `${NAME}` references use, each once, in order of first use. */
export function referencedVariables(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(REFERENCE), (match) => match[1]!))];
}

/**
 * Replaces `${NAME}` in every string value with the environment variable's value. Unset
 * variables are reported once each (never with a value).
 */
export function interpolateEnv(value: unknown, env: Readonly<Record<string, string | undefined>>): Interpolated {
  const uses = new Map<string, PropertyKey[][]>();
  const resolved = resolve(value, env, uses, []);
  const problems = [...uses].map(([name, paths]) => ({
    path: paths[0] as PropertyKey[],
    message: `environment variable ${name} is not set${paths.length > 1 ? ` (also used at ${paths.slice(1).map(joinPath).join(", ")})` : ""}`,
  }));
  return { value: resolved, problems, unresolvedPaths: new Set([...uses.values()].flat().map(joinPath)) };
}

function resolve(value: unknown, env: Readonly<Record<string, string | undefined>>, uses: Map<string, PropertyKey[][]>, path: PropertyKey[]): unknown {
  if (typeof value === "string") {
    return value.replace(REFERENCE, (_match, name: string) => {
      const found = ownValue(env, name);
      if (found === undefined || found === "") {
        const paths = uses.get(name) ?? [];
        if (!paths.some((seen) => joinPath(seen) === joinPath(path))) paths.push(path);
        uses.set(name, paths);
        return "";
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => resolve(item, env, uses, [...path, index]));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty, not assignment: a key named __proto__ stays a key (and an unknown one).
      Object.defineProperty(out, key, { value: resolve(item, env, uses, [...path, key]), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}
