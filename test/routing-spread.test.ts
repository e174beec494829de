import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startMockTargets, type MockTargets } from "./support/mock-targets.ts";
import { TEST_KEY } from "./support/relay-harness.ts";
import { openRelay, type RelayWithStore } from "./support/with-relay.ts";

/** Load balancing end to end: 1,000 calls through the OpenAI SDK over three mock targets. */

let targets: MockTargets;
let opened: RelayWithStore;

before(async () => {
  targets = await startMockTargets(["a", "b", "c"], { latencyMs: 0, chunkIntervalMs: 0 });
  opened = await openRelay(targets.servers.a!.url, {
    providers: targets.providers(),
    models: {
      // a and b share the top group 3:1; c is a lower group, used only when the top one has no usable target.
      spread: { targets: [{ provider: "a", model: "mock-gpt", weight: 3 }, { provider: "b", model: "mock-gpt", weight: 1 }, { provider: "c", model: "mock-gpt", priority: -1 }] },
    },
  });
});

after(async () => {
  await opened?.stop();
  await targets?.stop();
});

describe("weighted spread inside the highest priority group", () => {
  test("1,000 calls split about 3:1 between a and b; the lower group gets none", async () => {
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${opened.relay.url}/v1`, maxRetries: 0, timeout: 20_000 });
    const CALLS = 1000;
    let next = 0;
    // Eight callers in parallel, each sending its next call when the last one is answered.
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < CALLS) {
        next++;
        const reply = await openai.chat.completions.create({ model: "spread", messages: [{ role: "user", content: "hi" }], max_tokens: 5 });
        assert.equal(reply.object, "chat.completion");
      }
    }));
    const [a, b, c] = [await targets.received("a"), await targets.received("b"), await targets.received("c")];
    assert.equal(a + b, CALLS);
    assert.equal(c, 0);
    // Binomial(1000, 0.75): standard deviation 13.7; 5 of them either side of 750.
    assert.ok(Math.abs(a - 750) <= 70, `a served ${a} of ${CALLS}, b ${b}`);
  });
});
