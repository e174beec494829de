/** Faults the mock can inject, per server or per request (`x-mock-fault` header). */
export interface MockFaults {
  /** Answer with this HTTP status and the route's error envelope. */
  status?: number;
  /** Wait this long before the response instead of the latency. */
  firstByteDelayMs?: number;
  /** End streams abruptly (an error, not a clean end) after this many SSE events. */
  cutAfterChunks?: number;
  /** Wait this long between stream chunks instead of the chunk interval. */
  chunkIntervalMs?: number;
  /** Drop the connection instead of answering. */
  reset?: boolean;
}

/** Header whose `;`-separated items set faults for one request, e.g. `status=503;delay=200`. */
export const FAULT_HEADER = "x-mock-fault";

/** Thrown for a fault header the mock cannot read. */
export class MockFaultSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MockFaultSyntaxError";
  }
}

/**
 * Parses an `x-mock-fault` value: `status=N`, `delay=MS`, `cut=N`, `slow=MS`, `reset`.
 * Throws {@link MockFaultSyntaxError} on an unknown item or a bad number.
 */
export function parseFaultHeader(value: string): MockFaults {
  const faults: MockFaults = {};
  for (const raw of value.split(";")) {
    const item = raw.trim();
    if (item === "") continue;
    const eq = item.indexOf("=");
    const name = (eq < 0 ? item : item.slice(0, eq)).trim().toLowerCase();
    const arg = eq < 0 ? undefined : item.slice(eq + 1).trim();
    switch (name) {
      case "reset":
        faults.reset = arg === undefined || arg === "true" || arg === "1";
        break;
      case "status": {
        const status = readInteger(name, arg);
        if (status < 200 || status > 599) throw new MockFaultSyntaxError(`fault status must be 200..599, got ${status}`);
        faults.status = status;
        break;
      }
      case "delay":
        faults.firstByteDelayMs = readInteger(name, arg);
        break;
      case "cut":
        faults.cutAfterChunks = readInteger(name, arg);
        break;
      case "slow":
        faults.chunkIntervalMs = readInteger(name, arg);
        break;
      default:
        throw new MockFaultSyntaxError(`unknown fault "${name}" (use status, delay, cut, slow, reset)`);
    }
  }
  return faults;
}

/** Server faults overridden field by field by request faults. */
export function mergeFaults(server: MockFaults | undefined, request: MockFaults | undefined): MockFaults {
  if (!request) return server ?? {};
  if (!server) return request;
  return { ...server, ...request };
}

function readInteger(name: string, arg: string | undefined): number {
  const value = arg === undefined || arg === "" ? Number.NaN : Number(arg);
  if (!Number.isInteger(value) || value < 0) {
    throw new MockFaultSyntaxError(`fault ${name} needs a non-negative integer, got ${arg ?? "nothing"}`);
  }
  return value;
}
