// One journal entry, readable: what was called, how it ended, its attempts as a table, times
// local and UTC, durations rounded; shown in a panel that stays on screen.
import { el, showPanel, table } from "./dashboard-dom.js";
import { bothTimes, exactAmount, money, ms, number } from "./dashboard-format.js";

const OUTCOME_TONE = { ok: "ok", started: "muted", refused: "warn" };

function rows(pairs) {
  return el("dl", {}, pairs.filter(([, value]) => value !== undefined).flatMap(([name, value]) => [
    el("dt", { text: name }),
    el("dd", {}, value instanceof Node ? value : value === null || value === "" ? "—" : String(value)),
  ]));
}

/** What guardrail policies found on one entry: policy, detector, action, where (never the matched text: the journal has none). */
export function findingsTable(findings) {
  const where = (f) => [...f.at.map((p) => `${p.part} @${p.start}+${p.length}`), f.count > f.at.length ? `… ${f.count - f.at.length} more` : null].filter(Boolean).join(", ");
  return el("div", { "data-guardrails": "" }, table(
    [["Policy", (f) => f.policy], ["On", (f) => f.on], ["Detector", (f) => f.detector], ["Action", (f) => f.action], ["Matches", (f) => f.count, number, true], ["Where", where], ["Check failed", (f) => f.error ?? null]],
    findings, { sortable: false },
  ));
}

function attemptsTable(attempts) {
  return el("div", { "data-attempts": "" }, table([
    ["#", (_a) => null, (_v, a) => String(attempts.indexOf(a) + 1), true],
    ["Provider", (a) => a.provider],
    ["Upstream model", (a) => a.upstreamModel],
    ["Model", (a) => a.model],
    ["Status", (a) => a.status, undefined, true],
    ["Error", (a) => a.errorCode],
    ["Took", (a) => a.ms, ms, true],
    ["Cost", (a) => a.cost, money, true],
  ], attempts, { sortable: false }));
}

/** Opens the entry's detail panel. */
export function showEntry(entry) {
  const overhead = entry.totalMs !== null && entry.upstreamMs !== null ? entry.totalMs - entry.upstreamMs : null;
  const outcome = el("span", { class: `badge ${OUTCOME_TONE[entry.outcome] ?? "bad"}`, text: entry.outcome });
  const content = el("div", { class: "detail", "data-entry": entry.id },
    rows([
      ["Received", bothTimes(entry.receivedAt)],
      ["Finished", bothTimes(entry.finishedAt)],
      ["Outcome", outcome],
      ["HTTP status", entry.status],
      ["Error code", entry.errorCode],
      ["Key", entry.keyId],
      ["Project", entry.project],
      ["Route", entry.route],
      ["Model", entry.model],
      ["Provider", entry.provider === null ? null : `${entry.provider}${entry.upstreamModel ? ` (${entry.upstreamModel})` : ""}`],
      ["Region", entry.region ?? null],
      ["Streamed", entry.stream ? "yes" : "no"],
      ["Tokens", `${number(entry.inputTokens)} in (${number(entry.cachedInputTokens)} cached) · ${number(entry.outputTokens)} out`],
      ["Cost", entry.cost === null ? null : `${money(entry.cost)} (exactly ${exactAmount(entry.cost)}${entry.costEstimated ? ", estimated" : ""})`],
      ["Reserved", entry.reservedCost === null ? null : money(entry.reservedCost)],
      ["Time to first byte", ms(entry.ttfbMs)],
      ["Total", ms(entry.totalMs)],
      ["Upstream", ms(entry.upstreamMs)],
      ["Relay overhead", ms(overhead)],
      ["Request id", entry.requestId],
      ["Entry id", entry.id],
      ["Client", entry.clientAddress],
      ["Request bytes", number(entry.requestBytes)],
    ]),
    entry.attempts && entry.attempts.length > 0 ? [el("h3", { text: "Attempts" }), attemptsTable(entry.attempts)] : null,
    entry.guardrails && entry.guardrails.length > 0 ? [el("h3", { text: "Guardrails" }), findingsTable(entry.guardrails)] : null,
    entry.requestBody ? [el("h3", { text: "Request body" }), el("pre", { text: entry.requestBody })] : null,
    entry.responseBody ? [el("h3", { text: "Response body" }), el("pre", { text: entry.responseBody })] : null,
  );
  return showPanel(`Call ${entry.requestId ?? entry.id}`, content, "entry");
}
