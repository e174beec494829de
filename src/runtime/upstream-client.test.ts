import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { UpstreamFetch } from "./node-http-fetch.ts";
import { byLoad } from "./upstream-client.ts";

/** A client that answers with its own name and records the URLs it was given. */
function named(name: string): { fetch: UpstreamFetch; urls: string[] } {
  const urls: string[] = [];
  return { urls, fetch: async (url) => (urls.push(url), new Response(name)) };
}

describe("byLoad", () => {
  test("sends a call through the first client up to the limit of calls in flight, through the second above it", async () => {
    const few = named("few");
    const many = named("many");
    let inFlight = 0;
    const fetch = byLoad(few.fetch, many.fetch, () => inFlight, { calls: 16, streams: 32 });
    const answers: string[] = [];
    for (const count of [1, 15, 16, 17, 64, 16, 1]) {
      inFlight = count;
      answers.push(await (await fetch(`http://upstream/${count}`, { method: "POST" })).text());
    }
    assert.deepEqual(answers, ["few", "few", "few", "many", "many", "few", "few"]);
    assert.deepEqual(few.urls, ["http://upstream/1", "http://upstream/15", "http://upstream/16", "http://upstream/16", "http://upstream/1"]);
    assert.deepEqual(many.urls, ["http://upstream/17", "http://upstream/64"]);
  });

  test("a call whose answer streams goes through the first client up to the higher line for streams", async () => {
    const few = named("few");
    const many = named("many");
    let inFlight = 0;
    const fetch = byLoad(few.fetch, many.fetch, () => inFlight, { calls: 8, streams: 16 });
    const answers: string[] = [];
    for (const [count, streams] of [[8, false], [9, false], [9, true], [16, true], [17, true], [16, false]] as const) {
      inFlight = count;
      answers.push(await (await fetch(`http://upstream/${count}`, { method: "POST", streams })).text());
    }
    assert.deepEqual(answers, ["few", "many", "few", "few", "many", "many"]);
  });

  test("a client's refusal reaches the caller as it was", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const fetch = byLoad(() => Promise.reject(refused), named("many").fetch, () => 1, { calls: 16, streams: 16 });
    await assert.rejects(fetch("http://upstream/", { method: "POST" }), (error) => error === refused);
  });
});
