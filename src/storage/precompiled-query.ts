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
  const compiled = build((name) => (SENTINEL + name) as never).compile();
  // Each parameter is either a named placeholder or a constant written into the query.
  const slots: Array<{ name: P } | { constant: unknown }> = compiled.parameters.map((value) =>
    typeof value === "string" && value.startsWith(SENTINEL) ? { name: value.slice(SENTINEL.length) as P } : { constant: value },
  );
  return (values) => ({ ...compiled, parameters: slots.map((slot) => ("name" in slot ? values[slot.name] : slot.constant)) });
}
