import { z } from "zod";
import type { ConfigProblem } from "./config-error.ts";

/**
 * A config object of names → values that calls look up by a name from outside (providers,
 * models, prices): validated as a record and handed on as a Map, so a name such as
 * `constructor` or `toString` is an ordinary name.
 */
export function nameMap<K extends z.ZodType<string>, V extends z.ZodType>(key: K, value: V) {
  return z.record(key, value).transform((record) => new Map(Object.entries(record)) as Map<z.output<K>, z.output<V>>);
}

/** The message for a `__proto__` key: parsers and validators drop or misread it, so it is refused by name. */
export const PROTO_KEY_PROBLEM = "`__proto__` cannot be a name in the config (JSON tools drop or misread it); pick another";

/** A problem for every own `__proto__` key in a parsed config tree (a record would drop it without a word). */
export function protoKeyProblems(value: unknown, path: PropertyKey[] = []): ConfigProblem[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => protoKeyProblems(item, [...path, index]));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key === "__proto__" ? [{ path: [...path, key], message: PROTO_KEY_PROBLEM }] : protoKeyProblems(item, [...path, key]),
  );
}
