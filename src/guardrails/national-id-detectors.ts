import { belgianNumberValid, bsnValid, codiceFiscaleValid, dniValid, nirValid, peselValid, steuerIdValid } from "./checksums.ts";
import { asciiClass, digitsOf, regexDetector, type Detector } from "./detector.ts";

const DIGITS_AND_SEPARATORS = asciiClass(/[0-9 .\-]/);
/** One kind of separator at most (`123.456.782`, not `123.456 782`). */
const oneSeparator = (candidate: string): boolean => new Set(candidate.replace(/[0-9A-Z]/g, "")).size <= 1;

/**
 * Dutch BSN (burgerservicenummer): nine digits passing the 11-proef, as one run or grouped
 * `123.456.782`, `1234.56.782` or with spaces. Not matched: eight-digit numbers written without
 * their leading zero, numbers inside longer runs of letters or digits (hashes, ids). About one in eleven random nine-digit numbers
 * passes the 11-proef, so ordinary nine-digit numbers can match (see the false-positive table).
 */
export const bsn: Detector = regexDetector({
  id: "nl_bsn",
  label: "BSN",
  priority: 45,
  maxLength: 11,
  hint: /\d/,
  notAfter: asciiClass(/[\w.,\-]/),
  pattern: /(?:\d{9}|\d{3}[. ]\d{3}[. ]\d{3}|\d{4}[. ]\d{2}[. ]\d{3})(?![\w]|[.,\-]\d)/g,
  chars: DIGITS_AND_SEPARATORS,
  accept: (_text, start, candidate) => (oneSeparator(candidate) && bsnValid(digitsOf(candidate)) ? start + candidate.length : -1),
});

/**
 * Spanish DNI (eight digits and the check letter, `12345678Z`, `12345678-Z`) and NIE (`X`, `Y`
 * or `Z`, seven digits and the check letter, `X1234567L`, `X-1234567-L`). Not matched: lower-case
 * letters, a wrong check letter, dots between the digits (`12.345.678-Z`).
 */
export const dni: Detector = regexDetector({
  id: "es_dni",
  label: "DNI",
  priority: 40,
  maxLength: 12,
  hint: /\d/,
  notAfter: asciiClass(/[A-Za-z0-9\-]/),
  pattern: /(?:\d{8}|[XYZ]-?\d{7})-?[TRWAGMYFPDXBNJZSQVHLCKE](?![A-Za-z0-9])/g,
  chars: asciiClass(/[0-9A-Z\-]/),
  accept: (_text, start, candidate) => (dniValid(candidate.replaceAll("-", "")) ? start + candidate.length : -1),
});

const OMOCODIA = "[0-9LMNPQRSTUVlmnpqrstuv]";
const CODICE_FISCALE = new RegExp(`^[A-Za-z]{6}${OMOCODIA}{2}[ABCDEHLMPRSTabcdehlmprst]${OMOCODIA}{2}[A-Za-z]${OMOCODIA}{3}[A-Za-z]$`);

/**
 * Italian codice fiscale: sixteen characters (six letters, year, month letter, day, a letter
 * and three digits of the place, the check letter), the digits possibly replaced by the
 * omocodia letters (L M N P Q R S T U V), upper or lower case, with a valid check letter. Not
 * matched: the eleven-digit fiscal codes of companies (partita IVA), codes with spaces inside.
 */
export const codiceFiscale: Detector = regexDetector({
  id: "it_codice_fiscale",
  label: "CODICE_FISCALE",
  priority: 35,
  maxLength: 16,
  hint: /[0-9LMNPQRSTUVlmnpqrstuv]{2}/,
  notAfter: asciiClass(/[A-Za-z0-9]/),
  // Any 16-letter-or-digit word, then its structure: a cheaper search than the structure at every letter.
  pattern: /\b[A-Za-z0-9]{16}\b/g,
  chars: asciiClass(/[A-Za-z0-9]/),
  accept: (_text, start, candidate) => (CODICE_FISCALE.test(candidate) && codiceFiscaleValid(candidate.toUpperCase()) ? start + candidate.length : -1),
});

/**
 * French NIR (numéro de sécurité sociale): sex digit (1, 2, 3, 4, 7, 8), year, month (01–12, or
 * 20–99 where unknown), département (two digits, 2A or 2B), commune, order number and the
 * two-digit key (97 minus the number modulo 97), as one run or with spaces
 * (`1 84 12 76 451 089 46`). Not matched: the 13 digits without their key, other separators.
 */
export const nir: Detector = regexDetector({
  id: "fr_nir",
  label: "NIR",
  priority: 40,
  maxLength: 21,
  hint: /\d/,
  notAfter: asciiClass(/[\dA-Za-z]/),
  pattern: /[1-478] ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}(?![\dA-Za-z])/g,
  chars: asciiClass(/[0-9AB ]/),
  accept: (_text, start, candidate) => (nirValid(candidate.replaceAll(" ", "")) ? start + candidate.length : -1),
});

/**
 * German Steuerliche Identifikationsnummer: eleven digits, the first not 0, one digit repeated
 * (two or three times) in the first ten, and the ISO 7064 MOD 11,10 check digit; as one run or
 * grouped `12 345 678 903`. Not matched: the older Steuernummer (it varies by Land and has no
 * single check rule), numbers inside longer runs.
 */
export const steuerId: Detector = regexDetector({
  id: "de_steuer_id",
  label: "STEUER_ID",
  priority: 46,
  maxLength: 14,
  hint: /\d/,
  notAfter: asciiClass(/[\w.,\-]/),
  pattern: /(?:[1-9]\d{10}|[1-9]\d [0-9]{3} [0-9]{3} [0-9]{3})(?![\w]|[.,\-]\d)/g,
  chars: DIGITS_AND_SEPARATORS,
  accept: (_text, start, candidate) => (steuerIdValid(digitsOf(candidate)) ? start + candidate.length : -1),
});

/** Whether the first six digits can be a Belgian birth date (months +20/+40 for bis numbers; 00 for unknown). */
function belgianDateOk(digits: string): boolean {
  const month = Number(digits.slice(2, 4)) % 20;
  const day = Number(digits.slice(4, 6));
  return month <= 12 && day <= 31;
}

/**
 * Belgian national number (rijksregisternummer / numéro national): birth date YYMMDD, a
 * three-digit serial and a two-digit check (97 minus the number modulo 97, with a 2 in front
 * from 2000), written `85.07.30-033.28`, `850730-033-28` or as one run. Not matched: other
 * groupings, impossible dates.
 */
export const belgianNumber: Detector = regexDetector({
  id: "be_national_number",
  label: "BE_NATIONAL_NUMBER",
  priority: 44,
  maxLength: 15,
  hint: /\d/,
  notAfter: asciiClass(/[\w.,\-]/),
  pattern: /(?:\d{11}|\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}|\d{6}-\d{3}-\d{2})(?![\w]|[.,\-]\d)/g,
  chars: DIGITS_AND_SEPARATORS,
  accept(_text, start, candidate) {
    const digits = digitsOf(candidate);
    return belgianDateOk(digits) && belgianNumberValid(digits) ? start + candidate.length : -1;
  },
});

/** Whether PESEL digits encode a real month (the century in the month: +80 1800s, +0 1900s, +20 2000s, +40, +60) and day. */
function peselDateOk(digits: string): boolean {
  const month = Number(digits.slice(2, 4)) % 20;
  const day = Number(digits.slice(4, 6));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/** Polish PESEL: eleven digits, a valid birth date and the check digit (weights 1 3 7 9). Not matched: other separators, numbers inside longer runs. */
export const pesel: Detector = regexDetector({
  id: "pl_pesel",
  label: "PESEL",
  priority: 43,
  maxLength: 11,
  hint: /\d/,
  notAfter: asciiClass(/[\w.,\-]/),
  pattern: /\d{11}(?![\w]|[.,\-]\d)/g,
  chars: asciiClass(/[0-9]/),
  accept(_text, start, candidate) {
    return peselDateOk(candidate) && peselValid(candidate) ? start + candidate.length : -1;
  },
});
