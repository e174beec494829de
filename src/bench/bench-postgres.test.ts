import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import pg from "pg";
import { givenPostgres, postgresBinDir, startThrowawayPostgres } from "./bench-postgres.ts";

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query("show server_version_num")).rows[0].server_version_num as string;
  } finally {
    await client.end();
  }
}

describe("the bench's PostgreSQL", () => {
  it("finds the server binaries through PG_BIN, else initdb on PATH (following its link)", () => {
    const dir = mkdtempSync(join(tmpdir(), "renio-pgbin-"));
    try {
      mkdirSync(join(dir, "real"));
      mkdirSync(join(dir, "path"));
      writeFileSync(join(dir, "real", "initdb"), "");
      symlinkSync(join(dir, "real", "initdb"), join(dir, "path", "initdb"));
      assert.equal(postgresBinDir({ PG_BIN: "/opt/pg/bin", PATH: join(dir, "path") }), "/opt/pg/bin");
      assert.equal(postgresBinDir({ PATH: `/nonexistent:${join(dir, "path")}` }), join(dir, "real"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("starts a throwaway server with a database per relay, and stops it for good", { timeout: 60_000 }, async () => {
    const server = await startThrowawayPostgres();
    const url = await server.databaseUrl("renio_fsync");
    assert.match(server.description, /^postgres 15\.\d+ \(throwaway server, temporary directory, fsync on\)$/);
    assert.match(url, /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/renio_fsync$/);
    assert.match(await serverVersion(url), /^15\d{4}$/);
    server.stop();
    await assert.rejects(serverVersion(url), /ECONNREFUSED|connect/);
  });

  it("names a given server without its password and hands every relay its database", async () => {
    const given = givenPostgres("postgres://bench:s3cret@db.internal:6432/scratch");
    assert.equal(given.description, "postgres (given: db.internal:6432/scratch)");
    assert.equal(await given.databaseUrl("renio_fsync"), "postgres://bench:s3cret@db.internal:6432/scratch");
  });
});
