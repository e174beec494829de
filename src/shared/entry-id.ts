import { randomFillSync } from "node:crypto";

const random = new Uint8Array(10);
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/**
 * A time-ordered unique id (UUID version 7): entries written together sit together in
 * indexes, and ids sort by arrival.
 */
export function newEntryId(now = Date.now()): string {
  randomFillSync(random);
  let ms = "";
  for (let shift = 40; shift >= 0; shift -= 8) ms += HEX[Math.floor(now / 2 ** shift) & 0xff];
  const r = random;
  return (
    `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${HEX[r[0]! & 0x0f]!.slice(1)}${HEX[r[1]!]}-` +
    `${HEX[(r[2]! & 0x3f) | 0x80]}${HEX[r[3]!]}-${HEX[r[4]!]}${HEX[r[5]!]}${HEX[r[6]!]}${HEX[r[7]!]}${HEX[r[8]!]}${HEX[r[9]!]}`
  );
}
