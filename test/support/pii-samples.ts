/**
 * Generated samples for every built-in detector: valid ones (check digits computed the way
 * their issuers do) in the formats each detector documents, and invalid ones (a check digit
 * changed, a structure broken) that must not match. Seeded: the same samples on every run.
 */

/** A seeded generator of floats in [0, 1) (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;
const int = (r: Random, n: number) => Math.floor(r() * n);
const pick = <T>(r: Random, list: readonly T[]): T => list[int(r, list.length)]!;
const digits = (r: Random, n: number) => Array.from({ length: n }, () => String(int(r, 10))).join("");
const letters = (r: Random, n: number, from = "ABCDEFGHIJKLMNOPQRSTUVWXYZ") => Array.from({ length: n }, () => pick(r, [...from])).join("");
const pad = (n: number, width: number) => String(n).padStart(width, "0");
const mod = (number: string, m: number) => [...number].reduce((rest, d) => (rest * 10 + Number(d)) % m, 0);
/** `sample` with its last character replaced by a different one of `alphabet`. */
const otherLast = (sample: string, alphabet: string) => sample.slice(0, -1) + [...alphabet].find((c) => c !== sample.at(-1))!;

/** Valid and invalid samples of one detector. */
export interface Samples {
  readonly valid: string[];
  readonly invalid: string[];
}

function luhnDigit(body: string): string {
  let sum = 0;
  for (let i = body.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = Number(body[i]);
    if (double) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

function ibanOf(country: string, bban: string): string {
  const numeric = [...`${bban}${country}00`].map((c) => (/\d/.test(c) ? c : String(c.charCodeAt(0) - 55))).join("");
  return `${country}${pad(98 - mod(numeric, 97), 2)}${bban}`;
}

const groupsOf4 = (text: string) => text.replace(/(.{4})/g, "$1 ").trim();

export function emailSamples(r: Random): Samples {
  const valid = Array.from({ length: 40 }, (_, i) => {
    const local = `${letters(r, 1, "abcdefghij")}${letters(r, 3 + int(r, 8), "abcdefghijklmnopqrstuvwxyz0123456789")}${pick(r, ["", ".", "_", "+tag", "-x"])}${i}`;
    const domain = `${letters(r, 3 + int(r, 6), "abcdefghijklmnopqrstuvwxyz")}${pick(r, ["", "-mail", ".mail"])}`;
    return `${local}@${domain}.${pick(r, ["nl", "de", "com", "eu", "co.uk", "fr", "info"])}`;
  });
  const invalid = ["jan.example.nl", "jan@localhost", "icon@2x.png", "logo@3x.webp", "@example.com", "jan@.com", "jan@example.c", "lodash@4.17.21"];
  return { valid, invalid };
}

export function phoneSamples(r: Random): Samples {
  const valid: string[] = [];
  for (let i = 0; i < 10; i++) {
    valid.push(`+31 6 ${digits(r, 4)} ${digits(r, 4)}`, `+49 30 ${digits(r, 8)}`, `+33 ${1 + int(r, 9)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`);
    valid.push(`0031 20 ${digits(r, 3)} ${digits(r, 4)}`, `+1 (555) ${digits(r, 3)}-${digits(r, 4)}`, `+39 3${digits(r, 2)} ${digits(r, 3)} ${digits(r, 4)}`);
    valid.push(`06-${digits(r, 8)}`, `020 ${digits(r, 3)} ${digits(r, 4)}`, `0${1 + int(r, 5)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`);
    valid.push(`030/${digits(r, 7)}`, `(0171) ${digits(r, 7)}`, `06${digits(r, 8)}`, `0${4 + int(r, 5)}${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`);
    valid.push(`${6 + int(r, 4)}${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`, `${6 + int(r, 4)}${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`, `3${digits(r, 2)} ${digits(r, 3)} ${digits(r, 4)}`);
    valid.push(`+31 (0)6 ${digits(r, 8)}`, `+48 ${digits(r, 3)} ${digits(r, 3)} ${digits(r, 3)}`);
  }
  const invalid = ["06-1234", "01.02.2024", "112", "116 000", `${digits(r, 1)}${digits(r, 8)}`, "+12 34", "0031612345678", "12345 67890 12345", "01.02.2024 12:30", "2024-01-15", "0000 123456"];
  return { valid, invalid };
}

export function ibanSamples(r: Random): Samples {
  const specs: ReadonlyArray<readonly [string, () => string]> = [
    ["NL", () => `${letters(r, 4)}${digits(r, 10)}`],
    ["DE", () => digits(r, 18)],
    ["FR", () => `${digits(r, 10)}${letters(r, 11, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")}${digits(r, 2)}`],
    ["ES", () => digits(r, 20)],
    ["IT", () => `${letters(r, 1)}${digits(r, 10)}${letters(r, 12, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")}`],
    ["BE", () => digits(r, 12)],
    ["AT", () => digits(r, 16)],
    ["PL", () => digits(r, 24)],
    ["IE", () => `${letters(r, 4)}${digits(r, 14)}`],
    ["GB", () => `${letters(r, 4)}${digits(r, 14)}`],
  ];
  const valid: string[] = [];
  const invalid: string[] = [];
  for (let i = 0; i < 6; i++) {
    for (const [country, bban] of specs) {
      const iban = ibanOf(country, bban());
      valid.push(i % 2 === 0 ? iban : groupsOf4(iban));
      // A check digit changed: no longer 1 modulo 97.
      const tampered = `${iban.slice(0, 2)}${pad((Number(iban.slice(2, 4)) + 1 + int(r, 90)) % 100, 2)}${iban.slice(4)}`;
      invalid.push(i % 2 === 0 ? tampered : groupsOf4(tampered));
    }
  }
  invalid.push("XX12ABCD1234567890", "NL91ABNA041716430");
  return { valid, invalid };
}

const CARD_PREFIXES = ["4", "51", "55", "2221", "2720", "34", "37", "6011", "65", "3528", "36", "62"];

export function cardSamples(r: Random): Samples {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (let i = 0; i < 48; i++) {
    const prefix = CARD_PREFIXES[i % CARD_PREFIXES.length]!;
    const length = prefix === "34" || prefix === "37" ? 15 : prefix === "36" ? 14 : 16;
    const body = prefix + digits(r, length - 1 - prefix.length);
    const card = body + luhnDigit(body);
    const written = i % 3 === 0 ? card : i % 3 === 1 ? card.replace(/(\d{4})(?=\d)/g, "$1 ") : card.replace(/(\d{4})(?=\d)/g, "$1-");
    valid.push(written);
    invalid.push(otherLast(written, "0123456789"));
  }
  const unknown = `9${digits(r, 14)}`;
  invalid.push(unknown + luhnDigit(unknown), "4111 1111-1111 1111");
  return { valid, invalid };
}

export function ipSamples(r: Random): Samples {
  const valid: string[] = [];
  for (let i = 0; i < 20; i++) valid.push(`${1 + int(r, 223)}.${int(r, 256)}.${int(r, 256)}.${int(r, 256)}`);
  const hex = () => int(r, 65536).toString(16);
  for (let i = 0; i < 10; i++) valid.push(Array.from({ length: 8 }, hex).join(":"), `2001:db8:${hex()}::${hex()}`, `fe80::${int(r, 9) + 1}a:${hex()}:${hex()}`);
  const invalid = ["256.1.1.1", "1.2.3.4.5", "v1.2.3.4", "10.0.0", "12:30:45", "a::b", "::1", "00:1a:2b:3c:4d:5e", "1.2.3"];
  return { valid, invalid };
}

export function bsnSamples(r: Random): Samples {
  const valid: string[] = [];
  const invalid: string[] = [];
  while (valid.length < 40) {
    const body = `${1 + int(r, 9)}${digits(r, 7)}`;
    const sum = [...body].reduce((s, d, i) => s + (9 - i) * Number(d), 0);
    const check = sum % 11;
    if (check > 9) continue;
    const bsn = body + check;
    const n = valid.length;
    const write = (v: string) => (n % 3 === 0 ? v : n % 3 === 1 ? `${v.slice(0, 3)}.${v.slice(3, 6)}.${v.slice(6)}` : `${v.slice(0, 4)}.${v.slice(4, 6)}.${v.slice(6)}`);
    valid.push(write(bsn));
    invalid.push(write(bsn.slice(0, 8) + String((check + 1 + int(r, 9)) % 10)));
  }
  return { valid, invalid };
}

const DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE";

export function dniSamples(r: Random): Samples {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (let i = 0; i < 20; i++) {
    const number = digits(r, 8);
    const dni = number + DNI_LETTERS[Number(number) % 23];
    valid.push(i % 2 === 0 ? dni : `${number}-${dni.at(-1)}`);
    invalid.push(otherLast(dni, DNI_LETTERS));
    const lead = pick(r, ["X", "Y", "Z"]);
    const seven = digits(r, 7);
    const nie = `${lead}${seven}${DNI_LETTERS[Number(`${"XYZ".indexOf(lead)}${seven}`) % 23]}`;
    valid.push(i % 2 === 0 ? nie : `${lead}-${seven}-${nie.at(-1)}`);
    invalid.push(otherLast(nie, DNI_LETTERS));
  }
  return { valid, invalid };
}

const CF_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];
function cfCheck(body: string): string {
  const value = (c: string) => (/\d/.test(c) ? Number(c) : c.charCodeAt(0) - 65);
  const sum = [...body].reduce((s, c, i) => s + (i % 2 === 0 ? CF_ODD[value(c)]! : value(c)), 0);
  return String.fromCharCode(65 + (sum % 26));
}

export function codiceFiscaleSamples(r: Random): Samples {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (let i = 0; i < 30; i++) {
    const day = 1 + int(r, 31) + (i % 2 === 0 ? 0 : 40);
    let body = `${letters(r, 6)}${digits(r, 2)}${pick(r, [..."ABCDEHLMPRST"])}${pad(day, 2)}${letters(r, 1)}${digits(r, 3)}`;
    // Omocodia: a digit replaced by its letter.
    if (i % 5 === 4) body = body.slice(0, 14) + "LMNPQRSTUV"[Number(body[14])] + body.slice(15);
    const cf = body + cfCheck(body);
    valid.push(i % 7 === 3 ? cf.toLowerCase() : cf);
    invalid.push(otherLast(cf, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"));
  }
  return { valid, invalid };
}

export function nirSamples(r: Random): Samples {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (let i = 0; i < 30; i++) {
    const department = i % 10 === 0 ? "2A" : i % 10 === 1 ? "2B" : pad(1 + int(r, 95), 2);
    const body = `${pick(r, ["1", "2"])}${digits(r, 2)}${pad(1 + int(r, 12), 2)}${department}${digits(r, 3)}${digits(r, 3)}`;
    const numeric = body.replace("2A", "19").replace("2B", "18");
    const key = pad(97 - mod(numeric, 97), 2);
    const nir = body + key;
    const spaced = `${nir[0]} ${nir.slice(1, 3)} ${nir.slice(3, 5)} ${nir.slice(5, 7)} ${nir.slice(7, 10)} ${nir.slice(10, 13)} ${nir.slice(13)}`;
    valid.push(i % 2 === 0 ? nir : spaced);
    const wrong = pad((Number(key) + 1 + int(r, 50)) % 98, 2);
    invalid.push(body + (wrong === key ? pad((Number(key) + 2) % 98, 2) : wrong));
  }
  return { valid, invalid };
}

function steuerCheck(ten: string): string {
  let product = 10;
  for (const c of ten) {
    let sum = (Number(c) + product) % 10;
    if (sum === 0) sum = 10;
    product = (sum * 2) % 11;
  }
  return String((11 - product) % 10);
}

export function steuerIdSamples(r: Random): Samples {
  const valid: string[] = [];
  const invalid: string[] = [];
  while (valid.length < 30) {
    // Nine distinct digits, one of them twice: the rule the issuer follows.
    const pool = [..."0123456789"].sort(() => r() - 0.5).slice(0, 9);
    const ten = [...pool, pool[int(r, 9)]!].sort(() => r() - 0.5).join("");
    if (ten[0] === "0") continue;
    const id = ten + steuerCheck(ten);
    valid.push(valid.length % 2 === 0 ? id : `${id.slice(0, 2)} ${id.slice(2, 5)} ${id.slice(5, 8)} ${id.slice(8)}`);
    invalid.push(otherLast(id, "0123456789"));
  }
  const distinct = "1234567890";
  invalid.push(distinct + steuerCheck(distinct));
  return { valid, invalid };
}

export function belgianSamples(r: Random): Samples {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (let i = 0; i < 30; i++) {
    const after2000 = i % 2 === 1;
    const base = `${pad(int(r, 100), 2)}${pad(1 + int(r, 12), 2)}${pad(1 + int(r, 28), 2)}${pad(1 + int(r, 997), 3)}`;
    const check = pad(97 - mod(after2000 ? `2${base}` : base, 97), 2);
    const number = base + check;
    valid.push(i % 3 === 0 ? number : i % 3 === 1 ? `${number.slice(0, 2)}.${number.slice(2, 4)}.${number.slice(4, 6)}-${number.slice(6, 9)}.${number.slice(9)}` : `${number.slice(0, 6)}-${number.slice(6, 9)}-${number.slice(9)}`);
    invalid.push(`${number.slice(0, 2)}.${number.slice(2, 4)}.${number.slice(4, 6)}-${number.slice(6, 9)}.${pad((Number(check) + 3) % 97 || 1, 2)}`);
  }
  return { valid, invalid };
}

const PESEL_WEIGHTS = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3];

export function peselSamples(r: Random): Samples {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (let i = 0; i < 30; i++) {
    const month = 1 + int(r, 12) + (i % 2 === 0 ? 0 : 20);
    const ten = `${pad(int(r, 100), 2)}${pad(month, 2)}${pad(1 + int(r, 28), 2)}${digits(r, 4)}`;
    const check = (10 - ([...ten].reduce((s, d, k) => s + PESEL_WEIGHTS[k]! * Number(d), 0) % 10)) % 10;
    valid.push(ten + check);
    invalid.push(ten + ((check + 1 + int(r, 9)) % 10));
  }
  return { valid, invalid };
}

const TOKEN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** A generated key body with upper case, lower case and digits. */
const keyBody = (r: Random, n: number, extra = "") => `A${letters(r, n - 3, TOKEN + extra)}b7`;
const b64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

export function credentialSamples(r: Random): Record<string, Samples> {
  const n = Array.from({ length: 10 }, (_, i) => i);
  const pem = (kind: string) => `-----BEGIN ${kind}-----\n${letters(r, 64, TOKEN + "+/")}\n${letters(r, 64, TOKEN + "+/")}\n${letters(r, 20, TOKEN)}==\n-----END ${kind}-----`;
  return {
    openai_key: {
      valid: n.map((i) => `sk-${pick(r, ["", "proj-", "svcacct-", "admin-"])}${keyBody(r, 40 + i, "_-")}`),
      invalid: ["sk-learn", "sk-proj-short1A", "sk-this-is-just-a-long-lowercase-slug", "ask-AbCdEfGhIjKlMnOpQrStUv0123456789"],
    },
    anthropic_key: { valid: n.map(() => `sk-ant-${pick(r, ["api03", "admin01", "oat01"])}-${keyBody(r, 90, "_-")}`), invalid: ["sk-ant-api03-short", "sk-ant-x-AbCdEfGhIjKlMnOpQrStUv0123456789"] },
    aws_access_key: {
      valid: n.map(() => `${pick(r, ["AKIA", "ASIA", "ABIA", "ACCA"])}${letters(r, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}`),
      invalid: ["AKIA1234", "AKIAIOSFODNN7EXAMPLEX", "AKIAiosfodnn7example", "BKIAIOSFODNN7EXAMPLE"],
    },
    github_token: { valid: n.map((i) => (i % 2 === 0 ? `gh${pick(r, [..."pousr"])}_${letters(r, 36, TOKEN)}` : `github_pat_${letters(r, 82, TOKEN + "_")}`)), invalid: ["ghp_short", "ghx_" + letters(r, 36, TOKEN)] },
    google_api_key: { valid: n.map(() => `AIza${letters(r, 35, TOKEN + "_-")}`), invalid: [`AIza${letters(r, 20, TOKEN)}`, `AIzb${letters(r, 35, TOKEN)}`] },
    stripe_key: { valid: n.map(() => `${pick(r, ["sk", "rk"])}_${pick(r, ["live", "test"])}_${letters(r, 24 + int(r, 70), TOKEN)}`), invalid: ["sk_live_short", "pk_live_" + letters(r, 24, TOKEN)] },
    slack_token: { valid: n.map(() => `xox${pick(r, [..."bpaors"])}-${digits(r, 12)}-${letters(r, 24, TOKEN)}`), invalid: ["xoxz-123456789012", "xoxb-short"] },
    private_key: {
      valid: [pem("RSA PRIVATE KEY"), pem("PRIVATE KEY"), pem("EC PRIVATE KEY"), pem("OPENSSH PRIVATE KEY"), pem("ENCRYPTED PRIVATE KEY"), pem("PGP PRIVATE KEY BLOCK")],
      invalid: [pem("PUBLIC KEY"), pem("CERTIFICATE"), "-----BEGIN SOMETHING-----"],
    },
    jwt: {
      valid: n.map((i) => `${b64url(JSON.stringify({ alg: pick(r, ["HS256", "RS256", "ES256"]), typ: "JWT" }))}.${b64url(JSON.stringify({ sub: digits(r, 10), iat: 1700000000 + i }))}.${letters(r, 43, TOKEN + "_-")}`),
      invalid: [`${b64url(JSON.stringify({ foo: 1 }))}.${b64url("{}")}.${letters(r, 43, TOKEN)}`, `${b64url(JSON.stringify({ alg: "HS256" }))}.${b64url("{}")}`, "eyJhbGciOiJIUzI1NiJ9.e30."],
    },
  };
}

/** Every built-in detector's samples, by detector id. */
export function allSamples(seed = 1): Record<string, Samples> {
  const r = seeded(seed);
  return {
    email: emailSamples(r),
    phone: phoneSamples(r),
    iban: ibanSamples(r),
    payment_card: cardSamples(r),
    ip_address: ipSamples(r),
    nl_bsn: bsnSamples(r),
    es_dni: dniSamples(r),
    it_codice_fiscale: codiceFiscaleSamples(r),
    fr_nir: nirSamples(r),
    de_steuer_id: steuerIdSamples(r),
    be_national_number: belgianSamples(r),
    pl_pesel: peselSamples(r),
    ...credentialSamples(r),
  };
}
