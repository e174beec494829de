/** Plain text (aligned columns) or GitHub-flavoured Markdown. */
export type TableFormat = "text" | "markdown";

/**
 * Renders a table. Text: columns separated by two spaces, a dashed rule under
 * the header, the first column left-aligned and the others right-aligned.
 * Markdown: a pipe table with the same alignment.
 */
export function renderTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, format: TableFormat): string {
  const width = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length)));
  const align = (cell: string, column: number) => (column === 0 ? cell.padEnd(width[column]!) : cell.padStart(width[column]!));
  if (format === "markdown") {
    const line = (cells: readonly string[]) => `| ${cells.map((cell, column) => align(cell, column)).join(" | ")} |`;
    const rule = `|${width.map((w, column) => (column === 0 ? `:${"-".repeat(w + 1)}` : `${"-".repeat(w + 1)}:`)).join("|")}|`;
    return [line(header), rule, ...rows.map(line)].join("\n");
  }
  const line = (cells: readonly string[]) => cells.map((cell, column) => align(cell, column)).join("  ").trimEnd();
  return [line(header), line(width.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** Milliseconds with two decimals (`1.23 ms`); `n/a` when not a number. */
export function formatMs(ms: number): string {
  return Number.isFinite(ms) ? `${ms.toFixed(2)} ms` : "n/a";
}

/** Microseconds, rounded (`85 µs`); `n/a` when unknown. */
export function formatMicros(seconds: number | undefined): string {
  return seconds !== undefined && Number.isFinite(seconds) ? `${Math.round(seconds * 1e6)} µs` : "n/a";
}

/** Bytes as MB with one decimal (`45.2 MB`); `n/a` when unknown. */
export function formatMegabytes(bytes: number | undefined): string {
  return bytes !== undefined && Number.isFinite(bytes) ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : "n/a";
}
