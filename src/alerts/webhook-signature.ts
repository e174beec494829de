import { createHmac } from "node:crypto";

/** The header carrying a delivery's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = "renio-signature";
/** The header carrying the event id (the same on every attempt: receivers deduplicate by it). */
export const EVENT_ID_HEADER = "renio-event-id";

/**
 * The signature header value of `body` sent at `unixSeconds`: HMAC-SHA256 with the webhook's
 * secret over the timestamp, a dot and the exact body bytes (Stripe's scheme), so a receiver
 * can check both who sent it and that it is recent (docs/observability.md shows how).
 */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}
