import type { CustomDetectorConfig } from "../config/guardrails-schema.ts";
import { regexDetector, type Detector } from "./detector.ts";

/** Custom detectors come after the built-in ones when matches overlap. */
const CUSTOM_PRIORITY = 70;

/**
 * A detector of the config's own. A pattern (already checked by the config schema to be
 * bounded: see patternProblem) matches up to `maxLength` characters; since nothing is known of
 * the characters it matches, a stream holds back the last `maxLength` characters for it. A word
 * list matches whole words and phrases, case-insensitively; a stream holds back only a trailing
 * word (or phrase).
 */
export function customDetector(config: CustomDetectorConfig): Detector {
  const label = config.placeholder ?? config.id.toUpperCase().replaceAll("-", "_");
  if (config.pattern !== undefined) {
    const detector = regexDetector({
      id: config.id,
      label,
      priority: CUSTOM_PRIORITY,
      maxLength: config.maxLength,
      pattern: new RegExp(config.pattern, config.ignoreCase ? "gi" : "g"),
      chars: () => true,
    });
    return { ...detector, pending: (text) => Math.max(0, text.length - config.maxLength) };
  }
  return wordListDetector(config.id, label, config.words ?? []);
}

const WORD = /[\p{L}\p{N}_]+/gu;
const WORD_CHAR = /[\p{L}\p{N}_]/u;
/** What may stand between two words of a phrase: up to three spaces or punctuation marks. */
const GAP = /^[^\p{L}\p{N}_]{1,3}$/u;

interface Token {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** Words and phrases (lower case, split into words), matched on word boundaries. */
function wordListDetector(id: string, label: string, entries: readonly string[]): Detector {
  const single = new Set<string>();
  /** Phrases by their first word: the words after it. */
  const phrases = new Map<string, string[][]>();
  let maxLength = 1;
  for (const entry of entries) {
    const words = [...entry.toLowerCase().matchAll(WORD)].map((m) => m[0]);
    if (words.length === 0) continue;
    maxLength = Math.max(maxLength, words.join("").length + 3 * (words.length - 1));
    if (words.length === 1) single.add(words[0]!);
    else {
      const list = phrases.get(words[0]!) ?? [];
      list.push(words.slice(1));
      phrases.set(words[0]!, list);
    }
  }
  const hasPhrases = phrases.size > 0;
  const detector: Detector = {
    id,
    label,
    priority: CUSTOM_PRIORITY,
    maxLength,
    find(text, from, out) {
      const tokens: Token[] = [];
      WORD.lastIndex = from;
      for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) tokens.push({ text: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length });
      for (let i = 0; i < tokens.length; i++) {
        const first = tokens[i]!;
        let last = single.has(first.text) ? i : -1;
        for (const rest of phrases.get(first.text) ?? []) {
          if (i + rest.length > last && phraseAt(text, tokens, i, rest)) last = i + rest.length;
        }
        if (last < 0) continue;
        out.push({ start: first.start, end: tokens[last]!.end, detector });
        i = last;
      }
    },
    pending(text) {
      const stop = Math.max(0, text.length - maxLength);
      let i = text.length;
      while (i > stop && (WORD_CHAR.test(text[i - 1]!) || (hasPhrases && !/[\n.!?]/.test(text[i - 1]!)))) i--;
      return i;
    },
  };
  return detector;
}

/** Whether the words after token `i` are `rest`, each separated from the one before by a short gap. */
function phraseAt(text: string, tokens: readonly Token[], i: number, rest: readonly string[]): boolean {
  for (let k = 0; k < rest.length; k++) {
    const token = tokens[i + 1 + k];
    if (token === undefined || token.text !== rest[k]) return false;
    if (!GAP.test(text.slice(tokens[i + k]!.end, token.start))) return false;
  }
  return true;
}
