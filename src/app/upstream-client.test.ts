import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { UpstreamFetch } from "../upstream/node-http-fetch.ts";
import { byLoad, type LoadLine } from "./upstream-client.ts";

/** A client that answers with its own name and records the URLs it was given. */
function named(name: string): { fetch: UpstreamFetch; urls: string[] } {
  const urls: string[] = [];
  return { urls, fetch: async (url) => (urls.push(url), new Response(name)) };
}

/** Sends one call per step through `byLoad(few, many, …, line)` with that many calls in flight: which client answered each, and the URLs each was given. */
async function routed(line: LoadLine, steps: ReadonlyArray<readonly [inFlight: number, streams: boolean]>) {
  const few = named("few");
  const many = named("many");
  let inFlight = 0;
  const fetch = byLoad(few.fetch, many.fetch, () => inFlight, line);
  const answers: string[] = [];
  for (const [count, streams] of steps) {
    inFlight = count;
    answers.push(await (await fetch(`http://upstream/${count}`, { method: "POST", streams })).text());
  }
  return { answers, few, many };
}

describe("byLoad", () => {
  test("sends a call through the first client up to the limit of calls in flight, through the second above it", async () => {
    const { answers, few, many } = await routed({ calls: 16, streams: 32 }, [1, 15, 16, 17, 64, 16, 1].map((count) => [count, false] as const));
    assert.deepEqual(answers, ["few", "few", "few", "many", "many", "few", "few"]);
    assert.deepEqual(few.urls, ["http://upstream/1", "http://upstream/15", "http://upstream/16", "http://upstream/16", "http://upstream/1"]);
    assert.deepEqual(many.urls, ["http://upstream/17", "http://upstream/64"]);
  });

  test("a call whose answer streams goes through the first client up to the higher line for streams", async () => {
    const { answers } = await routed({ calls: 8, streams: 16 }, [[8, false], [9, false], [9, true], [16, true], [17, true], [16, false]]);
    assert.deepEqual(answers, ["few", "many", "few", "few", "many", "many"]);
  });

  test("a client's refusal reaches the caller as it was", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const fetch = byLoad(() => Promise.reject(refused), named("many").fetch, () => 1, { calls: 16, streams: 16 });
    await assert.rejects(fetch("http://upstream/", { method: "POST" }), (error) => error === refused);
  });
});
