import { concatArrays } from "../shared/array-concat.ts";
import { RelayError } from "../shared/relay-error.ts";

/** Limits on reading a request body. */
export interface BodyLimits {
  /** Larger bodies are refused (413). */
  readonly maxBytes: number;
  /** A body that sends no byte for this long (an idle time, not a total deadline) is refused (408). */
  readonly timeoutMs: number;
}

/**
 * Reads a request body, refusing it with 413 once it exceeds `maxBytes` and with 408
 * `request_timeout` when no byte of it arrives for `timeoutMs` (a slow but steady upload is never
 * cut). A body the client stops sending (its connection closed or reset) is 499 `client_aborted`.
 */
export async function readBody(request: Request, limits: BodyLimits): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limits.maxBytes) throw tooLarge(limits.maxBytes);
  if (request.body === null) return new Uint8Array(0);
  try {
    return await readStream(request.body, limits);
  } catch (error) {
    if (error instanceof RelayError) throw error;
    throw new RelayError(499, "client_aborted", "The client closed the connection before its request body was received");
  }
}

/** Reads chunk by chunk, stopped at the size limit or once the body has been idle for `timeoutMs`. */
async function readStream(body: ReadableStream<Uint8Array>, { maxBytes, timeoutMs }: BodyLimits): Promise<Uint8Array<ArrayBuffer>> {
  const reader = body.getReader();
  let timedOut = false;
  let lastByteAt = performance.now();
  // One timer for the whole read: a chunk only records its time; when the timer fires early it
  // re-arms for the idle time left. On time-out the pending read ends (cancelled); the flag tells
  // that from the body's end.
  let timer: ReturnType<typeof setTimeout>;
  const watch = (delay: number) => {
    timer = setTimeout(() => {
      const idle = performance.now() - lastByteAt;
      if (idle < timeoutMs) return watch(timeoutMs - idle);
      timedOut = true;
      reader.cancel().catch(() => {});
    }, delay);
  };
  watch(timeoutMs);
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (timedOut) throw timeout(timeoutMs);
      if (done) return concatArrays(chunks, (length) => new Uint8Array(length));
      lastByteAt = performance.now();
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    throw timedOut ? timeout(timeoutMs) : error;
  } finally {
    clearTimeout(timer!);
  }
}

function tooLarge(maxBytes: number): RelayError {
  return new RelayError(413, "request_too_large", `Request body exceeds the limit of ${maxBytes} bytes`);
}

function timeout(timeoutMs: number): RelayError {
  return new RelayError(408, "request_timeout", `The request body stalled: no byte of it arrived for ${timeoutMs} ms`);
}
