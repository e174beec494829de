import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes, type KeyObject } from "node:crypto";
import { StoreOpenError } from "../shared/store-open-error.ts";
import type { KeyStore } from "./key-store.ts";

/** Every secret of a stored key starts with this; config keys may be anything. */
export const STORE_KEY_PREFIX = "rn-";
/** Characters of a secret kept for display (`rn-` and 7 of its 43 random characters). */
const DISPLAY_CHARS = 10;

/**
 * The server's key secret: the HMAC key stored keys are hashed under. Keys are 256 random bits,
 * so a slow password hash would add no strength and would cost every call; the HMAC means a
 * copy of the database alone (hashes without the server secret) does not even let one test a
 * guessed secret. Also derives the key that seals replayable rotation answers.
 */
export interface KeySecret {
  /** HMAC-SHA256 hex of a presented secret. */
  hash(secret: string): string;
  /** Encrypts a secret for the idempotency record (AES-256-GCM), base64url. */
  seal(secret: string): string;
  /** Decrypts what {@link seal} made. */
  unseal(sealed: string): string;
}

/** A new stored-key secret: `rn-` and 32 random bytes in base64url. */
export function newKeySecret(): string {
  return STORE_KEY_PREFIX + randomBytes(32).toString("base64url");
}

/** The non-secret beginning of a secret, shown in listings. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_CHARS);
}

/** A {@link KeySecret} over the given server secret. */
export function keySecretOf(serverSecret: string): KeySecret {
  const hmacKey: KeyObject = createSecretKey(Buffer.from(serverSecret, "utf8"));
  const sealKey = createHmac("sha256", hmacKey).update("renio: seal idempotent answers").digest();
  return {
    hash: (secret) => createHmac("sha256", hmacKey).update(secret).digest("hex"),
    seal: (secret) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", sealKey, iv);
      const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
    },
    unseal: (sealed) => {
      const bytes = Buffer.from(sealed, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", sealKey, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
    },
  };
}

/**
 * The server secret of a store: `server.keySecret` when configured, else the one generated
 * once and kept in the store's meta table (so relays sharing a PostgreSQL share it). A check
 * value (an HMAC of a constant) is kept too: a configured secret that differs from the one the
 * store's keys were hashed with stops the start instead of failing every stored key.
 */
export async function resolveKeySecret(store: Pick<KeyStore, "ensureMeta">, configured: string | undefined): Promise<KeySecret> {
  return keySecretOf(await resolveServerSecret(store, configured));
}

/** The server secret behind {@link resolveKeySecret} (for the relay's other event loops, which hash presented keys too). */
export async function resolveServerSecret(store: Pick<KeyStore, "ensureMeta">, configured: string | undefined): Promise<string> {
  const secret = configured ?? (await store.ensureMeta("key_secret", randomBytes(32).toString("base64url")));
  const check = createHmac("sha256", secret).update("renio: key secret check").digest("hex");
  const stored = await store.ensureMeta("key_secret_check", check);
  if (stored !== check) {
    throw new StoreOpenError(
      configured === undefined
        ? "the stored keys were hashed with a configured server.keySecret; set the same server.keySecret on every relay and CLI using this store"
        : "server.keySecret is not the secret this store's keys were hashed with; use the same server.keySecret on every relay and CLI using this store",
    );
  }
  return secret;
}
