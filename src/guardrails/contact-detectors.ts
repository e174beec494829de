import { asciiClass, digitsOf, pendingRun, regexDetector, type Detector } from "./detector.ts";

const ALNUM = asciiClass(/[A-Za-z0-9]/);
const LOCAL = asciiClass(/[A-Za-z0-9._%+\-]/);
const ADDRESS = asciiClass(/[A-Za-z0-9._%+\-@]/);
/** An address from its first character (sticky). */
const ADDRESS_AT = /[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9\-@])/y;

/** Image names such as `icon@2x.png` look like addresses: these endings are not top-level domains here. */
const FILE_ENDINGS = new Set(["png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "avif"]);

/**
 * Email addresses: a local part of up to 64 characters (letters, digits, `. _ % + -`), `@`, one
 * to eight domain labels and a top-level domain of 2–24 letters; 254 characters at most.
 * Not matched: quoted local parts, IP-literal domains (`a@[10.0.0.1]`), domains without a dot
 * (`user@localhost`), internationalised (non-ASCII) addresses, and image names like `logo@2x.png`.
 */
export const email: Detector = {
  id: "email",
  label: "EMAIL",
  priority: 30,
  maxLength: 254,
  // Found from each `@`: back over the local part, then the address read forward from its start.
  find(text, from, out) {
    for (let at = text.indexOf("@", from); at >= 0; at = text.indexOf("@", at + 1)) {
      let start = at;
      while (start > 0 && at - start < 64 && LOCAL(text.charCodeAt(start - 1))) start--;
      // The local part begins with a letter or digit, after nothing an address can hold.
      while (start < at && !ALNUM(text.charCodeAt(start))) start++;
      if (start === at || start < from || (start > 0 && ADDRESS(text.charCodeAt(start - 1)))) continue;
      ADDRESS_AT.lastIndex = start;
      const m = ADDRESS_AT.exec(text);
      if (m === null || m[0].length > 254 || FILE_ENDINGS.has(m[0].slice(m[0].lastIndexOf(".") + 1).toLowerCase())) continue;
      out.push({ start, end: start + m[0].length, detector: email });
      at = start + m[0].length - 1;
    }
  },
  pending: (text) => pendingRun(text, ADDRESS, 254),
};

/**
 * Phone numbers. International: `+` or `00` (then with a separator somewhere), a country code
 * and in all 8–15 digits, grouped by spaces, `-`, `.`, `/` or parentheses, with an optional
 * `(0)`. National formats of EU states: a trunk `0` and 9–11 digits in all (`06-12345678`,
 * `020 123 4567`, `01 23 45 67 89`, `030/1234567`, `(0171) 1234567`, `0612345678`) written with
 * one kind of separator; and the nine-digit plans without a trunk prefix when grouped by spaces
 * (`612 345 678`, `612 34 56 78`, `347 123 4567`). Not matched: national numbers without a
 * trunk `0` written as one run of digits (`612345678`: too many ordinary numbers look like
 * that), numbers inside longer runs of digits, and short service numbers (`112`, `116 000`).
 */
export const phone: Detector = regexDetector({
  id: "phone",
  label: "PHONE",
  priority: 60,
  maxLength: 32,
  hint: /\d/,
  notAfter: asciiClass(/[\w+@.\/\-]/),
  pattern: /(?:(?:\+|00)[1-9]\d{0,2}(?:[ .\-\/]?(?:\(0\)|\(\d{1,4}\)|\d)){5,14}|(?:\(0[1-9]\d{0,4}\)|0[1-9]\d{0,4})(?:[ .\-\/]?\d){4,10}|[2-9]\d{2} \d{3} \d{3,4}|[6-9]\d{2} \d{2} \d{2} \d{2})(?![\w@]|[.\-\/]?\d)/g,
  chars: asciiClass(/[0-9 +().\-\/]/),
  accept(_text, start, candidate) {
    const end = start + candidate.length;
    const international = candidate[0] === "+" || candidate.startsWith("00");
    if (international) {
      const digits = digitsOf(candidate.replace("(0)", "")).length - (candidate[0] === "+" ? 0 : 2);
      if (candidate.startsWith("00") && !/[ .\-\/(]/.test(candidate)) return -1;
      return digits >= 8 && digits <= 15 ? end : -1;
    }
    const digits = digitsOf(candidate).length;
    if (candidate[0] === "0" || candidate.startsWith("(0")) {
      // One kind of separator: a date and a time (`01.02.2024 12:30`) mix them.
      const separators = new Set(candidate.replace(/[\d()]/g, ""));
      if (digits < 9 || digits > 11 || separators.size > 1) return -1;
      return end;
    }
    return digits === 9 || digits === 10 ? end : -1;
  },
});

const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = new RegExp(`${OCTET}(?:\\.${OCTET}){3}(?![\\w]|\\.\\d)`, "g");
const IPV6_CANDIDATE = /(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])/g;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/** Whether `text` is an IPv6 address with at least three groups written (so `a::b` and times like `12:30:45` are not). */
function ipv6Valid(text: string): boolean {
  const halves = text.split("::");
  if (halves.length > 2) return false;
  const groups = halves.flatMap((half) => (half === "" ? [] : half.split(":")));
  if (!groups.every((group) => HEX_GROUP.test(group))) return false;
  if (halves.length === 1) return groups.length === 8;
  return groups.length >= 3 && groups.length <= 7 && groups.some((group) => /\d/.test(group));
}

/** IPv4 and IPv6 addresses, found separately and reported as one detector. */
const ipv4 = regexDetector({ id: "ip_address", label: "IP_ADDRESS", priority: 50, maxLength: 15, hint: /\d\./, notAfter: asciiClass(/[\w.]/), pattern: IPV4, chars: asciiClass(/[0-9.]/) });
const ipv6 = regexDetector({
  id: "ip_address",
  label: "IP_ADDRESS",
  priority: 50,
  maxLength: 39,
  hint: /:[0-9A-Fa-f]*:/,
  notAfter: asciiClass(/[\w:.]/),
  pattern: IPV6_CANDIDATE,
  chars: asciiClass(/[0-9A-Fa-f:]/),
  accept: (_text, start, candidate) => (ipv6Valid(candidate) ? start + candidate.length : -1),
});

/**
 * IP addresses. IPv4: four decimal octets 0–255 (`192.0.2.1`, private and loopback ones too),
 * not inside a longer dotted run (`1.2.3.4.5`) or a word (`v1.2.3.4`). IPv6: eight groups, or
 * `::` with at least three groups written and a digit among them (`2001:db8::1`). Not matched:
 * IPv4 with leading zeros (`010.0.0.1`), zone ids (`%eth0`), CIDR suffixes (the address alone
 * is matched), `::1` and other very short compressed forms, and MAC addresses.
 */
export const ipAddress: Detector = {
  id: "ip_address",
  label: "IP_ADDRESS",
  priority: 50,
  maxLength: 39,
  find(text, from, out) {
    const found: typeof out = [];
    ipv4.find(text, from, found);
    ipv6.find(text, from, found);
    found.sort((a, b) => a.start - b.start);
    for (const match of found) out.push({ ...match, detector: ipAddress });
  },
  pending: (text) => Math.min(ipv4.pending(text), ipv6.pending(text)),
};
