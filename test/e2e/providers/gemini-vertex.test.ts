import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { validateConfig } from "../../../src/config/config-load.ts";
import { createProviders } from "../../../src/providers/provider-registry.ts";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import type { Server } from "../../../src/runtime/runtime.ts";
import type { Store } from "../../../src/storage/store.ts";
import { geminiResponse, startGeminiUpstream, type GeminiUpstream } from "../../support/gemini-upstream.ts";
import { finishedEntries, openStore } from "../../support/relay-calls.ts";
import { startRelay, TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";

const PROJECT = "renio-test";
const LOCATION = "europe-west4";
const EMAIL = "relay@renio-test.iam.gserviceaccount.com";
const ALGORITHM = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };

/** A token endpoint on loopback that checks each JWT's RS256 signature against the test key's public half. */
interface TokenServer {
  readonly url: string;
  readonly grants: { grantType: string | null; claims: Record<string, unknown>; verified: boolean }[];
  stop(): Promise<void>;
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function startTokenServer(publicKey: CryptoKey): Promise<TokenServer> {
  const grants: TokenServer["grants"] = [];
  const server: Server = await (await currentRuntime()).serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request: Request): Promise<Response> {
      const form = new URLSearchParams(await request.text());
      const [header, payload, signature] = (form.get("assertion") ?? "").split(".");
      const verified = await crypto.subtle.verify(ALGORITHM, publicKey, fromBase64Url(signature ?? ""), new TextEncoder().encode(`${header}.${payload}`));
      const claims = JSON.parse(new TextDecoder().decode(fromBase64Url(payload ?? ""))) as Record<string, unknown>;
      grants.push({ grantType: form.get("grant_type"), claims, verified });
      if (!verified) return Response.json({ error: "invalid_grant" }, { status: 400 });
      return Response.json({ access_token: `ya29.test-token-${grants.length}`, expires_in: 3599, token_type: "Bearer" });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/token`, grants, stop: () => server.stop() };
}

async function serviceAccountJson(privateKey: CryptoKey, tokenUri: string): Promise<string> {
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", privateKey));
  let binary = "";
  for (const byte of der) binary += String.fromCharCode(byte);
  const pem = `-----BEGIN PRIVATE KEY-----\n${btoa(binary).replace(/.{64}/g, "$&\n")}\n-----END PRIVATE KEY-----\n`;
  return JSON.stringify({ type: "service_account", project_id: PROJECT, private_key_id: "k1", private_key: pem, client_email: EMAIL, token_uri: tokenUri });
}

let upstream: GeminiUpstream;
let tokens: TokenServer;
let relay: RelayUnderTest;
let store: Store;
let serviceAccount: string;

before(async () => {
  const keys = await crypto.subtle.generateKey({ ...ALGORITHM, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, true, ["sign", "verify"]);
  tokens = await startTokenServer(keys.publicKey);
  serviceAccount = await serviceAccountJson(keys.privateKey, tokens.url);
  upstream = await startGeminiUpstream();
  relay = await startRelay(upstream.url, {
    providers: { vertex: { type: "gemini", baseUrl: upstream.url, vertex: { project: PROJECT, location: LOCATION, serviceAccount } } },
    models: { "gemini-2.5-flash": { provider: "vertex" } },
  });
  store = await openStore(relay.config.storage);
});

after(async () => {
  await store.close();
  await relay.stop();
  await upstream.stop();
  await tokens.stop();
});

describe("Vertex AI with a service account", () => {
  test("calls carry an access token from a verifiably signed JWT, fetched once and reused; region eu from europe-west4", async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
    upstream.answer = { json: geminiResponse([{ text: "hallo" }], "STOP", { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 }) };
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { data, response } = await client.chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "hi" }] }).withResponse();
      assert.equal(data.choices[0]!.message.content, "hallo");
      ids.push(response.headers.get("x-request-id")!);
    }
    assert.equal(tokens.grants.length, 1, "the token is reused until it nears expiry");
    const grant = tokens.grants[0]!;
    assert.equal(grant.verified, true);
    assert.equal(grant.grantType, "urn:ietf:params:oauth:grant-type:jwt-bearer");
    assert.equal(grant.claims["iss"], EMAIL);
    assert.equal(grant.claims["aud"], tokens.url);
    assert.equal(grant.claims["scope"], "https://www.googleapis.com/auth/cloud-platform");
    assert.equal((grant.claims["exp"] as number) - (grant.claims["iat"] as number), 3600);
    for (const seen of upstream.seen.slice(-2)) {
      assert.equal(seen.path, `/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models/gemini-2.5-flash:generateContent`);
      assert.equal(seen.headers.get("authorization"), "Bearer ya29.test-token-1");
    }
    const entries = await finishedEntries(store, ids);
    for (const id of ids) assert.deepEqual([entries.get(id)!.region, entries.get(id)!.inputTokens, entries.get(id)!.outputTokens], ["eu", 3, 1]);
  });
});

describe("Vertex config", () => {
  const base = { keys: [], models: {} };
  test("a region contradicting the location is a config error naming the path", () => {
    assert.throws(
      () => validateConfig({ ...base, providers: { g: { type: "gemini", region: "us", vertex: { project: PROJECT, location: LOCATION, serviceAccount } } } }, {}),
      /providers\.g\.region: "us" contradicts vertex\.location europe-west4 \(region eu\)/,
    );
  });

  test("an eu label on the global Generative Language API is a config error", () => {
    assert.throws(() => validateConfig({ ...base, providers: { g: { type: "gemini", region: "eu", apiKey: "k" } } }, {}), /providers\.g\.region: "eu" contradicts https:\/\/generativelanguage/);
  });

  test("a service account that is not a key is refused without echoing it", () => {
    const secretish = '{"client_email":"x@y","private_key":"not-a-key-s3cr3t"}';
    assert.throws(
      () => validateConfig({ ...base, providers: { g: { type: "gemini", vertex: { project: PROJECT, location: LOCATION, serviceAccount: secretish } } } }, {}),
      (error: Error) => /providers\.g\.vertex\.serviceAccount: must be a service-account key JSON/.test(error.message) && !error.message.includes("s3cr3t"),
    );
  });
});

describe("docs/providers.md", () => {
  test("the Gemini config example is valid, and its Vertex provider is in region eu", async () => {
    const page = await readFile(new URL("../../../docs/providers.md", import.meta.url), "utf8");
    const block = /<!-- gemini-config-example[^\n]*\n```json\n([\s\S]*?)```/.exec(page);
    assert.ok(block, "docs/providers.md has the Gemini config example");
    const config = validateConfig(JSON.parse(block[1]!), { GEMINI_API_KEY: "AIza-example", VERTEX_SERVICE_ACCOUNT_JSON: serviceAccount });
    const vertex = config.providers.get("vertex-eu")!;
    assert.ok(vertex.type === "gemini" && vertex.vertex?.location === "europe-west4");
    const providers = createProviders(config, fetch);
    assert.equal(providers.get("vertex-eu")!.region, "eu");
    assert.equal(providers.get("gemini")!.region, "global");
  });
});
