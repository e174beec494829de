/**
 * The upstream clients side by side in one run: the runtime's fetch, node:http (node-http-fetch.ts)
 * and the lean socket client (socket-fetch.ts), against one upstream in a child process (so this
 * process's CPU is the client's alone). Per client and concurrency: CPU per call (process.cpuUsage,
 * all threads, so Bun's fetch thread counts) and the median latency; rounds interleave the clients.
 *
 *   node_modules/.bin/bun bench/upstream-client.bench.ts [calls-per-round=1000] [rounds=3]
 *   node_modules/.bin/deno run -A bench/upstream-client.bench.ts [calls-per-round] [rounds]
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { createNodeHttpFetch, type UpstreamFetch } from "../src/upstream/node-http-fetch.ts";
import { createSocketFetch } from "../src/upstream/socket-fetch.ts";

const JSON_BODY = JSON.stringify({ id: "chatcmpl-1", object: "chat.completion", model: "gpt-4o", choices: [{ index: 0, message: { role: "assistant", content: "The quick brown fox jumps over the lazy dog." }, finish_reason: "stop" }], usage: { prompt_tokens: 19, completion_tokens: 10, total_tokens: 29 } });
const SSE_EVENT = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"part"},"finish_reason":null}]}\n\n`;

if (process.argv[2] === "serve") {
  // The upstream: JSON at /json, 8 SSE events (chunked, one write each) at /sse.
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      if (request.url === "/sse") {
        response.writeHead(200, { "content-type": "text/event-stream" });
        for (let i = 0; i < 8; i++) response.write(SSE_EVENT);
        response.end("data: [DONE]\n\n");
      } else {
        response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(JSON_BODY) });
        response.end(JSON_BODY);
      }
    });
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
  });
} else {
  await main();
}

async function main(): Promise<void> {
  const calls = Number(process.argv[2] ?? 1000);
  const rounds = Number(process.argv[3] ?? 3);
  const runner = "Deno" in globalThis ? [process.execPath, "run", "-A"] : [process.execPath];
  const child = spawn(runner[0]!, [...runner.slice(1), fileURLToPath(import.meta.url), "serve"], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve) => child.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
  const base = `http://127.0.0.1:${port}`;
  const clients: Record<string, UpstreamFetch> = {
    fetch: (url, init) => fetch(url, init),
    "node-http": createNodeHttpFetch(),
    socket: createSocketFetch(),
  };
  const body = new TextEncoder().encode('{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}');
  const results = new Map<string, { cpu: number[]; latency: number[] }>();
  const runtime = "Deno" in globalThis ? `deno ${(globalThis as { Deno?: { version: { deno: string } } }).Deno!.version.deno}` : `bun ${process.versions.bun}`;
  console.log(`upstream clients on ${runtime}: ${calls} calls per round, ${rounds} rounds, interleaved`);
  for (const path of ["/json", "/sse"]) {
    for (const concurrency of [1, 16, 64]) {
      for (let round = 0; round <= rounds; round++) {
        for (const [name, client] of Object.entries(clients)) {
          const measured = await runRound(client, `${base}${path}`, body, round === 0 ? 200 : calls, concurrency);
          if (round === 0) continue; // warm-up
          const key = `${path} c=${concurrency} ${name}`;
          const entry = results.get(key) ?? { cpu: [], latency: [] };
          entry.cpu.push(measured.cpuPerCall);
          entry.latency.push(...measured.latencies);
          results.set(key, entry);
        }
      }
    }
  }
  console.log("| body | concurrency | client | CPU per call (µs, median of rounds) | median latency (ms) | p99 (ms) |");
  console.log("| --- | ---: | --- | ---: | ---: | ---: |");
  for (const [key, { cpu, latency }] of results) {
    const [path, c, name] = key.split(" ");
    latency.sort((a, b) => a - b);
    console.log(`| ${path} | ${c!.slice(2)} | ${name} | ${median(cpu).toFixed(0)} | ${median(latency).toFixed(3)} | ${latency[Math.floor(latency.length * 0.99)]!.toFixed(3)} |`);
  }
  child.kill();
  process.exit(0);
}

async function runRound(client: UpstreamFetch, url: string, body: Uint8Array<ArrayBuffer>, calls: number, concurrency: number): Promise<{ cpuPerCall: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const start = process.cpuUsage();
  const worker = async () => {
    while (next++ < calls) {
      const began = performance.now();
      const response = await client(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      const reader = response.body!.getReader();
      while (!(await reader.read()).done);
      latencies.push(performance.now() - began);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(start);
  return { cpuPerCall: (used.user + used.system) / calls, latencies };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
