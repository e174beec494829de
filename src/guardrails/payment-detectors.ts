import { ibanValid, luhnValid } from "./checksums.ts";
import { asciiClass, digitsOf, pendingRun, regexDetector, type Detector } from "./detector.ts";

/** IBAN length by country (the SWIFT IBAN registry; EU/EEA states and their neighbours, and the common others). */
const IBAN_LENGTHS: ReadonlyMap<string, number> = new Map(Object.entries({
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21, CR: 22, CY: 28, CZ: 24,
  DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28,
  HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20,
  LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29,
  RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19, SK: 24, SM: 27, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29, VA: 22,
  VG: 24, XK: 20,
}));

const IBAN_START = /[A-Z]{2}\d{2}(?= ?[A-Z0-9])/g;
const ALNUM = asciiClass(/[A-Z0-9]/);
const ALNUM_ANY_CASE = asciiClass(/[A-Za-z0-9]/);

/**
 * IBANs of the registry's countries with their exact length and valid check digits (ISO 13616,
 * modulo 97), written as one run or in groups separated by single spaces
 * (`NL91 ABNA 0417 1643 00`). Not matched: lower-case IBANs, other separators (`-`, `.`),
 * countries outside the table, and an IBAN running straight into more letters or digits.
 */
export const iban: Detector = {
  id: "iban",
  label: "IBAN",
  priority: 20,
  maxLength: 42,
  find(text, from, out) {
    if (!/\d/.test(text)) return;
    IBAN_START.lastIndex = from;
    for (let m = IBAN_START.exec(text); m !== null; m = IBAN_START.exec(text)) {
      if (m.index > 0 && ALNUM_ANY_CASE(text.charCodeAt(m.index - 1))) continue;
      const length = IBAN_LENGTHS.get(m[0].slice(0, 2));
      const end = length === undefined ? -1 : ibanEnd(text, m.index, length);
      if (end > 0) {
        out.push({ start: m.index, end, detector: iban });
        IBAN_START.lastIndex = end;
      }
    }
  },
  pending: (text) => pendingRun(text, (code) => ALNUM(code) || code === 32, 42),
};

/** The end of a valid IBAN of `length` characters starting at `start` (single spaces between characters allowed), or -1. */
function ibanEnd(text: string, start: number, length: number): number {
  let compact = "";
  let i = start;
  while (compact.length < length && i < text.length) {
    const code = text.charCodeAt(i);
    if (ALNUM(code)) compact += text[i];
    else if (code !== 32 || !ALNUM(text.charCodeAt(i + 1)) || compact.length < 4) return -1;
    i++;
  }
  if (compact.length !== length || ALNUM(text.charCodeAt(i))) return -1;
  return ibanValid(compact) ? i : -1;
}

/** Issuer prefixes of the card networks: Visa, Mastercard, Amex, Discover, Diners, JCB, UnionPay, Maestro. */
const CARD_PREFIX = /^(?:4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|6(?:011|5|4[4-9]|2)|3(?:0[0-5]|[68])|35(?:2[89]|[3-8]\d)|5[06-8]|6[37])/;

/**
 * Payment card numbers: 13–19 digits passing the Luhn check and starting with a known network's
 * prefix, as one run or grouped by single spaces or dashes (`4111 1111 1111 1111`,
 * `3782-822463-10005`). Not matched: numbers failing Luhn, other prefixes, mixed separators,
 * numbers inside longer runs of digits.
 */
export const paymentCard: Detector = regexDetector({
  id: "payment_card",
  label: "CARD",
  priority: 25,
  maxLength: 23,
  hint: /\d/,
  notAfter: asciiClass(/[\w.,\-]/),
  pattern: /\d(?:[ \-]?\d){12,18}(?![\w]|[.,]\d)/g,
  chars: asciiClass(/[0-9 \-]/),
  accept(_text, start, candidate) {
    if (new Set(candidate.replace(/\d/g, "")).size > 1) return -1;
    const digits = digitsOf(candidate);
    return luhnValid(digits) && CARD_PREFIX.test(digits) ? start + candidate.length : -1;
  },
});
