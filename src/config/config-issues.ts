import type { z } from "zod";
import { closest, didYouMean } from "../shared/did-you-mean.ts";
import { ownValue } from "../shared/own-keys.ts";
import { joinPath, type ConfigProblem } from "./config-error.ts";

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** The parts of a zod schema's definition the walk below reads. */
interface SchemaDef {
  readonly type: string;
  readonly shape?: Readonly<Record<string, SchemaLike>>;
  readonly valueType?: SchemaLike;
  readonly element?: SchemaLike;
  readonly options?: readonly SchemaLike[];
  readonly innerType?: SchemaLike;
  readonly in?: SchemaLike;
  readonly out?: SchemaLike;
  readonly getter?: () => SchemaLike;
}
interface SchemaLike {
  readonly _zod: { readonly def: unknown };
}

/**
 * The config problems of zod's `issues` for `value` (unknown keys apart, as they are problems
 * whatever their value), each with a suggestion where one helps: an unknown key gets the closest
 * key its object knows (`models.gpt-4o-mini.provder: unknown key; did you mean "provider"?`), or
 * the form of the entry it belongs to; a value outside a set of choices the closest choice. A union (a model
 * entry is one target, a list or a routed entry) reports the issues of the option the value is
 * nearest to (the one with the fewest issues that is of the value's type), not zod's bare
 * "Invalid input"; a required key reported missing beside an unknown key suggested for it is left
 * to that suggestion.
 */
export function issueProblems(issues: readonly Issue[], schema: SchemaLike, value: unknown): { unknownKeys: ConfigProblem[]; others: ConfigProblem[] } {
  const unknownKeys: ConfigProblem[] = [];
  const others: ConfigProblem[] = [];
  const suggested = new Set<string>();
  const chosen = new Map<string, number>();
  const flat = flatten(issues, [], chosen);
  for (const issue of flat) {
    if (issue.code === "unrecognized_keys") {
      // The forms the value was held to: zod settles some unions itself, so those that know none of the unknown keys.
      const reached = formsAt(schema, issue.path, chosen);
      const held = reached.filter((form) => form.chosen && !issue.keys.some((key) => form.keys.includes(key)));
      const forms = held.length > 0 ? reached.map((form) => ({ ...form, chosen: held.includes(form) })) : reached;
      const known = forms.filter((form) => form.chosen).flatMap((form) => form.keys);
      for (const key of issue.keys) {
        if (key === "__proto__") continue;
        const match = closest(key, known);
        if (match !== undefined) suggested.add(joinPath([...issue.path, match]));
        const other = match === undefined ? forms.find((form) => !form.chosen && form.keys.includes(key)) : undefined;
        const marker = other?.keys.find((name) => !known.includes(name));
        const hint = match !== undefined ? `; did you mean "${match}"?` : marker !== undefined ? ` in this form of the entry; "${key}" goes with "${marker}"` : "";
        unknownKeys.push({ path: [...issue.path, key], message: `unknown key${hint}` });
      }
    }
  }
  for (const issue of flat) {
    if (issue.code === "unrecognized_keys") continue;
    if (issue.code === "invalid_type" && valueAt(value, issue.path) === undefined && suggested.has(joinPath(issue.path))) continue;
    others.push({ path: issue.path, message: messageOf(issue, valueAt(value, issue.path)) });
  }
  return { unknownKeys, others };
}

function messageOf(issue: Issue, value: unknown): string {
  // A record's key broke its rule: say the rule, at the key.
  if (issue.code === "invalid_key") return issue.issues[0]?.message ?? issue.message;
  if (typeof value !== "string") return issue.message;
  if (issue.code === "invalid_value") return `${issue.message}${didYouMean(value, issue.values.filter((choice) => typeof choice === "string"))}`;
  if (issue.code === "invalid_union" && "options" in issue && Array.isArray(issue.options)) {
    return `${issue.message}${didYouMean(value, issue.options.filter((choice): choice is string => typeof choice === "string"))}`;
  }
  return issue.message;
}

/** Issues with every union replaced by the issues of its nearest option (noted in `chosen` by path), paths made absolute. */
function flatten(issues: readonly Issue[], prefix: Path, chosen: Map<string, number>): (Issue & { path: PropertyKey[] })[] {
  const out: (Issue & { path: PropertyKey[] })[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const nearest = nearestOption(issue.errors);
      if (nearest !== undefined) {
        chosen.set(joinPath(path), nearest);
        out.push(...flatten(issue.errors[nearest]!, path, chosen));
        continue;
      }
    }
    out.push({ ...issue, path });
  }
  return out;
}

/** The index of the option whose value is of the right type at its root and that has the fewest issues (the first of equals). */
function nearestOption(options: readonly (readonly Issue[])[]): number | undefined {
  let best: number | undefined;
  options.forEach((issues, index) => {
    if (issues.some((issue) => issue.code === "invalid_type" && issue.path.length === 0)) return;
    if (best === undefined || issues.length < options[best]!.length) best = index;
  });
  return best;
}

/** A schema reached by a path, and whether it is on the options of unions the value was held to. */
interface Reached {
  readonly schema: SchemaLike;
  readonly chosen: boolean;
}

/** The objects at `path` in `schema`, as their keys: every option of a union there, those off the `chosen` options marked so. */
function formsAt(schema: SchemaLike, path: Path, chosen: ReadonlyMap<string, number>): { keys: string[]; chosen: boolean }[] {
  let current = expand({ schema, chosen: true }, chosen.get(""));
  path.forEach((segment, depth) => {
    const next: Reached[] = [];
    for (const node of current) {
      const def = defOf(node.schema);
      const field = def.type === "object" && typeof segment === "string" && def.shape !== undefined ? ownValue(def.shape, segment) : undefined;
      if (field !== undefined) next.push({ schema: field, chosen: node.chosen });
      else if (def.type === "record" && def.valueType !== undefined) next.push({ schema: def.valueType, chosen: node.chosen });
      else if (def.type === "array" && typeof segment === "number" && def.element !== undefined) next.push({ schema: def.element, chosen: node.chosen });
    }
    const option = chosen.get(joinPath(path.slice(0, depth + 1)));
    current = next.flatMap((node) => expand(node, option));
  });
  return current.map((node) => ({ keys: Object.keys(defOf(node.schema).shape ?? {}), chosen: node.chosen }));
}

/** A schema with its wrappers (optional, default, pipe, lazy, …) removed, a union spread into its options (all but `option` marked not chosen). */
function expand(node: Reached, option: number | undefined): Reached[] {
  const def = defOf(node.schema);
  if (def.type === "union" && def.options !== undefined) {
    return def.options.flatMap((schema, index) => expand({ schema, chosen: node.chosen && (option === undefined || option === index) }, undefined));
  }
  if (def.type === "lazy" && def.getter !== undefined) return expand({ ...node, schema: def.getter() }, option);
  if (def.type === "pipe" && def.in !== undefined) return expand({ ...node, schema: def.in }, option);
  if (def.innerType !== undefined) return expand({ ...node, schema: def.innerType }, option);
  return [node];
}

function defOf(schema: SchemaLike): SchemaDef {
  return schema._zod.def as SchemaDef;
}

function valueAt(value: unknown, path: Path): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = Array.isArray(current) ? (typeof segment === "number" ? current[segment] : undefined) : ownValue(current as Record<string, unknown>, String(segment));
  }
  return current;
}
