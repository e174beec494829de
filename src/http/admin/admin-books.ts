import { Hono } from "hono";
import { booksReport } from "../../budgets/books-check.ts";
import type { QuarantineStore, BooksReader } from "../../journal/journal-store.ts";
import type { HttpEnv } from "../app.ts";
import { limitParam, timeParam } from "./admin-query.ts";
import { requireRole } from "./admin-auth.ts";

/**
 * The books' health (read role): `GET /admin/books` checks the books' invariant now (every
 * budget row against the journal, in one snapshot; `renio budget check --url`), and
 * `GET /admin/quarantine` lists the journal records the database refused, newest first,
 * cursor-paginated (`renio journal quarantine`). `sync` applies what the relay logged first.
 */
export function createAdminBooksRoutes(store: BooksReader & Pick<QuarantineStore, "listQuarantine">, sync?: () => Promise<void>): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  routes.get("/books", requireRole("read"), async (c) => {
    await sync?.();
    return c.json({ object: "books.check", ...booksReport(await store.checkBooks()) });
  });
  routes.get("/quarantine", requireRole("read"), async (c) => {
    const limit = limitParam(c.req.query("limit"), 100, 1000);
    await sync?.();
    const page = await store.listQuarantine({ limit, since: timeParam(c.req.query("since"), "since"), cursor: c.req.query("cursor") });
    return c.json({ object: "list", data: page.records.map((r) => ({ ...r, at: new Date(r.at).toISOString() })), next_cursor: page.nextCursor });
  });
  return routes;
}
