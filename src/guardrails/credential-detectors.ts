import { asciiClass, regexDetector, type Detector, type Match } from "./detector.ts";
import { TEXT_SEPARATOR } from "./text-scan.ts";

const TOKEN_CHARS = asciiClass(/[A-Za-z0-9_\-]/);
/** At least one upper-case letter, one lower-case letter and one digit: generated keys have all three, words and slugs rarely. */
const MIXED = /^(?=.*[A-Z])(?=.*[a-z])(?=.*\d)/;
const mixedAfter = (prefix: number) => (_text: string, start: number, candidate: string) => (MIXED.test(candidate.slice(prefix)) ? start + candidate.length : -1);

/**
 * OpenAI API keys: `sk-`, `sk-proj-`, `sk-svcacct-` or `sk-admin-` and at least 20 characters of
 * letters, digits, `_` and `-` with upper case, lower case and digits among them. Not matched:
 * `sk-ant-…` (Anthropic's detector), short or all-lower-case `sk-…` names (`sk-learn`).
 */
export const openAiKey: Detector = regexDetector({
  id: "openai_key",
  label: "OPENAI_KEY",
  priority: 10,
  maxLength: 220,
  hint: /sk-/,
  notAfter: asciiClass(/[A-Za-z0-9_\-]/),
  pattern: /sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,200}(?![A-Za-z0-9_\-])/g,
  chars: TOKEN_CHARS,
  accept: mixedAfter(3),
});

/** Anthropic API keys: `sk-ant-`, a kind and version (`api03`, `admin01`, `oat01`) and at least 20 more characters. */
export const anthropicKey: Detector = regexDetector({
  id: "anthropic_key",
  label: "ANTHROPIC_KEY",
  priority: 10,
  maxLength: 220,
  hint: /sk-ant-/,
  notAfter: asciiClass(/[A-Za-z0-9_\-]/),
  pattern: /sk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_\-]{20,200}(?![A-Za-z0-9_\-])/g,
  chars: TOKEN_CHARS,
});

/**
 * AWS access key ids: `AKIA` (long-term), `ASIA` (temporary), `ABIA`, `ACCA` and 16 upper-case
 * letters or digits. Not matched: secret access keys (40 characters with no prefix: without
 * context they cannot be told from other base64 text).
 */
export const awsAccessKey: Detector = regexDetector({
  id: "aws_access_key",
  label: "AWS_ACCESS_KEY",
  priority: 10,
  maxLength: 20,
  hint: /A[SKBC][IC]A/,
  notAfter: asciiClass(/[A-Za-z0-9]/),
  pattern: /(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  chars: asciiClass(/[A-Z0-9]/),
});

/** GitHub tokens: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and 36 or more letters and digits; fine-grained `github_pat_…`. */
export const githubToken: Detector = regexDetector({
  id: "github_token",
  label: "GITHUB_TOKEN",
  priority: 10,
  maxLength: 255,
  hint: /gh[pousr]_|github_pat_/,
  notAfter: asciiClass(/[A-Za-z0-9_]/),
  pattern: /(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244})(?![A-Za-z0-9_])/g,
  chars: asciiClass(/[A-Za-z0-9_]/),
});

/** Google API keys: `AIza` and 35 letters, digits, `_` or `-`. */
export const googleApiKey: Detector = regexDetector({
  id: "google_api_key",
  label: "GOOGLE_API_KEY",
  priority: 10,
  maxLength: 39,
  hint: /AIza/,
  notAfter: asciiClass(/[A-Za-z0-9_\-]/),
  pattern: /AIza[A-Za-z0-9_\-]{35}(?![A-Za-z0-9_\-])/g,
  chars: TOKEN_CHARS,
});

/** Stripe secret and restricted keys, live and test: `sk_live_`, `rk_live_`, `sk_test_`, `rk_test_` and 24 or more letters and digits. */
export const stripeKey: Detector = regexDetector({
  id: "stripe_key",
  label: "STRIPE_KEY",
  priority: 10,
  maxLength: 255,
  hint: /k_(?:live|test)_/,
  notAfter: asciiClass(/[A-Za-z0-9_]/),
  pattern: /[sr]k_(?:live|test)_[A-Za-z0-9]{24,247}(?![A-Za-z0-9_])/g,
  chars: asciiClass(/[A-Za-z0-9_]/),
});

/** Slack tokens: `xoxb-`, `xoxp-`, `xoxa-`, `xoxo-`, `xoxs-`, `xoxr-` and at least 10 more letters, digits and dashes. */
export const slackToken: Detector = regexDetector({
  id: "slack_token",
  label: "SLACK_TOKEN",
  priority: 10,
  maxLength: 255,
  hint: /xox/,
  notAfter: asciiClass(/[A-Za-z0-9_\-]/),
  pattern: /xox[abposr]-[A-Za-z0-9\-]{10,250}(?![A-Za-z0-9_\-])/g,
  chars: TOKEN_CHARS,
});

/** Whether the base64url text decodes to a JSON object with an `alg` (a JWT header). */
function jwtHeader(encoded: string): boolean {
  try {
    const json = atob(encoded.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(encoded.length / 4) * 4, "="));
    const header: unknown = JSON.parse(json);
    return typeof header === "object" && header !== null && typeof (header as { alg?: unknown }).alg === "string";
  } catch {
    return false;
  }
}

/**
 * JSON Web Tokens: three base64url parts, the first a JSON header with `alg` (so it starts
 * `eyJ`), the signature at least 16 characters; 4,096 characters at most. Not matched: unsigned
 * tokens (`alg: none` with an empty signature), encrypted JWE (five parts), longer tokens.
 */
export const jwt: Detector = regexDetector({
  id: "jwt",
  label: "JWT",
  priority: 12,
  maxLength: 4096,
  hint: /eyJ/,
  notAfter: asciiClass(/[A-Za-z0-9_\-.]/),
  pattern: /eyJ[A-Za-z0-9_\-]{5,1000}\.[A-Za-z0-9_\-]{8,2500}\.[A-Za-z0-9_\-]{16,1000}(?![A-Za-z0-9_\-]|\.[A-Za-z0-9_\-])/g,
  chars: asciiClass(/[A-Za-z0-9_\-.]/),
  accept: (_text, start, candidate) => (jwtHeader(candidate.slice(0, candidate.indexOf("."))) ? start + candidate.length : -1),
});

const KEY_BEGIN = /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const KEY_END = /-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/y;
/** The base64 body of a key whose END line is missing (line breaks real or escaped as `\\n`). */
const KEY_BODY = /[A-Za-z0-9+\/=\r\n\\]*/y;
const MAX_KEY = 16_384;
const MARKER_CHARS = asciiClass(/[A-Z0-9 \-]/);

/**
 * Private key blocks: PEM `-----BEGIN … PRIVATE KEY-----` (PKCS#1/#8, EC, OpenSSH, encrypted)
 * and PGP `-----BEGIN PGP PRIVATE KEY BLOCK-----`, up to their END line; a block whose END line
 * is missing (a key cut off) is matched from BEGIN to the end of its base64. At most 16 KiB.
 * Not matched: public keys and certificates, keys in other encodings (DER, JWK).
 */
export const privateKey: Detector = {
  id: "private_key",
  label: "PRIVATE_KEY",
  priority: 5,
  maxLength: MAX_KEY,
  find(text, from, out) {
    if (!text.includes("-----BEGIN ")) return;
    KEY_BEGIN.lastIndex = from;
    for (let m = KEY_BEGIN.exec(text); m !== null; m = KEY_BEGIN.exec(text)) {
      const end = keyEnd(text, m.index + m[0].length, m.index);
      out.push({ start: m.index, end, detector: privateKey } satisfies Match);
      KEY_BEGIN.lastIndex = end;
    }
  },
  pending(text) {
    // A BEGIN line whose block is not complete yet holds everything from it.
    KEY_BEGIN.lastIndex = Math.max(0, text.length - MAX_KEY);
    for (let m = KEY_BEGIN.exec(text); m !== null; m = KEY_BEGIN.exec(text)) {
      const end = keyEnd(text, m.index + m[0].length, m.index);
      if (end >= text.length) return m.index;
      KEY_BEGIN.lastIndex = end;
    }
    // Else a BEGIN line may be arriving: the trailing run of its characters.
    let i = text.length;
    const stop = Math.max(0, text.length - 64);
    while (i > stop && MARKER_CHARS(text.charCodeAt(i - 1))) i--;
    return i;
  },
};

/** The end of a key block whose BEGIN line ends at `from`: after its END line, or (no END line within reach) after its base64. */
function keyEnd(text: string, from: number, start: number): number {
  // A block never reaches into the next of several texts scanned together.
  const next = text.indexOf(TEXT_SEPARATOR, from);
  const limit = Math.min(next < 0 ? text.length : next, start + MAX_KEY);
  const close = text.indexOf("-----END ", from);
  if (close >= 0 && close < limit) {
    KEY_END.lastIndex = close;
    const m = KEY_END.exec(text);
    if (m !== null && close + m[0].length <= limit) return close + m[0].length;
  }
  KEY_BODY.lastIndex = from;
  KEY_BODY.exec(text);
  return Math.min(KEY_BODY.lastIndex, limit);
}
