import type { PolicyRow } from "../../src/providers/header-policy.ts";

/** The policy's rows as the markdown table docs/headers.md shows (`what` names the first column). */
export function policyTable(what: string, rows: readonly PolicyRow[]): string {
  const names = (row: PolicyRow) => row.names.map((name) => (name === "*" ? "any other" : `\`${name}\``)).join(", ");
  const lines = [`| ${what} | OpenAI caller → OpenAI provider | Anthropic caller → Anthropic provider | translated (either way) | why |`, "| --- | --- | --- | --- | --- |"];
  for (const row of rows) lines.push(`| ${names(row)} | ${row.openai} | ${row.anthropic} | ${row.translated} | ${row.why} |`);
  return lines.join("\n");
}
