/** Micro-benchmark of key lookup with config keys and stored keys. `node_modules/.bin/bun bench/keyring.bench.ts` */
import { Bench } from "tinybench";
import { validateConfig } from "../src/config/config-load.ts";
import { displayPrefix, keySecretOf, newKeySecret } from "../src/keys/key-secret.ts";
import { createKeyring } from "../src/keys/keyring.ts";
import type { StoredKey } from "../src/keys/key-store.ts";

/** 200 config keys and 10,000 stored keys (a platform team issuing a key per app and environment). */
const config = validateConfig({
  providers: { mock: { type: "mock" } },
  models: { "mock-gpt": { provider: "mock" } },
  keys: Array.from({ length: 200 }, (_, i) => ({ id: `config-${i}`, secret: `renio-secret-${i.toString().padStart(8, "0")}`, project: "p" })),
});
const keySecret = keySecretOf("bench-server-secret-0123456789abcdef");
const secrets: string[] = [];
const stored: StoredKey[] = Array.from({ length: 10_000 }, (_, i) => {
  const secret = newKeySecret();
  secrets.push(secret);
  return {
    id: `stored-${i}`, project: `project-${i % 50}`, models: ["*"], regions: null, metadata: {}, prefix: displayPrefix(secret),
    expiresAt: Date.now() + 86_400_000, revokedAt: null, previousValidUntil: null, createdAt: 0, updatedAt: 0,
    secretHash: keySecret.hash(secret), previousHash: null,
  };
});
const configOnly = createKeyring(config.keys);
const keyring = createKeyring(config.keys, { keySecret });
keyring.applyStoredKeys(stored);
const STORED = secrets[4_321]!;
const CONFIG = "renio-secret-00000099";
if (keyring.find(STORED) === undefined || keyring.find(CONFIG) === undefined || configOnly.find(CONFIG) === undefined) throw new Error("benchmark setup: keys not found");

const bench = new Bench({ name: "keyring (200 config keys, 10,000 stored keys)", time: 250, warmupTime: 50 });
bench
  .add("config key, config-only keyring (before: sha256 + Map.get)", () => {
    if (configOnly.find(CONFIG) === undefined) throw new Error("no key");
  })
  .add("config key, keyring with stored keys", () => {
    if (keyring.find(CONFIG) === undefined) throw new Error("no key");
  })
  .add("stored key (HMAC-SHA256 + Map.get + expiry check)", () => {
    if (keyring.find(STORED) === undefined) throw new Error("no key");
  })
  .add("unknown rn- secret (HMAC miss, then sha256 miss)", () => {
    if (keyring.find("rn-not-a-key-00000000000000000000000000000000") !== undefined) throw new Error("found");
  });

await bench.run();
console.log(bench.name);
console.table(bench.table());
