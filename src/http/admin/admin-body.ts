import type { Context } from "hono";
import { readBody } from "../../relay/read-body.ts";
import { ADMIN_BODY_MAX_BYTES } from "../../shared/input-text.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { HttpEnv } from "../app.ts";

const strictDecoder = new TextDecoder("utf-8", { fatal: true });
/** An admin body that stalls is refused after this long without a byte (408). */
const ADMIN_BODY_IDLE_MS = 10_000;

/**
 * The JSON body of an admin request: at most ADMIN_BODY_MAX_BYTES (413 `request_too_large`
 * beyond), UTF-8 JSON (400 `invalid_json` otherwise); `empty` when the body is empty and that is
 * allowed. Its fields are then checked by the route's schema.
 */
export async function adminJsonBody(c: Context<HttpEnv>, empty?: unknown): Promise<unknown> {
  const bytes = await readBody(c.req.raw, { maxBytes: ADMIN_BODY_MAX_BYTES, timeoutMs: ADMIN_BODY_IDLE_MS });
  let text: string;
  try {
    text = strictDecoder.decode(bytes);
  } catch {
    throw new RelayError(400, "invalid_json", "The request body is not valid UTF-8 JSON");
  }
  if (text.trim() === "" && empty !== undefined) return empty;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RelayError(400, "invalid_json", "The request body is not valid JSON");
  }
}
