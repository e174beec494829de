/** Worker entry (Deno): the SQLite store on its own thread. */
import { serveThreadStore } from "./storage/store-thread.ts";
import { openDenoSqlite } from "./runtime/sqlite-deno.ts";

declare const self: Worker;
serveThreadStore(self, openDenoSqlite);
