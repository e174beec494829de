import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RelayError, StoreUnavailableError } from "../shared/relay-error.ts";
import { createLoopPeer } from "./loop-peer.ts";

type Ask = { readonly n: number; readonly bytes?: Uint8Array };
type Tell = { readonly text: string };

/** Two peers over a real MessageChannel (as between a worker and the main thread). */
function pair(answer: (ask: Ask) => unknown) {
  const channel = new MessageChannel();
  const heard: string[] = [];
  // Asks with bytes are not plain (they cross as a structured clone); the rest cross as JSON.
  const plain = (message: unknown) => (message as Partial<Ask>).bytes === undefined;
  const a = createLoopPeer<Ask, Tell, Ask, Tell>(channel.port1, { request: () => undefined, note: () => undefined, plain });
  createLoopPeer<Ask, Tell, Ask, Tell>(channel.port2, { request: answer, note: (tell) => void heard.push(tell.text), plain });
  channel.port1.start();
  channel.port2.start();
  return { a, heard, close: () => (channel.port1.close(), channel.port2.close()) };
}

describe("loop peer", () => {
  it("answers requests, sync or async, and keeps notes and requests in the order sent", async () => {
    const { a, heard, close } = pair((ask) => (ask.n % 2 === 0 ? ask.n * 10 : Promise.resolve(ask.n * 10)));
    try {
      a.note({ text: "first" });
      const answers = Promise.all([1, 2, 3].map((n) => a.request({ n })));
      a.note({ text: "second" });
      assert.deepEqual(await answers, [10, 20, 30]);
      assert.deepEqual(heard, ["first", "second"]);
      assert.equal(a.waiting, 0);
    } finally {
      close();
    }
  });

  it("a batch with a message that is not plain crosses whole as a structured clone, in order", async () => {
    const { a, heard, close } = pair((ask) => (ask.bytes === undefined ? ask.n : [...ask.bytes]));
    try {
      a.note({ text: "before" });
      const answers = Promise.all([a.request({ n: 1 }), a.request({ n: 2, bytes: new Uint8Array([7, 8, 9]) }), a.request({ n: 3 })]);
      a.note({ text: "after" });
      assert.deepEqual(await answers, [1, [7, 8, 9], 3]);
      assert.deepEqual(heard, ["before", "after"]);
    } finally {
      close();
    }
  });

  it("rebuilds the other side's RelayError (status, code, message, headers); StoreUnavailableError stays one", async () => {
    const { a, close } = pair((ask) => {
      if (ask.n === 1) throw new RelayError(429, "rate_limit_exceeded", "key test: 5 requests per minute", { "retry-after": "12" });
      if (ask.n === 2) return Promise.reject(new StoreUnavailableError());
      throw new Error("disk on fire");
    });
    try {
      await assert.rejects(a.request({ n: 1 }), (error: unknown) => {
        assert.ok(error instanceof RelayError);
        assert.deepEqual([error.status, error.code, error.message, error.headers], [429, "rate_limit_exceeded", "key test: 5 requests per minute", { "retry-after": "12" }]);
        return true;
      });
      await assert.rejects(a.request({ n: 2 }), (error: unknown) => error instanceof StoreUnavailableError && error.status === 503);
      await assert.rejects(a.request({ n: 3 }), (error: unknown) => error instanceof RelayError && error.status === 500 && error.code === "internal_error" && !/at /.test(error.message));
    } finally {
      close();
    }
  });
});
