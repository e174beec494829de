import { BUILTIN_PRICES, PRICES_AS_OF, type Price, type TokenRates } from "../pricing/prices-builtin.ts";
import { parseSubcommand, usageLine, UsageError } from "../shared/cli-args.ts";
import { PRICES_USAGE, wantsHelp } from "./cli-help.ts";

const COLUMNS = ["model", "input", "cachedInput", "output", "cacheWrite5m", "cacheWrite1h", "maxOutputTokens", "contextWindow", "other"] as const;

const triple = (r: TokenRates) => `${r.input}/${r.cachedInput}/${r.output}`;

/** The rates beyond one flat price, compactly: tiers as input/cachedInput/output, tools per use. */
function otherRates(price: Price): string {
  const parts: string[] = [];
  if (price.longContext !== undefined) parts.push(`above ${price.longContext.aboveInputTokens}: ${triple(price.longContext)}`);
  if (price.serviceTiers?.priority !== undefined) parts.push(`priority ${triple(price.serviceTiers.priority)}`);
  if (price.serviceTiers?.flex !== undefined) parts.push(`flex ${triple(price.serviceTiers.flex)}`);
  if (price.audio !== undefined) parts.push(`audio ${price.audio.input}${price.audio.output === undefined ? "" : `/${price.audio.output}`}`);
  for (const [tool, perUse] of Object.entries(price.tools ?? {})) parts.push(`${tool} ${perUse}/use`);
  return parts.length === 0 ? "-" : parts.join(", ");
}

/** The built-in table as aligned text lines, its date first. */
export function priceTableLines(): string[] {
  const rows = Object.entries(BUILTIN_PRICES).map(([model, price]) => [
    model,
    ...COLUMNS.slice(1, -1).map((column) => {
      const value = price[column as Exclude<(typeof COLUMNS)[number], "model" | "other">];
      return value === undefined ? "-" : String(value);
    }),
    otherRates(price),
  ]);
  const table = [[...COLUMNS], ...rows];
  const widths = COLUMNS.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  return [
    `built-in list prices as of ${PRICES_AS_OF}, USD per million tokens; tiers as input/cachedInput/output; tools per use (config \`prices\` override them)`,
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
