/**
 * readBody on a 2 KB JSON body with a Content-Length (the common request) and chunked.
 * Run: node_modules/.bin/bun bench/read-body.bench.ts   (or deno run -A bench/read-body.bench.ts)
 */
import { Bench } from "tinybench";
import { readBody } from "../src/relay/read-body.ts";

const body = JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "x".repeat(2000) }] });
const bytes = new TextEncoder().encode(body);
const limits = { maxBytes: 4 << 20, timeoutMs: 10_000 };
const declared = () =>
  new Request("http://relay.test/v1/chat/completions", { method: "POST", body: bytes, headers: { "content-length": String(bytes.byteLength) } });
const chunked = () =>
  new Request("http://relay.test/v1/chat/completions", {
    method: "POST",
    body: new ReadableStream({ start: (c) => (c.enqueue(bytes), c.close()) }),
    // @ts-ignore Deno and Node need duplex for a stream body
    duplex: "half",
  });

const bench = new Bench({ time: 1500 });
bench.add("readBody, content-length", async () => void (await readBody(declared(), limits)));
bench.add("readBody, chunked", async () => void (await readBody(chunked(), limits)));
await bench.run();
console.table(bench.table());
