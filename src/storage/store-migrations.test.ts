import assert from "node:assert/strict";
import { test } from "node:test";
import { latestSchemaVersion, migrations } from "./store-migrations.ts";

test("schema migrations run 1..latest with no gap (a gap would record a version whose steps never ran)", () => {
  const versions = Object.keys(migrations).map(Number).sort((a, b) => a - b);
  assert.deepEqual(versions, Array.from({ length: latestSchemaVersion }, (_, index) => index + 1));
});
