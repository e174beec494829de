import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { StoredKey } from "./key-store.ts";
import { keySecretOf, newKeySecret } from "./key-secret.ts";
import { createKeyring, hashSecret } from "./keyring.ts";

const keySecret = keySecretOf("unit-test-server-secret-0123456789");
let now = 1_000_000;
const clock = () => now;

function stored(id: string, secret: string, overrides: Partial<StoredKey> = {}): StoredKey {
  return {
    id, project: "p", models: ["m1"], regions: null, metadata: {}, prefix: secret.slice(0, 10), expiresAt: null, revokedAt: null,
    previousValidUntil: null, createdAt: 0, updatedAt: 0, secretHash: keySecret.hash(secret), previousHash: null, ...overrides,
  };
}

const configKeys = [
  { id: "plain", secret: "sk-plain-secret-0001", project: "c", models: ["*"] },
  { id: "hashed", secret: `sha256:${hashSecret("sk-hashed-secret-0002")}`, project: "c", models: ["*"] },
  { id: "rn-looking", secret: "rn-config-key-that-looks-stored", project: "c", models: ["*"] },
];

describe("keyring", () => {
  test("config keys by sha256 (plaintext or sha256: given), also one that starts rn-", () => {
    const ring = createKeyring(configKeys, { keySecret, clock });
    assert.equal(ring.find("sk-plain-secret-0001")?.id, "plain");
    assert.equal(ring.find("sk-hashed-secret-0002")?.id, "hashed");
    assert.equal(ring.find("rn-config-key-that-looks-stored")?.id, "rn-looking");
    assert.equal(ring.find("sk-unknown"), undefined);
    assert.equal(ring.refusal("sk-unknown"), undefined);
  });

  test("a stored key works until it expires, then is refused as expired", () => {
    const secret = newKeySecret();
    const ring = createKeyring([], { keySecret, clock });
    ring.applyStoredKeys([stored("s", secret, { expiresAt: now + 1000 })]);
    assert.deepEqual([...ring.find(secret)!.models!], ["m1"]);
    assert.equal(ring.refusal(secret), undefined);
    now += 1000;
    assert.equal(ring.find(secret), undefined);
    assert.deepEqual(ring.refusal(secret), { reason: "expired", keyId: "s", at: now });
  });

  test("after a rotation the old secret works for its grace period, then says rotated; a later rotation forgets it", () => {
    const [first, second, third] = [newKeySecret(), newKeySecret(), newKeySecret()];
    const ring = createKeyring([], { keySecret, clock });
    ring.applyStoredKeys([stored("r", first)]);
    ring.applyStoredKeys([stored("r", second, { previousHash: keySecret.hash(first), previousValidUntil: now + 60_000 })]);
    assert.equal(ring.find(first)?.id, "r");
    assert.equal(ring.find(second)?.id, "r");
    now += 60_000;
    assert.equal(ring.find(first), undefined);
    assert.equal(ring.refusal(first)?.reason, "rotated");
    assert.equal(ring.find(second)?.id, "r");
    ring.applyStoredKeys([stored("r", third, { previousHash: keySecret.hash(second), previousValidUntil: now })]);
    assert.equal(ring.refusal(first), undefined, "only the last replaced secret is known");
    assert.equal(ring.refusal(second)?.reason, "rotated");
    assert.equal(ring.size, 1);
  });

  test("revocation ends the current and the old secret at once and says revoked; expiry before the grace end says expired", () => {
    const [old, current] = [newKeySecret(), newKeySecret()];
    const ring = createKeyring([], { keySecret, clock });
    const rotated = stored("v", current, { previousHash: keySecret.hash(old), previousValidUntil: now + 60_000, expiresAt: now + 30_000 });
    ring.applyStoredKeys([rotated]);
    now += 30_000;
    assert.equal(ring.refusal(old)?.reason, "expired");
    ring.applyStoredKeys([{ ...rotated, expiresAt: null, revokedAt: now }]);
    for (const secret of [old, current]) {
      assert.equal(ring.find(secret), undefined);
      assert.equal(ring.refusal(secret)?.reason, "revoked");
    }
  });

  test("without the server secret, stored keys are unknown", () => {
    const secret = newKeySecret();
    const ring = createKeyring([], { clock });
    ring.applyStoredKeys([stored("s", secret)]);
    assert.equal(ring.find(secret), undefined);
  });
});

describe("key secrets", () => {
  test("rn- and 43 base64url characters; sealed secrets open only with the same server secret", () => {
    const secret = newKeySecret();
    assert.match(secret, /^rn-[A-Za-z0-9_-]{43}$/);
    const sealed = keySecret.seal(secret);
    assert.ok(!sealed.includes(secret));
    assert.equal(keySecret.unseal(sealed), secret);
    assert.throws(() => keySecretOf("another-server-secret-0123456789ab").unseal(sealed));
    assert.notEqual(keySecret.hash(secret), keySecretOf("another-server-secret-0123456789ab").hash(secret));
  });
});
