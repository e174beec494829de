import { ADMISSION_GROUP_SIZE_METRIC } from "../http/metrics-page.ts";

/** The metric counting a relay's journal writes (its admission group commits: one durable write each with `fsync`). */
const WRITES_METRIC = `${ADMISSION_GROUP_SIZE_METRIC}_count`;

/**
 * The journal writes a relay made so far, from its `/metrics` (Prometheus text) read with
 * `token`; undefined when it has no journal (no such metric) or cannot be read.
 */
export async function readJournalWrites(baseUrl: string, token: string): Promise<number | undefined> {
  try {
    const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) return undefined;
    return journalWritesIn(await response.text());
  } catch {
    return undefined;
  }
}

/** The sum of the journal-write counter's samples in a Prometheus text page; undefined when it has none. */
export function journalWritesIn(page: string): number | undefined {
  let total: number | undefined;
  for (const line of page.split("\n")) {
    if (!line.startsWith(WRITES_METRIC)) continue;
    const rest = line.slice(WRITES_METRIC.length);
    // The metric itself (with or without labels), not a longer name sharing its start.
    if (rest[0] !== " " && rest[0] !== "{") continue;
    const value = Number(rest.slice(rest.lastIndexOf(" ") + 1));
    if (Number.isFinite(value)) total = (total ?? 0) + value;
  }
  return total;
}
