import type { Config } from "../config/config-schema.ts";

const decoder = new TextDecoder();

/** What the journal keeps of a request or response body: none, or its first `bodyMaxBytes` as text. */
export function storedBody(journal: Config["journal"], bytes: Uint8Array): string | null {
  return journal.bodies === "none" ? null : decoder.decode(bytes.subarray(0, journal.bodyMaxBytes));
}
