/** Micro-benchmark of routing: caller key lookup and model resolution. `node_modules/.bin/bun bench/routing.bench.ts` */
import { Bench } from "tinybench";
import { validateConfig } from "../src/config/config-load.ts";
import { createProviders } from "../src/providers/provider-registry.ts";
import { createKeyring, presentedSecret } from "../src/relay/keyring.ts";
import { createModelRouter } from "../src/relay/model-router.ts";

/** A mid-sized deployment: 40 models over 3 providers, 200 keys (some restricted by model and region). */
const models: Record<string, unknown> = {};
for (let i = 0; i < 40; i++) models[`model-${i}`] = i % 4 === 0 ? [{ provider: "eu", model: `m-${i}` }, { provider: "us" }] : { provider: i % 2 === 0 ? "us" : "mock" };
models["mock-gpt"] = { provider: "mock" };
const keys = Array.from({ length: 200 }, (_, i) => ({
  id: `key-${i}`,
  secret: `renio-secret-${i.toString().padStart(8, "0")}`,
  project: `project-${i % 10}`,
  ...(i % 3 === 0 ? { models: ["mock-gpt", "model-0", "model-4"], regions: ["eu", "local"] } : {}),
}));
const config = validateConfig({
  providers: {
    us: { type: "openai", baseUrl: "http://127.0.0.1:1/v1", region: "us" },
    eu: { type: "openai", baseUrl: "http://127.0.0.1:2/v1", region: "eu" },
    mock: { type: "mock", baseUrl: "http://127.0.0.1:3" },
  },
  models,
  keys,
});
const providers = createProviders(config, () => Promise.reject(new Error("no network in benchmarks")));
const keyring = createKeyring(config.keys);
const router = createModelRouter(config, providers);

const SECRET = "renio-secret-00000099";
const RESTRICTED_SECRET = "renio-secret-00000099".replace("99", "09");
const headers = new Headers({ authorization: `Bearer ${SECRET}`, "content-type": "application/json", "user-agent": "OpenAI/JS 7.59.0" });
const key = keyring.find(SECRET)!;
const restricted = keyring.find(RESTRICTED_SECRET)!;
if (key === undefined || restricted === undefined || restricted.regions === null) throw new Error("benchmark setup: keys not found");

const bench = new Bench({ name: "routing (200 keys, 40 models)", time: 250, warmupTime: 50 });
bench
  .add("presentedSecret(headers)", () => {
    if (presentedSecret(headers) === undefined) throw new Error("no secret");
  })
  .add("keyring.find (sha256 of the secret)", () => {
    if (keyring.find(SECRET) === undefined) throw new Error("no key");
  })
  .add("keyring.find, unknown secret", () => {
    if (keyring.find("renio-not-a-key-0000") !== undefined) throw new Error("found");
  })
  .add("router.resolve (cached)", () => {
    router.resolve(key, "mock-gpt", "openai");
  })
  .add("router.resolve, region-restricted key, 2 targets", () => {
    router.resolve(restricted, "model-4", "openai");
  })
  .add("auth + route: presentedSecret + find + resolve", () => {
    const found = keyring.find(presentedSecret(headers)!);
    router.resolve(found!, "mock-gpt", "openai");
  })
  .add("router.modelsFor (GET /v1/models)", () => {
    if (router.modelsFor(restricted).length !== 3) throw new Error("models");
  });

await bench.run();
console.log(bench.name);
console.table(bench.table());
