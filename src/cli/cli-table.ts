/** Writes `header` and `rows` as left-aligned columns two spaces apart, one line each. */
export function printTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, out: (line: string) => void): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  for (const row of [header, ...rows]) out(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd());
}


