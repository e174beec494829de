import { concatArrays } from "../shared/array-concat.ts";
import { RelayError } from "../shared/relay-error.ts";

/** Reads a request body, refusing it (413) once it exceeds `maxBytes`. */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (request.body === null) return new Uint8Array(0);
  if (declared !== null) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return bytes;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return concatArrays(chunks, (length) => new Uint8Array(length));
}

function tooLarge(maxBytes: number): RelayError {
  return new RelayError(413, "request_too_large", `Request body exceeds the limit of ${maxBytes} bytes`);
}
