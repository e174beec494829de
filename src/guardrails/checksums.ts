/**
 * The check-digit rules of the identifiers the detectors validate. Each takes the identifier's
 * characters without separators and says whether its check digit (or letter) is right.
 */

/** The Luhn rule (payment cards). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** `number` (a string of digits of any length) modulo `m`, without overflow. */
export function modOfDigits(number: string, m: number): number {
  let rest = 0;
  for (let i = 0; i < number.length; i++) rest = (rest * 10 + (number.charCodeAt(i) - 48)) % m;
  return rest;
}

/** ISO 13616: the IBAN moved (country and check digits to the end), letters as 10–35, modulo 97 is 1. */
export function ibanValid(iban: string): boolean {
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (let i = 0; i < moved.length; i++) {
    const code = moved.charCodeAt(i);
    if (code >= 48 && code <= 57) rest = (rest * 10 + code - 48) % 97;
    else if (code >= 65 && code <= 90) rest = (rest * 100 + code - 55) % 97;
    else return false;
  }
  return rest === 1;
}

/** Dutch BSN: the "11-proef", weights 9…2 and −1 on the last digit, sum divisible by 11 (and not zero). */
export function bsnValid(digits: string): boolean {
  if (digits.length !== 9) return false;
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += (9 - i) * (digits.charCodeAt(i) - 48);
  sum -= digits.charCodeAt(8) - 48;
  return sum > 0 && sum % 11 === 0;
}

const DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE";

/** Spanish DNI (8 digits and a letter) or NIE (X, Y or Z, 7 digits and a letter): the letter is the number modulo 23. */
export function dniValid(id: string): boolean {
  const lead = "XYZ".indexOf(id[0]!);
  const number = lead >= 0 ? `${lead}${id.slice(1, 8)}` : id.slice(0, 8);
  return DNI_LETTERS[modOfDigits(number, 23)] === id[id.length - 1];
}

/** Values of the characters in odd positions (1st, 3rd, …) of a codice fiscale, digits and letters. */
const CF_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];

/** Italian codice fiscale: the 16th letter is the sum of the first 15 characters' odd/even values modulo 26. */
export function codiceFiscaleValid(cf: string): boolean {
  if (cf.length !== 16) return false;
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    const code = cf.charCodeAt(i);
    const index = code >= 48 && code <= 57 ? code - 48 : code - 65;
    sum += i % 2 === 0 ? CF_ODD[index]! : index;
  }
  return String.fromCharCode(65 + (sum % 26)) === cf[15];
}

/** French NIR: key = 97 − (the 13 first digits modulo 97); Corsica's 2A and 2B count as 19 and 18. */
export function nirValid(nir: string): boolean {
  if (nir.length !== 15) return false;
  const body = nir.slice(0, 13).replace("2A", "19").replace("2B", "18");
  if (!/^\d{13}$/.test(body)) return false;
  return 97 - modOfDigits(body, 97) === Number(nir.slice(13));
}

/** German Steuer-ID: ISO 7064 MOD 11,10 check digit, and in the first ten digits one digit twice or three times (not three in a row), the others at most once. */
export function steuerIdValid(digits: string): boolean {
  if (digits.length !== 11 || digits[0] === "0") return false;
  const counts = new Array<number>(10).fill(0);
  for (let i = 0; i < 10; i++) counts[digits.charCodeAt(i) - 48]!++;
  const repeated = counts.filter((count) => count > 1);
  if (repeated.length !== 1 || repeated[0]! > 3) return false;
  if (repeated[0] === 3 && /(\d)\1\1/.test(digits.slice(0, 10))) return false;
  let product = 10;
  for (let i = 0; i < 10; i++) {
    let sum = (digits.charCodeAt(i) - 48 + product) % 10;
    if (sum === 0) sum = 10;
    product = (sum * 2) % 11;
  }
  const check = (11 - product) % 10;
  return check === digits.charCodeAt(10) - 48;
}

/** Belgian national number: 97 − (the first nine digits modulo 97), with a 2 in front for people born from 2000. */
export function belgianNumberValid(digits: string): boolean {
  if (digits.length !== 11) return false;
  const check = Number(digits.slice(9));
  const base = digits.slice(0, 9);
  return 97 - modOfDigits(base, 97) === check || 97 - modOfDigits(`2${base}`, 97) === check;
}

const PESEL_WEIGHTS = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3];

/** Polish PESEL: weights 1 3 7 9 …, check digit (10 − sum mod 10) mod 10. */
export function peselValid(digits: string): boolean {
  if (digits.length !== 11) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += PESEL_WEIGHTS[i]! * (digits.charCodeAt(i) - 48);
  return (10 - (sum % 10)) % 10 === digits.charCodeAt(10) - 48;
}
