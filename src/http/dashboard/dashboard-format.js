// How the dashboard writes numbers, money, durations, times and scopes: one way each, everywhere.

let currency = "USD";
/** Sets the currency amounts are shown in (the relay's `budget.currency`). */
export const setCurrency = (code) => (currency = code);

export const number = (n) => (n === null || n === undefined ? "—" : Number(n).toLocaleString("en-US"));

/** An amount's exact decimal text from its whole billionths (as Renio keeps it), never rounded as a binary fraction. */
export function exactAmount(n) {
  const nanos = Math.round(Number(n) * 1e9);
  const whole = Math.trunc(Math.abs(nanos) / 1e9);
  const fraction = String(Math.abs(nanos) - whole * 1e9).padStart(9, "0").replace(/0+$/, "");
  return `${nanos < 0 ? "-" : ""}${whole}${fraction === "" ? "" : `.${fraction}`}`;
}

/**
 * Money: thousands grouped, always 4 decimals, then the currency (`1,234.5000 USD`); a non-zero
 * amount under 0.0001 reads `< 0.0001 USD` rather than zero. {@link exactAmount} gives the exact value.
 */
export function money(n) {
  if (n === null || n === undefined) return "—";
  const value = Number(n);
  if (value !== 0 && Math.abs(value) < 0.00005) return `${value < 0 ? "> -" : "< "}0.0001 ${currency}`;
  return `${value.toLocaleString("en-US", { minimumFractionDigits: 4, maximumFractionDigits: 4 })} ${currency}`;
}

/** A duration: under 10 ms with 1 decimal, then whole ms, from 10 s in seconds. */
export function ms(n) {
  if (n === null || n === undefined) return "—";
  const value = Number(n);
  if (value < 10) return `${value.toFixed(1)} ms`;
  if (value < 10_000) return `${Math.round(value).toLocaleString("en-US")} ms`;
  return `${(value / 1000).toFixed(1)} s`;
}

const pad = (n) => String(n).padStart(2, "0");

/** A time in the viewer's zone, `YYYY-MM-DD HH:MM:SS`. */
export function localTime(t) {
  if (t === null || t === undefined) return "—";
  const d = new Date(Number(t));
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** A time in UTC, `YYYY-MM-DD HH:MM:SS UTC`. */
export const utcTime = (t) => (t === null || t === undefined ? "—" : `${new Date(Number(t)).toISOString().replace("T", " ").replace(/\.\d+Z$/, "")} UTC`);

/** A time for tables: local, as dates (ISO text and epoch ms both accepted). */
export const time = (t) => (t === null || t === undefined ? "—" : localTime(typeof t === "string" ? Date.parse(t) : t));

/** A time with both readings: `local (UTC)`. */
export const bothTimes = (t) => (t === null || t === undefined ? "—" : `${localTime(t)} (${utcTime(t)})`);

export const percent = (a, b) => (b > 0 ? `${((100 * a) / b).toFixed(1)} %` : "—");

/** A budget's scope in words. */
export function scopeText(scope) {
  if (scope === null || scope === undefined) return "no longer defined";
  if (scope === "total") return "all calls";
  if (scope.project !== undefined) return `project ${scope.project}`;
  if (scope.key !== undefined) return `key ${scope.key}`;
  if (scope.team !== undefined) return `team ${scope.team}`;
  if (scope.tag !== undefined) return `tag ${scope.tag.name}=${scope.tag.value}`;
  if (scope.endUser !== undefined) return `each end user of project ${scope.endUser.project}`;
  return "—";
}

/** A list of model names or regions in words (`*` or none: all). */
export function listText(values, all) {
  if (values === null || values === undefined || values.length === 0 || values.includes("*")) return all;
  return values.join(", ");
}
