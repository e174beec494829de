import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { clockTicksPerSecond, cpuSecondsFromSchedstat, cpuTicksFromStat, createProcessProbe, statusBytes } from "./process-usage.ts";

describe("cpuTicksFromStat", () => {
  it("adds utime and stime, even when the command name holds spaces and parentheses", () => {
    const stat = "4242 (bun (x) y) S 1 4242 4242 0 -1 4194304 1200 0 0 0 731 269 0 0 20 0 9 0 100 200000000 10000 18446744073709551615";
    assert.equal(cpuTicksFromStat(stat), 1000);
  });

  it("refuses text that is not a stat line", () => {
    assert.throws(() => cpuTicksFromStat("garbage"), /format/);
  });
});

describe("cpuSecondsFromSchedstat", () => {
  it("reads the nanoseconds on the CPU (the first field) as seconds", () => {
    assert.equal(cpuSecondsFromSchedstat("1500000000 2000 7\n"), 1.5);
    assert.equal(cpuSecondsFromSchedstat("123 0 1"), 123e-9);
  });

  it("refuses text that is not a schedstat line", () => {
    assert.throws(() => cpuSecondsFromSchedstat("garbage"), /format/);
    assert.throws(() => cpuSecondsFromSchedstat("-5 0 1"), /format/);
  });
});

describe("statusBytes", () => {
  it("reads kB fields as bytes", () => {
    const status = "Name:\tbun\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\n";
    assert.equal(statusBytes(status, "VmRSS"), 40960 * 1024);
    assert.equal(statusBytes(status, "VmHWM"), 51200 * 1024);
    assert.equal(statusBytes(status, "VmSwap"), undefined);
  });
});

/** User plus system time of a `process.cpuUsage()` difference, in microseconds. */
const cpuMicros = (usage: NodeJS.CpuUsage): number => usage.user + usage.system;

describe("createProcessProbe", { skip: !existsSync("/proc/self/stat") }, () => {
  it("reads this process's CPU time and memory", () => {
    assert.ok(clockTicksPerSecond() > 0);
    const probe = createProcessProbe(process.pid);
    const before = probe.cpuSeconds()!;
    let x = 0;
    const until = Date.now() + 30;
    while (Date.now() < until) x += Math.sqrt(x + 1);
    assert.ok(x > 0);
    assert.ok(probe.cpuSeconds()! >= before);
    const threadsBefore = probe.threadCpuSeconds()!;
    // Spin for 30 ms of this process's CPU, not of the wall clock: on a busy machine 30 ms of
    // wall time may be far less time on a core (bounded at 5 s of wall time).
    const spun = process.cpuUsage();
    const giveUp = Date.now() + 5000;
    while (cpuMicros(process.cpuUsage(spun)) < 30_000 && Date.now() < giveUp) x += Math.sqrt(x + 1);
    const threads = probe.threadCpuSeconds()!;
    assert.ok(threads.size >= 1);
    // The spinning thread's CPU grew by about the 30 ms it spun (the probe reads nanoseconds where it can, whole ticks otherwise).
    const grown = Math.max(...[...threads].map(([name, seconds]) => seconds - (threadsBefore.get(name) ?? 0)));
    assert.ok(grown >= 0.015 && grown < 1, `the busiest thread grew by ${grown} s`);
    assert.ok([...threads.values()].every((seconds) => seconds >= 0));
    assert.ok(probe.rss()! > 1024 * 1024);
    assert.ok(probe.peakRss()! >= probe.rss()! / 2);
  });

  it("answers undefined for a process that does not exist", () => {
    const probe = createProcessProbe(2 ** 30);
    assert.equal(probe.cpuSeconds(), undefined);
    assert.equal(probe.rss(), undefined);
    assert.equal(probe.threadCpuSeconds(), undefined);
    assert.equal(probe.resetPeak(), false);
  });
});
