/**
 * Micro-benchmark of the header and query policy on the request path:
 * `node_modules/.bin/bun bench/header-policy.bench.ts`. Headers as Claude Code (17) and the
 * OpenAI SDK (13) send them; the baseline copies a fixed list of eight names, as a plain
 * allow-list does.
 */
import { Bench } from "tinybench";
import { clientResponseHeaders, upstreamQuery, upstreamRequestHeaders } from "../src/providers/header-policy.ts";

const CLAUDE_CODE = new Headers({
  accept: "application/json", "content-type": "application/json", "user-agent": "claude-cli/2.1.332 (external, sdk-cli)", "x-claude-code-session-id": "4ec55479-281c-4696-b79c-9f9fdbb3b1f8",
  "x-stainless-arch": "x64", "x-stainless-lang": "js", "x-stainless-os": "Linux", "x-stainless-package-version": "0.128.0", "x-stainless-retry-count": "0", "x-stainless-runtime": "node",
  "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14", "anthropic-version": "2023-06-01", "x-api-key": "rn-key", "x-app": "cli", connection: "keep-alive", host: "127.0.0.1:8080", "accept-encoding": "gzip, deflate, br, zstd",
});
const OPENAI_SDK = new Headers({
  accept: "application/json", "content-type": "application/json", "user-agent": "OpenAI/JS 7.59.0", authorization: "Bearer rn-key", "x-stainless-arch": "x64", "x-stainless-lang": "js",
  "x-stainless-os": "Linux", "x-stainless-package-version": "7.59.0", "x-stainless-retry-count": "0", "x-stainless-runtime": "bun", "x-stainless-runtime-version": "1.4.5", connection: "keep-alive", host: "127.0.0.1:8080",
});
const RESPONSE = new Headers({ "content-type": "text/event-stream; charset=utf-8", "x-request-id": "req_1", "openai-processing-ms": "7", "openai-version": "2020-10-01", "x-ratelimit-remaining-requests": "9999", "x-ratelimit-remaining-tokens": "800000", date: "Sun, 06 Dec 2026 01:00:00 GMT", "cf-ray": "8f1", "set-cookie": "__cf_bm=1", server: "cloudflare" });
const ALLOW = ["accept", "anthropic-beta", "anthropic-version", "openai-beta", "user-agent", "x-stainless-helper-method", "x-mock-fault", "idempotency-key"];

const bench = new Bench({ name: "header policy", time: 500 });
bench
  .add("baseline: copy 8 allowed names (Claude Code's headers)", () => {
    const out = new Headers();
    for (const name of ALLOW) {
      const value = CLAUDE_CODE.get(name);
      if (value !== null) out.set(name, value);
    }
  })
  .add("upstreamRequestHeaders, Claude Code's, pass-through", () => void upstreamRequestHeaders(CLAUDE_CODE, "anthropic"))
  .add("upstreamRequestHeaders, OpenAI SDK's, pass-through", () => void upstreamRequestHeaders(OPENAI_SDK, "openai"))
  .add("upstreamRequestHeaders, Claude Code's, translated", () => void upstreamRequestHeaders(CLAUDE_CODE, "translated"))
  .add("upstreamQuery, no query", () => void upstreamQuery("http://127.0.0.1:8080/v1/chat/completions", "openai"))
  .add("upstreamQuery, ?beta=true", () => void upstreamQuery("http://127.0.0.1:8080/v1/messages?beta=true", "anthropic"))
  .add("clientResponseHeaders, OpenAI's, pass-through", () => void clientResponseHeaders(RESPONSE, "openai"));

await bench.run();
console.log(bench.name);
console.table(bench.table());
