/** A typed array concatArrays can fill (Uint8Array, Float64Array, …). */
export interface FillableArray {
  readonly length: number;
  set(array: ArrayLike<number>, offset?: number): void;
}

/** Copies `parts` end to end into a new array made by `make(total length)`, and returns it. */
export function concatArrays<T extends FillableArray>(parts: readonly ArrayLike<number>[], make: (length: number) => T): T {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = make(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
