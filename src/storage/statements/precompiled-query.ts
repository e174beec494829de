import type { CompiledQuery, Compilable } from "kysely";

const SENTINEL = "\u0000renio-param:";

/** A query compiled once by Kysely; each run only binds new values. */
export type Precompiled<P extends string> = (values: Readonly<Record<P, unknown>>) => CompiledQuery;

/**
 * Compiles `build` once, with a placeholder for every `param(name)`, and returns a function
 * that fills the placeholders. Hot-path statements skip Kysely's per-call building and
 * compiling (and, on SQLite, reuse one prepared statement) while still being written with
 * Kysely for every dialect.
 */
export function precompile<P extends string>(build: (param: (name: P) => never) => Compilable): Precompiled<P> {
  const bind = precompileKeyed(build, (name) => name);
  return (values) => bind((name) => values[name]);
}

/**
 * Like {@link precompile}, but each placeholder's name is turned once into a key (`keyOf`) and
 * the values come from a function of that key: a statement over many rows binds straight from
 * the rows, without building a record of every row's names per call.
 */
export function precompileKeyed<P extends string, K>(
  build: (param: (name: P) => never) => Compilable,
  keyOf: (name: P) => K,
): (valueOf: (key: K) => unknown) => CompiledQuery {
  const compiled = build((name) => (SENTINEL + name) as never).compile();
  // Each parameter is either a named placeholder or a constant written into the query.
  const slots: Array<{ key: K } | { constant: unknown }> = compiled.parameters.map((value) =>
    typeof value === "string" && value.startsWith(SENTINEL) ? { key: keyOf(value.slice(SENTINEL.length) as P) } : { constant: value },
  );
  return (valueOf) => ({ ...compiled, parameters: slots.map((slot) => ("key" in slot ? valueOf(slot.key) : slot.constant)) });
}
