import type { Usage } from "../shared/usage.ts";

/** One stored answer: the bytes the client got, chunk by chunk (a JSON answer is one chunk). */
export interface CacheEntry {
  /** Epoch ms it was stored. */
  readonly storedAt: number;
  readonly contentType: string;
  /** The provider's final usage of the original call. */
  readonly usage: Usage;
  /** What the original call cost (null without a price): what a hit saves. */
  readonly cost: number | null;
  readonly chunks: readonly Uint8Array[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The entry as bytes: a JSON header line (chunk lengths included), then the chunks back to back. */
export function encodeEntry(entry: CacheEntry): Uint8Array {
  const header = encoder.encode(`${JSON.stringify({ v: 1, storedAt: entry.storedAt, contentType: entry.contentType, usage: entry.usage, cost: entry.cost, lengths: entry.chunks.map((chunk) => chunk.byteLength) })}\n`);
  const out = new Uint8Array(header.byteLength + entry.chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  out.set(header, 0);
  let at = header.byteLength;
  for (const chunk of entry.chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** The entry stored as `bytes`; undefined when they are not one (another version's, or damaged): a miss. */
export function decodeEntry(bytes: Uint8Array): CacheEntry | undefined {
  const newline = bytes.indexOf(10);
  if (newline < 0) return undefined;
  try {
    const header = JSON.parse(decoder.decode(bytes.subarray(0, newline))) as { v: number; storedAt: number; contentType: string; usage: Usage; cost: number | null; lengths: number[] };
    if (header.v !== 1 || !Array.isArray(header.lengths)) return undefined;
    const chunks: Uint8Array[] = [];
    let at = newline + 1;
    for (const length of header.lengths) {
      chunks.push(bytes.slice(at, at + length));
      at += length;
    }
    if (at !== bytes.byteLength) return undefined;
    return { storedAt: header.storedAt, contentType: header.contentType, usage: header.usage, cost: header.cost, chunks };
  } catch {
    return undefined;
  }
}

/** The entry's answer replayed: the same status, type and chunk boundaries (a stream as SSE, its usage chunk included). */
export function replayResponse(entry: CacheEntry, headers: Record<string, string>): Response {
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = entry.chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
  return new Response(body, { status: 200, headers: { ...headers, "content-type": entry.contentType } });
}
