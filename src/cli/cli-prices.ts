import { BUILTIN_PRICES, PRICES_AS_OF } from "../budget/prices-builtin.ts";
import { parseSubcommand, usageLine, UsageError } from "./cli-args.ts";
import { PRICES_USAGE, wantsHelp } from "./cli-help.ts";

const COLUMNS = ["model", "input", "cachedInput", "output", "cacheWrite5m", "cacheWrite1h", "maxOutputTokens", "contextWindow"] as const;

/** The built-in table as aligned text lines, its date first. */
export function priceTableLines(): string[] {
  const rows = Object.entries(BUILTIN_PRICES).map(([model, price]) => [
    model,
    ...COLUMNS.slice(1).map((column) => {
      const value = price[column as Exclude<(typeof COLUMNS)[number], "model">];
      return value === undefined ? "-" : String(value);
    }),
  ]);
  const table = [[...COLUMNS], ...rows];
  const widths = COLUMNS.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  return [
    `built-in list prices as of ${PRICES_AS_OF}, USD per million tokens (config \`prices\` override them)`,
    ...table.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()),
  ];
}

/** `renio prices list`: prints the built-in table; returns the exit code. */
export function runPricesCommand(args: readonly string[], out: (line: string) => void, err: (line: string) => void): number {
  if (wantsHelp(args)) {
    out(PRICES_USAGE);
    return 0;
  }
  try {
    parseSubcommand(args, { list: {} });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(usageLine("prices", error));
    return 2;
  }
  for (const line of priceTableLines()) out(line);
  return 0;
}
