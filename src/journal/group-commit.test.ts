import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createGroupCommit, type GroupCommit } from "./group-commit.ts";

/** A write the test finishes (or fails) when it chooses. */
interface Write {
  batch: string[];
  finish(result: string): void;
  fail(error: Error): void;
}

/** A group commit whose writes the test controls; `nextWrite()` resolves with each write as it starts. */
function controlled(maxBatch?: number, schedule?: (run: () => void) => void) {
  const started: Write[] = [];
  const waiting: Array<(write: Write) => void> = [];
  const outcomes: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const commit: GroupCommit<string> = createGroupCommit<string, string>({
    maxBatch,
    schedule,
    write: (batch) =>
      new Promise<string>((resolve, reject) => {
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        const write = {
          batch: [...batch],
          finish: (result: string) => (inFlight--, resolve(result)),
          fail: (error: Error) => (inFlight--, reject(error)),
        };
        const taker = waiting.shift();
        if (taker) taker(write);
        else started.push(write);
      }),
    written: (batch, result) => outcomes.push(`${batch.join(",")}: ${result}`),
    failed: (batch, error) => outcomes.push(`${batch.join(",")}: failed (${(error as Error).message})`),
  });
  const nextWrite = (): Promise<Write> => {
    const write = started.shift();
    return write ? Promise.resolve(write) : new Promise((resolve) => waiting.push(resolve));
  };
  return { commit, nextWrite, outcomes, mostInFlight: () => mostInFlight };
}

describe("group commit", () => {
  test("scheduled with setImmediate, items added in separate tasks of one event-loop turn share a write", async () => {
    const { commit, nextWrite } = controlled(undefined, setImmediate);
    // Three timers due at once run in one turn's timer phase, each its own task: with the
    // default (a microtask after the first), the first would be written alone.
    await new Promise<void>((resolve) => {
      let fired = 0;
      for (const item of ["a", "b", "c"]) {
        setTimeout(() => {
          commit.add(item);
          if (++fired === 3) resolve();
        }, 0);
      }
    });
    const write = await nextWrite();
    assert.deepEqual(write.batch, ["a", "b", "c"]);
    write.finish("one");
    await commit.idle();
  });

  test("items of one tick share a write; items added while it is in flight all go into the next", async () => {
    const { commit, nextWrite, outcomes, mostInFlight } = controlled();
    commit.add("a");
    commit.add("b");
    const first = await nextWrite();
    assert.deepEqual(first.batch, ["a", "b"]);
    commit.add("c");
    commit.add("d");
    commit.add("e");
    first.finish("one");
    const second = await nextWrite();
    assert.deepEqual(second.batch, ["c", "d", "e"], "written together, right after the first");
    second.finish("two");
    await commit.idle();
    assert.deepEqual(outcomes, ["a,b: one", "c,d,e: two"], "each batch told once, with its own write's result");
    assert.equal(mostInFlight(), 1, "one write in flight at a time");
  });

  test("maxBatch splits what waits into consecutive writes, in order", async () => {
    const { commit, nextWrite, outcomes } = controlled(2);
    for (const item of ["a", "b", "c", "d", "e"]) commit.add(item);
    for (const expected of [["a", "b"], ["c", "d"], ["e"]]) {
      const write = await nextWrite();
      assert.deepEqual(write.batch, expected);
      write.finish("ok");
    }
    await commit.idle();
    assert.deepEqual(outcomes, ["a,b: ok", "c,d: ok", "e: ok"]);
  });

  test("a failed write fails its own batch only; the next batch is still written", async () => {
    const { commit, nextWrite, outcomes } = controlled();
    commit.add("a");
    const first = await nextWrite();
    commit.add("b");
    first.fail(new Error("disk full"));
    const second = await nextWrite();
    assert.deepEqual(second.batch, ["b"], "the failed item is not retried");
    second.finish("ok");
    await commit.idle();
    assert.deepEqual(outcomes, ["a: failed (disk full)", "b: ok"]);
  });

  test("a write that throws instead of rejecting fails its batch the same way", async () => {
    const outcomes: string[] = [];
    const commit = createGroupCommit<string, void>({
      write: () => {
        throw new Error("bad descriptor");
      },
      written: (batch) => outcomes.push(`${batch.join(",")}: ok`),
      failed: (batch, error) => outcomes.push(`${batch.join(",")}: failed (${(error as Error).message})`),
    });
    commit.add("a");
    await commit.idle();
    assert.deepEqual(outcomes, ["a: failed (bad descriptor)"]);
  });

  test("idle resolves at once when nothing waits, else once the last write is done", async () => {
    const { commit, nextWrite, outcomes } = controlled();
    await commit.idle();
    commit.add("a");
    let idle = false;
    const whenIdle = commit.idle().then(() => (idle = true));
    const write = await nextWrite();
    assert.equal(idle, false, "a write is in flight");
    write.finish("ok");
    await whenIdle;
    assert.deepEqual(outcomes, ["a: ok"], "idle after its batch was told");
  });
});
