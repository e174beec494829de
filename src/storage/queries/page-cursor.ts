import { RelayError } from "../../shared/relay-error.ts";

/**
 * The cursor of a newest-first page ordered by (time, id): `<epoch ms>.<id>` of the page's last
 * row. Used by the journal and the audit listings.
 */
export function encodePageCursor(at: number, id: string): string {
  return `${at}.${id}`;
}

/** Parses a cursor made by encodePageCursor; anything else is the caller's error (400), never the first page. */
export function decodePageCursor(cursor: string): { at: number; id: string } {
  const match = /^(\d{1,16})\.(.+)$/s.exec(cursor);
  const at = Number(match?.[1]);
  if (match === null || !Number.isSafeInteger(at)) {
    throw new RelayError(400, "invalid_request", "`cursor` is not valid: pass the `next_cursor` of the previous page unchanged");
  }
  return { at, id: match[2]! };
}
