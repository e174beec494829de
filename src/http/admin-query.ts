import { RelayError } from "../shared/relay-error.ts";

/** Epoch ms from an ISO time or epoch-ms query value of the admin API. */
export function timeParam(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (Number.isNaN(ms)) throw new RelayError(400, "invalid_request", `\`${name}\` must be an ISO 8601 time or epoch milliseconds`);
  return ms;
}
