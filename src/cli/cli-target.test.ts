import assert from "node:assert/strict";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { storeText } from "./cli-target.ts";

describe("the store a command names on stderr", () => {
  it("names a PostgreSQL store by host and database, never its user or password", () => {
    const text = storeText({ type: "postgres", url: "postgres://renio:s3cret-pass@db.internal:5432/renio?sslmode=require", poolSize: 10 });
    assert.equal(text, "PostgreSQL db.internal:5432/renio");
  });

  it("names a SQLite store by its absolute path", () => {
    assert.equal(storeText({ type: "sqlite", path: ".renio/renio.db" }), `SQLite ${resolve(".renio/renio.db")}`);
  });
});
