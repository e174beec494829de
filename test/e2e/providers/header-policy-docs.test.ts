import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { QUERY_PARAMETERS, REQUEST_HEADERS, RESPONSE_HEADERS } from "../../../src/providers/header-policy.ts";
import { policyTable } from "../../support/header-policy-table.ts";

test("docs/headers.md shows the policy the code applies, row for row", () => {
  const docs = readFileSync(new URL("../../../docs/headers.md", import.meta.url), "utf8");
  for (const [what, rows] of [["request header", REQUEST_HEADERS], ["query parameter", QUERY_PARAMETERS], ["response header", RESPONSE_HEADERS]] as const) {
    assert.ok(docs.includes(policyTable(what, rows)), `docs/headers.md's ${what} table differs from src/providers/header-policy.ts; render it with policyTable() (test/support/header-policy-table.ts)`);
  }
});
