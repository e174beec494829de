/** Worker entry (Bun): one more event loop serving HTTP on the relay's port. */
import { serveLoop } from "./app/loop-worker.ts";
import { bunRuntime } from "./runtime/runtime-bun.ts";

declare const self: Worker;
serveLoop(self, bunRuntime);
