import { parseArgs } from "node:util";
import { ownValue } from "./own-keys.ts";
import { TEXT_BOUNDS, textProblem } from "./input-text.ts";
import { didYouMean } from "./did-you-mean.ts";

/** A command-line mistake; shown as one {@link usageLine}, exit code 2, never a stack trace. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The one line shown for a usage error of `renio <command>` (`help` and `version` point to `renio --help`). */
export function usageLine(command: string, error: Error): string {
  const help = command === "help" || command === "version" ? "renio --help" : `renio ${command} --help`;
  return `renio ${command}: ${error.message} (see ${help})`;
}

/** How a command reads one of its options (`--name value`, `--name=value`, or a bare `--flag`). */
export type OptionSpec =
  | { readonly type: "boolean" }
  | {
      readonly type: "string";
      readonly required?: boolean;
      readonly default?: string;
      readonly multiple?: boolean;
      readonly oneOf?: readonly string[];
      /** What the value is, for "needs …" (default "a value"). */
      readonly valueName?: string;
    }
  | { readonly type: "integer"; readonly min: number; readonly max?: number; readonly required?: boolean; readonly default?: number };

/** The options a command takes, by name without the leading `--`. */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** `--config FILE`, the same for every command that reads a config file. */
export const CONFIG_OPTION = { type: "string", valueName: "a file" } as const satisfies OptionSpec;

/** The error for a missing or unknown subcommand; the closest of `known` is suggested. */
export function badSubcommand(sub: string | undefined, known: readonly string[] = []): UsageError {
  return new UsageError(sub === undefined ? "missing subcommand" : `unknown subcommand "${sub}"${didYouMean(sub, known)}`);
}

type ValueOf<S extends OptionSpec> = S extends { type: "boolean" }
  ? boolean
  : S extends { type: "integer" }
    ? number
    : S extends { multiple: true }
      ? string[]
      : S extends { oneOf: readonly (infer T extends string)[] }
        ? T
        : string;

type AlwaysSet<S> = S extends { type: "boolean" } | { multiple: true } | { required: true } | { default: string | number } ? true : false;

/** The validated values of a command's options: booleans default to false, repeatable ones to []. */
export type OptionValues<O extends OptionSpecs> = {
  readonly [K in keyof O]: AlwaysSet<O[K]> extends true ? ValueOf<O[K]> : ValueOf<O[K]> | undefined;
};

/**
 * Reads `args` against `options`; throws {@link UsageError} on an unknown option, a missing or
 * unexpected value (`--json=yes`), a value outside `oneOf`, a bad number, a missing required
 * option, or more than `maxPositionals` plain arguments. It checks the tokens of `node:util`
 * parseArgs itself (the checks of its strict mode and more) rather than rewording strict mode's
 * errors, whose text is the runtime's and names the option only inside an English sentence.
 */
export function parseOptions<const O extends OptionSpecs>(
  args: readonly string[],
  options: O,
  maxPositionals = 0,
): { readonly values: OptionValues<O>; readonly positionals: readonly string[] } {
  const given = new Map<string, string[]>();
  const positionals: string[] = [];
  for (const token of tokensOf(args, options)) {
    if (token.kind === "positional") {
      checkArgument(`argument ${positionals.length + 1}`, token.value);
      if (positionals.length === maxPositionals) throw new UsageError(`unexpected argument "${token.value}"`);
      positionals.push(token.value);
    } else if (token.kind === "option") {
      const spec = ownValue(options, token.name);
      if (spec === undefined) throw new UsageError(`unknown option ${token.rawName}${didYouMean(token.rawName, Object.keys(options).map((name) => `--${name}`), false)}`);
      const { value, inlineValue } = token;
      if (value !== undefined) checkArgument(token.rawName, value);
      if (spec.type === "boolean") {
        if (value !== undefined) throw new UsageError(`${token.rawName} takes no value, got "${value}"`);
      } else if (value === undefined || value === "") throw new UsageError(`${token.rawName} needs ${needs(spec)}`);
      else if (!inlineValue && value.startsWith("-")) {
        throw new UsageError(`${token.rawName} needs ${needs(spec)}, got "${value}"; write ${token.rawName}=${value} if that is the value`);
      }
      given.set(token.name, [...(given.get(token.name) ?? []), value ?? ""]);
    }
  }
  const values = Object.fromEntries(Object.entries(options).map(([name, spec]) => [name, optionValue(`--${name}`, spec, given.get(name))]));
  return { values: values as OptionValues<O>, positionals };
}

/** A command-line value by the input rules (shared/input-text.ts): what reaches the store is checked as the admin API checks it. */
function checkArgument(name: string, value: string): void {
  const problem = textProblem(value, TEXT_BOUNDS.argument);
  if (problem !== undefined) throw new UsageError(`${name} ${problem}`);
}

/** A subcommand with its validated options and plain arguments, one variant per subcommand of `S`. */
export type SubcommandLine<S extends Readonly<Record<string, OptionSpecs>>> = {
  readonly [K in keyof S & string]: { readonly sub: K; readonly values: OptionValues<S[K]>; readonly positionals: readonly string[] };
}[keyof S & string];

/**
 * Reads `renio <command> SUB [ARG…] [options]`, the options also allowed before SUB: returns
 * SUB, its options validated against `subcommands[SUB]` and up to `maxPositionals[SUB]` (default
 * 0) plain arguments after it. Throws {@link UsageError} for a missing or unknown SUB (suggesting
 * the closest of `subcommands` and `others`, the command's subcommands read elsewhere) and
 * everything {@link parseOptions} refuses.
 */
export function parseSubcommand<const S extends Readonly<Record<string, OptionSpecs>>>(
  args: readonly string[],
  subcommands: S,
  maxPositionals: Partial<Record<keyof S & string, number>> = {},
  others: readonly string[] = [],
): SubcommandLine<S> {
  const anyOf: OptionSpecs = Object.fromEntries(Object.values(subcommands).flatMap((specs) => Object.entries(specs)));
  const first = tokensOf(args, anyOf).find((token) => token.kind === "positional");
  if (first?.kind !== "positional" || !Object.hasOwn(subcommands, first.value)) throw badSubcommand(first?.kind === "positional" ? first.value : undefined, [...Object.keys(subcommands), ...others]);
  const sub = first.value as keyof S & string;
  const { values, positionals } = parseOptions(args.filter((_, i) => i !== first.index), subcommands[sub]!, maxPositionals[sub] ?? 0);
  return { sub, values, positionals } as SubcommandLine<S>;
}

/** The first plain argument of `args` read against `options` (an option's value is not one): the subcommand, if any. */
export function subcommandOf(args: readonly string[], options: OptionSpecs): string | undefined {
  const first = tokensOf(args, options).find((token) => token.kind === "positional");
  return first?.kind === "positional" ? first.value : undefined;
}

function tokensOf(args: readonly string[], options: OptionSpecs) {
  return parseArgs({
    args: [...args],
    options: Object.fromEntries(Object.entries(options).map(([name, spec]) => [name, { type: spec.type === "boolean" ? "boolean" : "string" }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  }).tokens;
}

function optionValue(flag: string, spec: OptionSpec, given: readonly string[] | undefined): unknown {
  if (spec.type === "boolean") return given !== undefined;
  if (spec.type === "string" && spec.multiple) return given ?? [];
  const text = given?.at(-1);
  if (text === undefined) {
    if (spec.required) throw new UsageError(`${flag} is required${spec.type === "string" && spec.oneOf ? `: ${alternatives(spec.oneOf)}` : ""}`);
    return spec.default;
  }
  if (spec.type === "integer") return parseInteger(flag, text, spec.min, spec.max);
  if (spec.oneOf && !spec.oneOf.includes(text)) throw new UsageError(`${flag} must be ${alternatives(spec.oneOf)}, got "${text}"`);
  return text;
}

function needs(spec: OptionSpec): string {
  return spec.type === "integer" ? "a number" : spec.type === "string" && spec.valueName !== undefined ? spec.valueName : "a value";
}

/** `a or b`, or `one of a, b, c`. */
function alternatives(choices: readonly string[]): string {
  return choices.length === 2 ? `${choices[0]} or ${choices[1]}` : `one of ${choices.join(", ")}`;
}

/** A whole number from `min` to `max` written in decimal digits; throws {@link UsageError} naming `flag`. */
export function parseInteger(flag: string, text: string, min: number, max?: number): number {
  const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isSafeInteger(value) && value >= min && (max === undefined || value <= max)) return value;
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  throw new UsageError(`${flag} must be an integer ${range}, got "${text}"`);
}

/** Milliseconds of a duration such as `30s`, `15m`, `2h`, `7d`; undefined for anything else. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+)(s|m|h|d)$/.exec(text);
  return match ? Number(match[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as "s" | "m" | "h" | "d"] : undefined;
}
