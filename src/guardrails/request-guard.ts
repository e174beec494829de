import { REQUEST_PARTS } from "../config/guardrails-schema.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { Detector, Match } from "./detector.ts";
import { FindingLog, strongest, type GuardAction } from "./guardrail-findings.ts";
import type { Policy } from "./guardrail-policies.ts";
import { askWebhook, type WebhookVerdict } from "./guardrail-webhook.ts";
import { JsonSpanError, readJsonSpans } from "./json-spans.ts";
import { PlaceholderBook } from "./placeholders.ts";
import { requestStrings, type ScannedString } from "./request-parts.ts";
import { applyReplacements, findEach, type Replacement } from "./text-scan.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A request body read for scanning: its text and the strings policies may scan. */
export interface ScannedRequest {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly text: string;
  readonly strings: readonly ScannedString[];
}

/** Reads a request body (already known to be JSON) of `path`; a body too deeply nested to scan whole is refused. */
export function readRequest(bytes: Uint8Array<ArrayBuffer>, path: string): ScannedRequest {
  const text = decoder.decode(bytes);
  try {
    return { bytes, text, strings: requestStrings(readJsonSpans(text), path) };
  } catch (error) {
    if (!(error instanceof JsonSpanError)) throw error;
    throw new RelayError(400, "invalid_request", `This request cannot be checked by the guardrail policies that apply to it (${error.message}); it was not sent`);
  }
}

/** A policy's webhook verdict, and which scanned string each text it was sent is. */
export interface PolicyVerdict {
  readonly verdict: WebhookVerdict;
  readonly strings: readonly number[];
}

/** Asks every policy's webhook (each once, in parallel) about the strings that policy scans. */
export async function askWebhooks(policies: readonly Policy[], request: ScannedRequest, fetchImpl?: typeof fetch): Promise<Map<string, PolicyVerdict>> {
  const asked = policies.filter((policy) => policy.webhook !== undefined && policy.request !== undefined);
  const answers = await Promise.all(
    asked.map(async (policy) => {
      const strings = request.strings.flatMap((s, i) => (policy.parts.has(s.part) ? [i] : []));
      const texts = strings.map((i) => ({ part: request.strings[i]!.part, where: request.strings[i]!.where, text: request.strings[i]!.node.value }));
      const verdict: WebhookVerdict = texts.length === 0 ? { kind: "allow" } : await askWebhook(policy.webhook!, policy.id, texts, fetchImpl);
      return [policy.id, { verdict, strings }] as const;
    }),
  );
  return new Map(answers);
}

/** The request as one set of policies (those applying in one region) sends it. */
export interface Evaluation {
  readonly policies: readonly Policy[];
  /** Why the call may not go where these policies apply (a block, or a check that failed closed). */
  readonly refusal: RelayError | undefined;
  /** The body to send: the request itself when nothing was replaced. */
  readonly body: Uint8Array<ArrayBuffer>;
  readonly book: PlaceholderBook;
  readonly log: FindingLog;
  /** Per scanned string, every match replaced by its placeholder (the journal's copy). */
  readonly masks: ReadonlyMap<number, readonly Replacement[]>;
}

/** A span a webhook found, as a detector's match of the policy whose check it was. */
function webhookDetector(label: string): Detector {
  return { id: "webhook", label, priority: 15, maxLength: Number.MAX_SAFE_INTEGER, find: () => {}, pending: (text) => text.length };
}

/**
 * Applies `policies` to the request: every match is counted for each policy whose detectors
 * found it (with that policy's action), and the strongest action applies: block refuses the
 * call (naming policy, detector and place, never the text), redact and pseudonymise replace the
 * match by its typed placeholder, log leaves it. A webhook's spans are matches of the policy
 * whose check it is; a flag without spans blocks unless the policy only logs; a failed check
 * refuses the call (503) unless the policy fails open.
 */
export function evaluate(policies: readonly Policy[], request: ScannedRequest, verdicts: ReadonlyMap<string, PolicyVerdict>): Evaluation {
  const book = new PlaceholderBook();
  const log = new FindingLog();
  const masks = new Map<number, Replacement[]>();
  const splices: Replacement[] = [];
  let blocked: RelayError | undefined;
  let unavailable: RelayError | undefined;
  const scanning = policies.filter((policy) => policy.request !== undefined);
  const owners = new Map<Detector, Policy>();
  const spansOf = (policy: Policy, index: number): Match[] => {
    const answer = verdicts.get(policy.id);
    if (answer?.verdict.kind !== "spans") return [];
    return answer.verdict.spans.flatMap((span) => {
      if (answer.strings[span.index] !== index) return [];
      const detector = webhookDetector(span.label);
      owners.set(detector, policy);
      return [{ start: span.start, end: span.end, detector }];
    });
  };
  // The policies and detectors of each part, and each part's strings scanned in one pass.
  const relevantTo = new Map(REQUEST_PARTS.map((part) => [part, scanning.filter((policy) => policy.parts.has(part))]));
  const found: Match[][] = request.strings.map(() => []);
  for (const [part, relevant] of relevantTo) {
    const indexes = request.strings.flatMap((s, i) => (s.part === part ? [i] : []));
    if (relevant.length === 0 || indexes.length === 0) continue;
    const each = findEach(indexes.map((i) => request.strings[i]!.node.value), [...new Set(relevant.flatMap((policy) => policy.detectors))]);
    indexes.forEach((index, k) => (found[index] = each[k]!));
  }
  request.strings.forEach((scanned, index) => {
    const relevant = relevantTo.get(scanned.part)!;
    if (relevant.length === 0) return;
    const value = scanned.node.value;
    const extra = relevant.flatMap((policy) => spansOf(policy, index));
    const matches = extra.length === 0 ? found[index]! : withoutOverlaps([...extra, ...found[index]!]);
    const replacements: Replacement[] = [];
    const masked: Replacement[] = [];
    for (const match of matches) {
      const owner = owners.get(match.detector);
      const firing = owner !== undefined ? [owner] : relevant.filter((policy) => policy.detectors.includes(match.detector));
      const position = { part: scanned.where, start: match.start, length: match.end - match.start };
      for (const policy of firing) log.add(policy.id, "request", match.detector.id, policy.request!, position);
      const action: GuardAction = strongest(firing.map((policy) => policy.request!));
      const text = value.slice(match.start, match.end);
      if (action === "block") blocked ??= new RelayError(400, "guardrail_blocked", `Policy \`${firing.find((p) => p.request === "block")!.id}\` blocked this request: \`${match.detector.id}\` found in ${scanned.where} at character ${match.start} (the matched text is not shown)`);
      const placeholder = book.placeholder(match.detector.label, text, action === "pseudonymise");
      masked.push({ start: match.start, end: match.end, text: placeholder });
      if (action === "redact" || action === "pseudonymise") replacements.push({ start: match.start, end: match.end, text: placeholder });
    }
    if (masked.length > 0) masks.set(index, masked);
    if (replacements.length > 0) splices.push({ start: scanned.node.start, end: scanned.node.end, text: JSON.stringify(applyReplacements(value, replacements)) });
  });
  for (const policy of scanning) {
    const answer = verdicts.get(policy.id);
    if (answer === undefined) continue;
    const { verdict } = answer;
    if (verdict.kind === "flag") {
      log.add(policy.id, "request", "webhook", policy.request!);
      if (policy.request !== "log") blocked ??= new RelayError(400, "guardrail_blocked", `Policy \`${policy.id}\` blocked this request: its check (webhook) flagged it`);
    } else if (verdict.kind === "failed") {
      const open = policy.webhook!.failOpen;
      log.fail(policy.id, open ? "log" : policy.request!, verdict.error);
      if (!open) unavailable ??= new RelayError(503, "guardrail_unavailable", `Policy \`${policy.id}\`'s check (webhook) ${verdict.error === "timeout" ? `did not answer within ${policy.webhook!.timeoutMs} ms` : verdict.error === "unavailable" ? "could not be reached or failed" : "gave no valid verdict"}; the call was not sent (the policy fails closed)`);
    }
  }
  const body = splices.length === 0 ? request.bytes : encoder.encode(applyReplacements(request.text, splices));
  return { policies, refusal: blocked ?? unavailable, body, book, log, masks };
}

/** Matches without overlaps, the first listed winning (a webhook's spans before the detectors'). */
function withoutOverlaps(matches: readonly Match[]): Match[] {
  const kept: Match[] = [];
  for (const match of matches) if (!kept.some((k) => k.start < match.end && match.start < k.end)) kept.push(match);
  return kept.sort((a, b) => a.start - b.start);
}

/**
 * The request as the journal keeps it: in every scanned part, every match of `detectors` (those of
 * every policy that may apply to the caller, in any region) and every match an evaluation found
 * (a webhook's spans too) replaced by a placeholder, whatever the policies did with it.
 */
export function maskedRequest(request: ScannedRequest, evaluations: Iterable<Evaluation>, detectors: readonly Detector[]): Uint8Array<ArrayBuffer> {
  const byString = new Map<number, Replacement[]>();
  for (const evaluation of evaluations) {
    for (const [index, masks] of evaluation.masks) byString.set(index, [...(byString.get(index) ?? []), ...masks]);
  }
  const book = new PlaceholderBook();
  findEach(request.strings.map((s) => s.node.value), detectors).forEach((found, index) => {
    const value = request.strings[index]!.node.value;
    const masks = found.map((m) => ({ start: m.start, end: m.end, text: book.placeholder(m.detector.label, value.slice(m.start, m.end), false) }));
    if (masks.length > 0) byString.set(index, [...(byString.get(index) ?? []), ...masks]);
  });
  if (byString.size === 0) return request.bytes;
  const splices: Replacement[] = [];
  for (const [index, masks] of byString) {
    const node = request.strings[index]!.node;
    // Overlapping masks of different policy sets merge: the union is masked, under the first one's placeholder.
    const kept: Replacement[] = [];
    for (const mask of masks.sort((a, b) => a.start - b.start)) {
      const last = kept[kept.length - 1];
      if (last !== undefined && mask.start < last.end) kept[kept.length - 1] = { ...last, end: Math.max(last.end, mask.end) };
      else kept.push(mask);
    }
    splices.push({ start: node.start, end: node.end, text: JSON.stringify(applyReplacements(node.value, kept)) });
  }
  return encoder.encode(applyReplacements(request.text, splices.sort((a, b) => a.start - b.start)));
}
