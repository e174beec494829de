import { answerStrings } from "./answer-parts.ts";
import type { AnswerBlock, AnswerRules } from "./answer-rules.ts";
import { readJsonSpans, type JsonNode } from "./json-spans.ts";
import { applyReplacements, type Replacement } from "./text-scan.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A JSON answer as the client gets it, and as the journal keeps it. */
export interface GuardedJson {
  readonly client: Uint8Array<ArrayBuffer>;
  readonly journal: Uint8Array<ArrayBuffer>;
}

/**
 * Applies a call's answer rules to a JSON answer of `path`: each scanned string's matches are
 * redacted (or only masked in the journal's copy), placeholders restored, every other byte kept.
 * An answer that cannot be read as JSON is passed on unchanged when the rules only restore,
 * and blocked when a policy scans answers (it cannot be checked).
 */
export function guardJsonAnswer(rules: AnswerRules, bytes: Uint8Array<ArrayBuffer>, path: string, firstPolicy: string | undefined): GuardedJson | AnswerBlock {
  const text = decoder.decode(bytes);
  let root: JsonNode;
  try {
    root = readJsonSpans(text);
  } catch {
    if (firstPolicy === undefined) return { client: bytes, journal: bytes };
    return { policy: firstPolicy, detector: "unreadable_answer", position: { part: "body", start: 0, length: 0 } };
  }
  const client: Replacement[] = [];
  const journal: Replacement[] = [];
  for (const { node, where, jsonText } of answerStrings(root, path)) {
    const treated = rules.scanString(node.value, where, jsonText, false);
    if ("policy" in treated) return treated;
    if (treated.client.length > 0) client.push({ start: node.start, end: node.end, text: JSON.stringify(applyReplacements(node.value, treated.client)) });
    if (treated.journal.length > 0) journal.push({ start: node.start, end: node.end, text: JSON.stringify(applyReplacements(node.value, treated.journal)) });
  }
  return {
    client: client.length === 0 ? bytes : encoder.encode(applyReplacements(text, client)),
    journal: journal.length === 0 ? bytes : encoder.encode(applyReplacements(text, journal)),
  };
}
