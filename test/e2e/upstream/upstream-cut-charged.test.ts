import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { costOf } from "../../../src/pricing/cost.ts";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import { chatBody, finishedEntries } from "../../support/relay-calls.ts";
import { startCuttingUpstream, type CuttingUpstream } from "../../support/cutting-upstream.ts";
import { openRelay, type RelayWithStore } from "../../support/with-relay.ts";
import { TEST_KEY } from "../../support/relay-harness.ts";

/**
 * The socket upstream client (`server.upstreamClient: socket`; `auto` on Deno, and on Bun while few
 * calls are in flight) on a provider that drops the connection right after its last event, the
 * usage: the client receives every byte, and the relay's books see the usage those last bytes
 * carried (Bun's fetch lost them: issue 10 item 9).
 */
const CHUNKS = [
  ...Array.from({ length: 4 }, (_, i) => `data: {"id":"chatcmpl-cut","object":"chat.completion.chunk","created":0,"model":"mock-gpt","choices":[{"index":0,"delta":{"content":"part ${i}"},"finish_reason":null}]}\n\n`),
  `data: {"id":"chatcmpl-cut","object":"chat.completion.chunk","created":0,"model":"mock-gpt","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}\n\n`,
];

// `auto` sends a streamed call through the socket client while at most 16 are in flight (one here).
for (const client of ["socket", "auto"] as const) {
  describe(`upstreamClient: ${client}`, () => {
    let upstream: CuttingUpstream;
    let opened: RelayWithStore;
    let clientFetch: (url: string, init: RequestInit) => Promise<Response>;

    before(async () => {
      // The client reads with the runtime's cut-safe fetch (Bun's global fetch would lose bytes on its side).
      clientFetch = (await currentRuntime()).cutSafeFetch;
      upstream = await startCuttingUpstream(CHUNKS);
      opened = await openRelay(upstream.url, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, upstreamClient: client }, budgets: [{ id: "all", scope: "total", period: "total", limit: 100 }] });
    });

    after(async () => {
      await opened.stop();
      await upstream.stop();
    });

    test("a cut upstream stream: every byte reaches the client, its usage reaches the journal, the call is charged by it", async () => {
      for (let round = 0; round < 10; round++) {
        const response = await clientFetch(`${opened.relay.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
          body: JSON.stringify(chatBody({ stream: true, stream_options: { include_usage: true } })),
        });
        assert.equal(response.status, 200);
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        let text = "";
        await assert.rejects(async () => {
          for (;;) {
            const read = await reader.read();
            if (read.done) throw new Error("the stream ended cleanly");
            text += decoder.decode(read.value, { stream: true });
          }
        }, (error: Error) => error.message !== "the stream ended cleanly");
        assert.equal(text, CHUNKS.join(""), `round ${round}: every byte the provider sent`);
        const id = response.headers.get("x-request-id")!;
        const entry = (await finishedEntries(opened.store, [id])).get(id)!;
        assert.equal(entry.errorCode, "upstream_stream_cut");
        assert.equal(entry.inputTokens, 11, "the usage in the provider's last bytes was read");
        assert.equal(entry.outputTokens, 7);
        // The provider's final usage arrived before the cut: the call is charged what it reports.
        assert.equal(entry.cost, costOf({ inputTokens: 11, cachedInputTokens: 0, outputTokens: 7 }, BUILTIN_PRICES["mock"]!));
        assert.ok(entry.cost! > 0);
      }
    });
  });
}
