import { mockServerFetch } from "../providers/mock/mock-serve.ts";
import { createMock, type MockFaults, type MockOptions, type MockScript } from "../providers/mock/mock-server.ts";
import { mockScriptSchema } from "../config/mock-script-schema.ts";
import { MOCK_ANSWERS } from "../config/mock-schema.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { parseOptions, usageLine, UsageError } from "../shared/cli-args.ts";
import { MOCK_USAGE, wantsHelp } from "./cli-help.ts";

const MS = { type: "integer", min: 0, max: 3_600_000 } as const;
const OPTIONS = {
  port: { type: "integer", min: 0, max: 65_535, default: 9090 },
  host: { type: "string", default: "127.0.0.1" },
  "latency-ms": { ...MS, default: 2 },
  "chunk-interval-ms": { ...MS, default: 1 },
  chunks: { type: "integer", min: 1, max: 4096, default: 8 },
  answer: { type: "string", oneOf: MOCK_ANSWERS, default: "sentence" },
  "fault-status": { type: "integer", min: 200, max: 599 },
  "fault-delay-ms": MS,
  "fault-cut": { type: "integer", min: 0 },
  "fault-slow-ms": MS,
  "fault-reset": { type: "boolean" },
  script: { type: "string" },
} as const;

/**
 * `renio mock [--port N] [--host H] [--latency-ms N] [--chunk-interval-ms N] [--chunks N] [--answer sentence|fill]
 * [--fault-status N] [--fault-delay-ms N] [--fault-cut N] [--fault-slow-ms N] [--fault-reset] [--script JSON]`:
 * serves the mock provider until SIGINT/SIGTERM. `--help` prints the usage (exit 0); returns 2 on a bad command line.
 */
export async function runMockCommand(args: string[], runtime: Runtime): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(`${MOCK_USAGE}\n`);
    return 0;
  }
  let values;
  let script: MockScript | undefined;
  try {
    values = parseOptions(args, OPTIONS).values;
    script = values.script === undefined ? undefined : parseScript(values.script);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${usageLine("mock", error)}\n`);
    return 2;
  }
  const faults: MockFaults = {
    ...(values["fault-status"] !== undefined && { status: values["fault-status"] }),
    ...(values["fault-delay-ms"] !== undefined && { firstByteDelayMs: values["fault-delay-ms"] }),
    ...(values["fault-cut"] !== undefined && { cutAfterChunks: values["fault-cut"] }),
    ...(values["fault-slow-ms"] !== undefined && { chunkIntervalMs: values["fault-slow-ms"] }),
    ...(values["fault-reset"] && { reset: true }),
  };
  const options: MockOptions = { latencyMs: values["latency-ms"], chunkIntervalMs: values["chunk-interval-ms"], chunks: values.chunks, answer: values.answer, faults, ...(script && { script }) };
  const { host, port } = values;
  const mock = createMock(options);
  const server = await runtime.serve({ fetch: mockServerFetch(mock), hostname: host, port });
  process.stdout.write(`renio mock listening on http://${formatHost(server.hostname)}:${server.port}\n`);
  await nextStopSignal();
  await server.stop();
  return 0;
}

/** A `--script` value: a fault script as JSON (`{"failFirst":2,"status":503}`); throws UsageError naming the problem. */
function parseScript(text: string): MockScript {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`--script must be JSON, e.g. '{"failFirst":2,"status":503}'`);
  }
  const parsed = mockScriptSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`--script: ${issue?.path.join(".") || "(the script)"}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
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

function formatHost(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}
