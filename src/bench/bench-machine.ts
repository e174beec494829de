import { readFileSync } from "node:fs";
import os from "node:os";

/** The machine a benchmark ran on. */
export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
}

/** CPU model (from /proc/cpuinfo when present), logical cores, memory and OS. */
export function machineInfo(): MachineInfo {
  return {
    cpuModel: cpuModelFromCpuinfo(readCpuinfo()) ?? os.cpus()[0]?.model ?? "unknown",
    cores: typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

/** The first `model name` in /proc/cpuinfo text. */
export function cpuModelFromCpuinfo(text: string): string | undefined {
  const match = /^model name\s*:\s*(.+)$/m.exec(text);
  return match?.[1]?.trim().replace(/\s+/g, " ");
}

function readCpuinfo(): string {
  try {
    return readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    return "";
  }
}
