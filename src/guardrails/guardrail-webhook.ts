import { z } from "zod";
import { signWebhook, SIGNATURE_HEADER } from "../alerts/webhook-signature.ts";
import type { GuardrailPolicyConfig, RequestPart } from "../config/guardrails-schema.ts";

/** A policy's external check, as configured. */
export type WebhookCheck = NonNullable<GuardrailPolicyConfig["webhook"]>;

/** A span the check found in one of the texts it was sent (`index`: its position in `texts`). */
export interface WebhookSpan {
  readonly index: number;
  readonly start: number;
  readonly end: number;
  /** The placeholder type (`NAME` gives `[NAME_1]`). */
  readonly label: string;
}

/**
 * What the check said: allow; flagged without saying where (the policy then blocks unless it
 * only logs); spans to treat as matches; or it failed (`timeout`, `unavailable` for a refused
 * connection or a non-2xx answer, `invalid_verdict` for an answer that is not one).
 */
export type WebhookVerdict =
  | { readonly kind: "allow" }
  | { readonly kind: "flag" }
  | { readonly kind: "spans"; readonly spans: readonly WebhookSpan[] }
  | { readonly kind: "failed"; readonly error: "timeout" | "unavailable" | "invalid_verdict" };

/** One text the check is sent: the part it belongs to, where it is, and the text. */
export interface CheckedText {
  readonly part: RequestPart;
  readonly where: string;
  readonly text: string;
}

const LABEL = /^[A-Z][A-Z0-9_]{0,31}$/;
const verdictSchema = z.object({
  action: z.enum(["allow", "block"]).default("allow"),
  findings: z
    .array(z.object({ part: z.number().int().nonnegative(), start: z.number().int().nonnegative(), end: z.number().int().positive(), label: z.string().optional() }))
    .max(10_000)
    .default([]),
});

/**
 * Asks a policy's webhook about the texts of a request: `POST` of
 * `{"policy": id, "texts": [{"part", "where", "text"}]}` (signed like alerts when the check has a
 * secret), answered by `{"action": "allow" | "block", "findings": [{"part": i, "start", "end", "label"}]}`
 * within `timeoutMs`. Never throws: every way of not getting a verdict is a `failed` one.
 */
export async function askWebhook(check: WebhookCheck, policy: string, texts: readonly CheckedText[], fetchImpl: typeof fetch = fetch): Promise<WebhookVerdict> {
  const body = JSON.stringify({ policy, texts });
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (check.secret !== undefined) headers[SIGNATURE_HEADER] = signWebhook(check.secret, body, Math.floor(Date.now() / 1000));
  const signal = AbortSignal.timeout(check.timeoutMs);
  let raw: string;
  try {
    const response = await fetchImpl(check.url, { method: "POST", headers, body, signal });
    raw = await response.text();
    if (!response.ok) return { kind: "failed", error: "unavailable" };
  } catch {
    return { kind: "failed", error: signal.aborted ? "timeout" : "unavailable" };
  }
  let parsed: z.infer<typeof verdictSchema>;
  try {
    const result = verdictSchema.safeParse(JSON.parse(raw));
    if (!result.success) return { kind: "failed", error: "invalid_verdict" };
    parsed = result.data;
  } catch {
    return { kind: "failed", error: "invalid_verdict" };
  }
  if (parsed.action === "block") return { kind: "flag" };
  if (parsed.findings.length === 0) return { kind: "allow" };
  const spans: WebhookSpan[] = [];
  for (const finding of parsed.findings) {
    const text = texts[finding.part]?.text;
    if (text === undefined || finding.end > text.length || finding.start >= finding.end) return { kind: "failed", error: "invalid_verdict" };
    const label = (finding.label ?? "").toUpperCase();
    spans.push({ index: finding.part, start: finding.start, end: finding.end, label: LABEL.test(label) ? label : "REDACTED" });
  }
  return { kind: "spans", spans };
}
