import { RelayError } from "../../shared/relay-error.ts";

/** Epoch ms from an ISO time or epoch-ms query value (400 naming `name` otherwise). */
export function timeParam(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (Number.isNaN(ms)) throw new RelayError(400, "invalid_request", `\`${name}\` must be an ISO 8601 time or epoch milliseconds`);
  return ms;
}

/** The page size of a list route: `limit`, an integer from 1 to `max` (default `fallback`). */
export function limitParam(value: string | undefined, fallback: number, max: number): number {
  const limit = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw new RelayError(400, "invalid_request", `\`limit\` must be an integer from 1 to ${max}`);
  return limit;
}
