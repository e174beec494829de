import { timingSafeEqual } from "node:crypto";
import { RelayError } from "../shared/relay-error.ts";

/**
 * A check that a request carries `Authorization: Bearer <token>` for one of `tokens`
 * (compared in constant time); otherwise it throws 401 `unauthorized` with `message`.
 */
export function requireBearer(tokens: readonly string[], message: string): (headers: Headers) => void {
  const expected = tokens.map((token) => Buffer.from(token));
  return (headers) => {
    const presented = /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "")?.[1];
    const given = Buffer.from(presented ?? "");
    // Every token is compared, so the time does not tell which one came close.
    let ok = false;
    for (const token of expected) ok = (given.length === token.length && timingSafeEqual(given, token)) || ok;
    if (!ok) throw new RelayError(401, "unauthorized", message);
  };
}
