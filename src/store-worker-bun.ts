/** Worker entry (Bun): the SQLite store on its own thread. */
import { serveThreadStore } from "./storage/store-thread.ts";
import { openBunSqlite } from "./runtime/sqlite-bun.ts";

declare const self: Worker;
serveThreadStore(self, openBunSqlite);
