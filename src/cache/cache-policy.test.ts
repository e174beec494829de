import assert from "node:assert/strict";
import { test } from "node:test";
import { cacheSchema } from "../config/cache-schema.ts";
import { cacheKeyOf } from "./cache-key.ts";
import { cacheModeOf, cacheNamespace } from "./cache-policy.ts";
import { decodeEntry, encodeEntry } from "./cache-entry.ts";

const config = cacheSchema.parse({ models: ["cached-model"], ttlSeconds: 600 });
const caller = { keyId: "k1", project: "p1", model: "cached-model" };
const other = { keyId: "k2", project: "p1", model: "plain-model" };
const headers = (entries: Record<string, string> = {}) => new Headers(entries);

test("a call is cached when its model, project or key is listed, or when it asks; no-store and bypass opt out", () => {
  assert.deepEqual(cacheModeOf(config, caller, headers()), { use: true, read: true, store: true, maxAgeMs: 600_000 });
  assert.deepEqual(cacheModeOf(config, other, headers()), { use: false });
  assert.equal(cacheModeOf(config, other, headers({ "x-renio-cache": "use" })).use, true);
  assert.deepEqual(cacheModeOf(config, other, headers({ "cache-control": "max-age=60" })), { use: true, read: true, store: true, maxAgeMs: 60_000 });
  assert.deepEqual(cacheModeOf(config, caller, headers({ "cache-control": "max-age=99999" })), { use: true, read: true, store: true, maxAgeMs: 600_000 }, "never beyond the TTL");
  assert.deepEqual(cacheModeOf(config, caller, headers({ "cache-control": "no-cache" })), { use: true, read: false, store: true, maxAgeMs: 600_000 });
  assert.deepEqual(cacheModeOf(config, caller, headers({ "cache-control": "private, no-store" })), { use: false });
  assert.deepEqual(cacheModeOf(config, caller, headers({ "x-renio-cache": "bypass" })), { use: false });
  assert.equal(cacheModeOf(cacheSchema.parse({ projects: ["p1"] }), other, headers()).use, true);
  assert.equal(cacheModeOf(cacheSchema.parse({ keys: ["k2"] }), other, headers()).use, true);
});

test("the namespace is the project unless set to the key or global", () => {
  assert.equal(cacheNamespace(config, caller), "project:p1");
  assert.equal(cacheNamespace(cacheSchema.parse({ namespace: "key" }), caller), "key:k1");
  assert.equal(cacheNamespace(cacheSchema.parse({ namespace: "global" }), caller), "*");
});

test("the key ignores key order and whitespace; any field, the route, the model or the namespace changes it", () => {
  const parts = { namespace: "project:p1", route: "/v1/chat/completions", provider: "openai", upstreamModel: "gpt-4o-mini" };
  const body = (text: string) => new TextEncoder().encode(text);
  const key = cacheKeyOf(parts, body(`{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0}`));
  assert.match(key!, /^[0-9a-f]{64}$/);
  assert.equal(cacheKeyOf(parts, body(`{ "temperature": 0, "messages": [ { "content": "hi", "role": "user" } ], "model": "m" }`)), key);
  assert.notEqual(cacheKeyOf(parts, body(`{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":1}`)), key);
  assert.notEqual(cacheKeyOf({ ...parts, route: "/v1/messages" }, body(`{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0}`)), key);
  assert.notEqual(cacheKeyOf({ ...parts, upstreamModel: "gpt-4o" }, body(`{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0}`)), key);
  assert.notEqual(cacheKeyOf({ ...parts, namespace: "project:p2" }, body(`{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0}`)), key);
  assert.equal(cacheKeyOf(parts, body("not json")), undefined);
  // A key named __proto__ is data, not a prototype change.
  assert.notEqual(cacheKeyOf(parts, body(`{"__proto__":{"a":1},"model":"m"}`)), cacheKeyOf(parts, body(`{"model":"m"}`)));
});

test("an entry keeps its chunks' boundaries through encoding; damaged bytes are a miss", () => {
  const chunks = [new TextEncoder().encode("data: 1\n\n"), new TextEncoder().encode("data: 2\n\ndata: [DONE]\n\n")];
  const entry = { storedAt: 5, contentType: "text/event-stream", usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 2 }, cost: 0.5, chunks };
  const bytes = encodeEntry(entry);
  assert.deepEqual(decodeEntry(bytes), entry);
  assert.equal(decodeEntry(bytes.subarray(0, bytes.byteLength - 1)), undefined);
  assert.equal(decodeEntry(new TextEncoder().encode("garbage")), undefined);
});
