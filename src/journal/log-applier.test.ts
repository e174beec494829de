import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createLogApplier, type LogApplierOptions } from "./log-applier.ts";

/** An apply the test finishes (or fails) when it chooses. */
interface Apply {
  batch: number[];
  finish(): void;
  fail(error: Error): void;
}

/** An applier whose applies the test controls; `nextApply()` resolves with each apply as it starts. */
function controlled(options: Partial<LogApplierOptions<number>> = {}) {
  const started: Apply[] = [];
  const takers: Array<(apply: Apply) => void> = [];
  const errors: string[] = [];
  const left: number[][] = [];
  const applier = createLogApplier<number>({
    delayMs: 60_000,
    soonAt: 1000,
    retryMs: 0,
    onError: (error) => errors.push((error as Error).message),
    applied: (waiting) => left.push([...waiting]),
    apply: (batch) =>
      new Promise<void>((resolve, reject) => {
        const apply = { batch: [...batch], finish: resolve, fail: reject };
        const taker = takers.shift();
        if (taker) taker(apply);
        else started.push(apply);
      }),
    ...options,
  });
  const nextApply = (): Promise<Apply> => {
    const apply = started.shift();
    return apply ? Promise.resolve(apply) : new Promise((resolve) => takers.push(resolve));
  };
  return { applier, nextApply, errors, left };
}

describe("log applier", () => {
  test("a scheduled batch holds back what holdBack names, each item once, first in line for the next; flush holds nothing", async () => {
    const asked: number[][] = [];
    const { applier, nextApply } = controlled({
      delayMs: 0,
      holdBack: (batch) => {
        asked.push([...batch]);
        return new Set(batch.filter((n) => n % 2 === 0));
      },
    });
    for (const n of [1, 2, 3, 4]) applier.add(n);
    const first = await nextApply();
    assert.deepEqual(first.batch, [1, 3]);
    applier.add(6);
    first.finish();
    const second = await nextApply();
    assert.deepEqual(second.batch, [2, 4], "held once: applied next, in order, before what came after");
    assert.deepEqual(applier.waiting, [2, 4, 6]);
    second.finish();
    const third = await nextApply();
    assert.deepEqual(third.batch, [6]);
    third.finish();
    applier.add(8);
    const flushing = applier.flush();
    const last = await nextApply();
    assert.deepEqual(last.batch, [8], "a flush applies everything, held or not");
    last.finish();
    await flushing;
    assert.deepEqual(applier.waiting, []);
    assert.deepEqual(asked.slice(0, 3), [[1, 2, 3, 4], [2, 4, 6], [6]]);
    applier.stop();
  });

  test("held items keep their place when the batch fails, and go with its retry", async () => {
    const { applier, nextApply, errors } = controlled({ delayMs: 0, holdBack: (batch) => new Set(batch.filter((n) => n === 2)) });
    for (const n of [1, 2, 3]) applier.add(n);
    const first = await nextApply();
    assert.deepEqual(first.batch, [1, 3]);
    first.fail(new Error("disk full"));
    const retry = await nextApply();
    assert.deepEqual(retry.batch, [1, 2, 3], "the retry is the batch again, in log order, with the item held once already");
    retry.finish();
    await applier.flush();
    assert.deepEqual(errors, ["disk full"]);
    assert.deepEqual(applier.waiting, []);
    applier.stop();
  });

  test("once soonAt items wait they are applied without the delay, up to maxBatch per apply, oldest first", async () => {
    const { applier, nextApply, left } = controlled({ soonAt: 3, maxBatch: 2 });
    for (const n of [1, 2, 3]) applier.add(n);
    const first = await nextApply();
    assert.deepEqual(first.batch, [1, 2]);
    assert.deepEqual(applier.waiting, [1, 2, 3], "applied items wait until their apply succeeds");
    first.finish();
    const flushing = applier.flush(); // fewer than soonAt left: they would wait for the delay
    const second = await nextApply();
    assert.deepEqual(second.batch, [3]);
    second.finish();
    await flushing;
    assert.deepEqual(left, [[3], []], "told what is left after each apply");
    assert.deepEqual(applier.waiting, []);
    applier.stop();
  });

  test("flush applies everything waiting now, in batches, and resolves when it is applied", async () => {
    const { applier, nextApply } = controlled({ maxBatch: 2 });
    for (const n of [1, 2, 3]) applier.add(n);
    let flushed = false;
    const flushing = applier.flush().then(() => (flushed = true));
    (await nextApply()).finish();
    const last = await nextApply();
    assert.deepEqual(last.batch, [3]);
    assert.equal(flushed, false);
    last.finish();
    await flushing;
    assert.deepEqual(applier.waiting, []);
    applier.stop();
  });

  test("a failed apply keeps its items in order and is retried after retryMs; the error is reported", async () => {
    const { applier, nextApply, errors } = controlled({ soonAt: 2 });
    applier.add(1);
    applier.add(2);
    const first = await nextApply();
    applier.add(3);
    first.fail(new Error("database is locked"));
    const retry = await nextApply();
    assert.equal(applier.failing, true);
    assert.deepEqual(errors, ["database is locked"]);
    assert.deepEqual(retry.batch, [1, 2, 3], "the same items again, with those added meanwhile, in order");
    retry.finish();
    await applier.flush();
    assert.equal(applier.failing, false, "a successful apply clears the failure");
    assert.deepEqual(applier.waiting, []);
    applier.stop();
  });

  test("flush rejects when its apply fails, and the items stay waiting", async () => {
    const { applier, nextApply } = controlled({ retryMs: 60_000 });
    applier.add(1);
    const flushing = applier.flush();
    (await nextApply()).fail(new Error("disk I/O error"));
    await assert.rejects(flushing, /disk I\/O error/);
    assert.deepEqual(applier.waiting, [1]);
    applier.stop();
  });

  test("backpressure: full beyond maxBacklog; room once an apply brings the backlog back, or an apply fails, or it stops", async () => {
    const { applier, nextApply } = controlled({ maxBacklog: 2, maxBatch: 2 });
    for (const n of [1, 2, 3]) applier.add(n);
    assert.equal(applier.full, true);
    const room = applier.untilRoom();
    const flushing = applier.flush();
    (await nextApply()).finish();
    await room;
    assert.equal(applier.full, false);
    (await nextApply()).finish();
    await flushing;

    for (const n of [4, 5, 6]) applier.add(n);
    const roomOnFailure = applier.untilRoom();
    const failing = applier.applyOnce();
    (await nextApply()).fail(new Error("down"));
    await roomOnFailure;
    await assert.rejects(failing, /down/);
    assert.equal(applier.full, true, "a failing database does not make room; callers see `failing` and refuse");

    const roomOnStop = applier.untilRoom();
    applier.stop();
    await roomOnStop;
  });
});
