import { parseArgs } from "node:util";
import { mockServerFetch } from "../providers/mock/mock-serve.ts";
import { createMock, type MockFaults, type MockOptions } from "../providers/mock/mock-server.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { MOCK_USAGE, wantsHelp } from "./cli-help.ts";

const OPTIONS = {
  port: { type: "string", default: "9090" },
  host: { type: "string", default: "127.0.0.1" },
  "latency-ms": { type: "string", default: "2" },
  "chunk-interval-ms": { type: "string", default: "1" },
  chunks: { type: "string", default: "8" },
  "fault-status": { type: "string" },
  "fault-delay-ms": { type: "string" },
  "fault-cut": { type: "string" },
  "fault-slow-ms": { type: "string" },
  "fault-reset": { type: "boolean", default: false },
} as const;

/**
 * `renio mock [--port N] [--host H] [--latency-ms N] [--chunk-interval-ms N] [--chunks N]
 * [--fault-status N] [--fault-delay-ms N] [--fault-cut N] [--fault-slow-ms N] [--fault-reset]`:
 * serves the mock provider until SIGINT/SIGTERM. `--help` prints the usage (exit 0); returns 2 on a bad command line.
 */
export async function runMockCommand(args: string[], runtime: Runtime): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(`${MOCK_USAGE}\n`);
    return 0;
  }
  let options: MockOptions;
  let host: string;
  let port: number;
  try {
    const { values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false });
    port = integer("--port", values.port, 0, 65_535);
    host = values.host;
    const faults: MockFaults = {};
    if (values["fault-status"] !== undefined) faults.status = integer("--fault-status", values["fault-status"], 200, 599);
    if (values["fault-delay-ms"] !== undefined) faults.firstByteDelayMs = integer("--fault-delay-ms", values["fault-delay-ms"]);
    if (values["fault-cut"] !== undefined) faults.cutAfterChunks = integer("--fault-cut", values["fault-cut"]);
    if (values["fault-slow-ms"] !== undefined) faults.chunkIntervalMs = integer("--fault-slow-ms", values["fault-slow-ms"]);
    if (values["fault-reset"]) faults.reset = true;
    options = {
      latencyMs: integer("--latency-ms", values["latency-ms"]),
      chunkIntervalMs: integer("--chunk-interval-ms", values["chunk-interval-ms"]),
      chunks: integer("--chunks", values.chunks, 1, 4096),
      faults,
    };
  } catch (error) {
    process.stderr.write(`renio mock: ${error instanceof Error ? error.message : String(error)} (see renio mock --help)\n`);
    return 2;
  }

  const mock = createMock(options);
  const server = await runtime.serve({ fetch: mockServerFetch(mock), hostname: host, port });
  process.stdout.write(`renio mock listening on http://${formatHost(server.hostname)}:${server.port}\n`);
  await nextStopSignal();
  await server.stop();
  return 0;
}

/** Resolves on the first SIGINT or SIGTERM (kept local so the mock command needs nothing of the relay). */
function nextStopSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

function integer(flag: string, text: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${flag} must be an integer from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

function formatHost(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}
