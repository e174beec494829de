/**
 * UTF-8 encoding into one buffer reused for every log write (one write is in flight at a
 * time, so the previous write is done with it): no allocation per write.
 */
export function reusedBufferEncoder(): (text: string) => Uint8Array {
  const encoder = new TextEncoder();
  let buffer = new Uint8Array(64 * 1024);
  return (text) => {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    if (buffer.byteLength < text.length * 3) buffer = new Uint8Array(Math.max(buffer.byteLength * 2, text.length * 3));
    return buffer.subarray(0, encoder.encodeInto(text, buffer).written);
  };
}
