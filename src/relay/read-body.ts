import { concatArrays } from "../shared/array-concat.ts";
import { RelayError } from "../shared/relay-error.ts";

/** Limits on reading a request body. */
export interface BodyLimits {
  /** Larger bodies are refused (413). */
  readonly maxBytes: number;
  /** A body not fully received within this time is refused (408). */
  readonly timeoutMs: number;
}

/**
 * Reads a request body, refusing it with 413 once it exceeds `maxBytes` and with 408
 * `request_timeout` when it is not fully received within `timeoutMs`. A body the client stops
 * sending (its connection closed or reset) is 499 `client_aborted`.
 */
export async function readBody(request: Request, limits: BodyLimits): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limits.maxBytes) throw tooLarge(limits.maxBytes);
  if (request.body === null) return new Uint8Array(0);
  try {
    return declared !== null ? await readDeclared(request, limits) : await readChunked(request.body, limits);
  } catch (error) {
    if (error instanceof RelayError) throw error;
    throw new RelayError(499, "client_aborted", "The client closed the connection before its request body was received");
  }
}

/** A body with a Content-Length: read whole (the fast path), raced against the time limit. */
async function readDeclared(request: Request, { maxBytes, timeoutMs }: BodyLimits): Promise<Uint8Array<ArrayBuffer>> {
  const reading = request.arrayBuffer();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeout(timeoutMs)), timeoutMs);
  });
  try {
    const bytes = new Uint8Array(await Promise.race([reading, expired]));
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return bytes;
  } finally {
    clearTimeout(timer);
    // After a time-out the read may still fail when the client gives up: nothing waits for it.
    reading.catch(() => {});
  }
}

/** A chunked body: read chunk by chunk, stopped at the size or time limit. */
async function readChunked(body: ReadableStream<Uint8Array>, { maxBytes, timeoutMs }: BodyLimits): Promise<Uint8Array<ArrayBuffer>> {
  const reader = body.getReader();
  let timedOut = false;
  // On time-out the pending read ends (cancelled); the flag tells that from the body's end.
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, timeoutMs);
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (timedOut) throw timeout(timeoutMs);
      if (done) return concatArrays(chunks, (length) => new Uint8Array(length));
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
    clearTimeout(timer);
  }
}

function tooLarge(maxBytes: number): RelayError {
  return new RelayError(413, "request_too_large", `Request body exceeds the limit of ${maxBytes} bytes`);
}

function timeout(timeoutMs: number): RelayError {
  return new RelayError(408, "request_timeout", `The request body was not received within ${timeoutMs} ms`);
}
