import type { Config } from "../config/config-schema.ts";

const decoder = new TextDecoder();

/**
 * What the journal keeps of a request or response body: none, or its first `bodyMaxBytes` as
 * text. Bytes that are not UTF-8 become U+FFFD, and so does a raw NUL (a provider's malformed
 * answer may hold one; PostgreSQL text cannot).
 */
export function storedBody(journal: Config["journal"], bytes: Uint8Array): string | null {
  if (journal.bodies === "none") return null;
  const text = decoder.decode(bytes.subarray(0, journal.bodyMaxBytes));
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\ufffd") : text;
}
