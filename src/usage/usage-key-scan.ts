const QUOTE = 0x22;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const LETTER_U = 0x75;
const LETTER_S = 0x73;
const LETTER_A = 0x61;
const LETTER_G = 0x67;
const LETTER_E = 0x65;
const LETTER_N = 0x6e;

/**
 * Finds the next `"usage"` key with a non-null value in `bytes` from `from`: the bytes
 * `"usage"`, optional spaces or tabs, `:`, optional spaces or tabs, then a byte other than `n`.
 * Returns the index of that value byte, or `bytes.length` when there is none. Uses the native
 * `indexOf` to jump between `g` bytes, so it is linear and mostly runs outside JavaScript.
 * `"usage":null` (sent on every OpenAI chunk when usage was requested) does not count.
 */
export function findUsageValue(bytes: Uint8Array, from: number): number {
  const n = bytes.length;
  let g = bytes.indexOf(LETTER_G, from + 4);
  while (g !== -1) {
    if (
      bytes[g + 1] === LETTER_E &&
      bytes[g + 2] === QUOTE &&
      bytes[g - 1] === LETTER_A &&
      bytes[g - 2] === LETTER_S &&
      bytes[g - 3] === LETTER_U &&
      bytes[g - 4] === QUOTE
    ) {
      let k = g + 3;
      while (bytes[k] === SPACE || bytes[k] === TAB) k++;
      if (bytes[k] === COLON) {
        k++;
        while (bytes[k] === SPACE || bytes[k] === TAB) k++;
        if (k < n && bytes[k] !== LETTER_N) return k;
      }
    }
    g = bytes.indexOf(LETTER_G, g + 1);
  }
  return n;
}
