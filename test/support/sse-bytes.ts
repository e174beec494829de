/** Helpers to read raw HTTP bodies and compare SSE streams byte for byte. */

/** One body chunk as the client's reader received it, with its arrival time (performance.now()). */
export interface TimedChunk {
  readonly bytes: Uint8Array;
  readonly at: number;
}

/** Reads a response body to the end, keeping every chunk and when it arrived. */
export async function readChunks(response: Response): Promise<TimedChunk[]> {
  const chunks: TimedChunk[] = [];
  if (response.body === null) return chunks;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push({ bytes: value, at: performance.now() });
  }
}

/** All chunks joined into one byte array. */
export function joinChunks(chunks: readonly TimedChunk[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.bytes.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk.bytes, offset);
    offset += chunk.bytes.byteLength;
  }
  return out;
}

/**
 * Splits raw SSE bytes into events, each kept verbatim with its terminating blank line, so
 * that joining the result gives back the input exactly (any trailing partial event included).
 */
export function sseEvents(bytes: Uint8Array): string[] {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  const events: string[] = [];
  let start = 0;
  for (let end = text.indexOf("\n\n", start); end >= 0; end = text.indexOf("\n\n", start)) {
    events.push(text.slice(start, end + 2));
    start = end + 2;
  }
  if (start < text.length) events.push(text.slice(start));
  return events;
}

/**
 * Replaces the values that differ from call to call in the mock's output (ids and timestamps)
 * by fixed placeholders; every other byte is kept.
 */
export function maskPerCallValues(event: string): string {
  return event.replace(/"(id|item_id)":"[^"]*"/g, '"$1":"<id>"').replace(/"(created|created_at)":\d+/g, '"$1":0');
}

/** Polls `check` (bounded) until it is true; returns whether it became true before `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 3_000, everyMs = 10): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Reads a streamed answer to its end or its cut, a read always waiting, so no byte that arrived
 * is dropped when a cut errors the body (a client stream that errors discards what it holds
 * unread). The text read, and whether the body ended in an error.
 */
export async function readUntilCut(response: Response): Promise<{ text: string; cut: boolean }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, cut: false };
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { text, cut: true };
  }
}
