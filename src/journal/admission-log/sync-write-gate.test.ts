import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createSyncWriteGate } from "./sync-write-gate.ts";

describe("sync write gate", () => {
  test("stays open through a healthy disk's occasional slow write; a slow disk closes it for the cool-off, then it tries again", () => {
    let clock = 0;
    const gate = createSyncWriteGate({ slowMs: 2, coolOffMs: 1000, now: () => clock });
    for (let i = 0; i < 50; i++) gate.took(i % 25 === 0 ? 5 : 0.3);
    assert.ok(gate.open(), "a write of 5 ms now and then among writes of 0.3 ms");
    let writes = 0;
    while (gate.open() && writes < 100) (gate.took(3), writes++);
    assert.ok(!gate.open(), "writes of 3 ms each close it");
    assert.ok(writes >= 5 && writes <= 20, `after about eight of them (${writes})`);
    clock = 999;
    assert.ok(!gate.open(), "closed through the cool-off");
    clock = 1000;
    assert.ok(gate.open(), "then the calling thread is tried again");
    gate.took(60);
    assert.ok(!gate.open(), "one very slow write (a stalled disk) closes it at once");
    clock = 2000;
    assert.ok(gate.open());
  });
});
