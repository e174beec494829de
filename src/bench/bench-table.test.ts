import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatMegabytes, formatMicros, formatMs, renderTable } from "./bench-table.ts";

describe("renderTable", () => {
  const header = ["Concurrent requests", "Direct (median)"];
  const rows = [["1", "2.41 ms"], ["64", "12.00 ms"]];

  it("aligns text columns: first left, others right, dashed rule", () => {
    assert.equal(
      renderTable(header, rows, "text"),
      ["Concurrent requests  Direct (median)", "-------------------  ---------------", "1                            2.41 ms", "64                          12.00 ms"].join("\n"),
    );
  });

  it("renders a Markdown pipe table with alignment markers", () => {
    const lines = renderTable(header, rows, "markdown").split("\n");
    assert.equal(lines[0], "| Concurrent requests | Direct (median) |");
    assert.equal(lines[1], "|:--------------------|----------------:|");
    assert.equal(lines[3], "| 64                  |        12.00 ms |");
  });
});

describe("formatters", () => {
  it("formats ms, µs and MB, with n/a for unknown", () => {
    assert.equal(formatMs(0.456), "0.46 ms");
    assert.equal(formatMs(-0.1), "-0.10 ms");
    assert.equal(formatMs(Number.NaN), "n/a");
    assert.equal(formatMicros(0.000085), "85 µs");
    assert.equal(formatMicros(undefined), "n/a");
    assert.equal(formatMegabytes(45.25 * 1024 * 1024), "45.3 MB");
    assert.equal(formatMegabytes(undefined), "n/a");
  });
});
