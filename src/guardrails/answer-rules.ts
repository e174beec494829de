import type { GuardrailPosition } from "../shared/journal-records.ts";
import type { Detector, Match } from "./detector.ts";
import { strongest, type FindingLog } from "./guardrail-findings.ts";
import type { Policy } from "./guardrail-policies.ts";
import type { PlaceholderBook } from "./placeholders.ts";
import { findMatches, type Replacement } from "./text-scan.ts";

/** An answer a policy blocks: which policy, which detector, and where (never the text). */
export interface AnswerBlock {
  readonly policy: string;
  readonly detector: string;
  readonly position: GuardrailPosition;
}

/** What becomes of one match in an answer: the client's text and the journal's (undefined: unchanged). */
export interface Treatment {
  readonly client: string | undefined;
  readonly journal: string | undefined;
}

/** Replacements of a whole string of an answer. */
export interface StringTreatment {
  readonly client: Replacement[];
  readonly journal: Replacement[];
}

/**
 * How a call's answers are treated, JSON or streamed: the answer policies' detectors run over
 * the provider's text (placeholders included), their strongest action applies to each match,
 * then the call's pseudonymised placeholders are turned back into the caller's values. The
 * journal keeps the provider's text with every match masked, and no restored value.
 */
export class AnswerRules {
  /** The answer policies' detectors, then the placeholder restorer when the call pseudonymised anything. */
  readonly detectors: readonly Detector[];
  private readonly restorer: Detector | undefined;
  private readonly firing = new Map<Detector, Policy[]>();

  constructor(
    policies: readonly Policy[],
    private readonly book: PlaceholderBook,
    private readonly log: FindingLog,
  ) {
    const detectors = [...new Set(policies.flatMap((policy) => policy.detectors))];
    for (const detector of detectors) this.firing.set(detector, policies.filter((policy) => policy.detectors.includes(detector)));
    this.restorer = book.restores ? book.restorer() : undefined;
    this.detectors = this.restorer === undefined ? detectors : [...detectors, this.restorer];
  }

  /** Treats a match whose text is `value`; `quiet` (a repeated full text of a streamed answer) records nothing. */
  treat(match: Match, value: string, where: string, jsonText: boolean, quiet: boolean): Treatment | AnswerBlock {
    if (match.detector === this.restorer) {
      const original = this.book.original(value)!;
      return { client: jsonText ? JSON.stringify(original).slice(1, -1) : original, journal: undefined };
    }
    const policies = this.firing.get(match.detector) ?? [];
    const position = { part: where, start: match.start, length: match.end - match.start };
    if (!quiet) for (const policy of policies) this.log.add(policy.id, "answer", match.detector.id, policy.answer!, position);
    const action = strongest(policies.map((policy) => policy.answer!));
    if (action === "block") return { policy: policies.find((policy) => policy.answer === "block")!.id, detector: match.detector.id, position };
    const placeholder = this.book.placeholder(match.detector.label, value, false);
    return { client: action === "redact" ? placeholder : undefined, journal: placeholder };
  }

  /** Scans and treats a whole string. */
  scanString(text: string, where: string, jsonText: boolean, quiet: boolean): StringTreatment | AnswerBlock {
    const client: Replacement[] = [];
    const journal: Replacement[] = [];
    for (const match of findMatches(text, this.detectors)) {
      const treated = this.treat(match, text.slice(match.start, match.end), where, jsonText, quiet);
      if ("policy" in treated) return treated;
      if (treated.client !== undefined) client.push({ start: match.start, end: match.end, text: treated.client });
      if (treated.journal !== undefined) journal.push({ start: match.start, end: match.end, text: treated.journal });
    }
    return { client, journal };
  }
}

/** The message of an answer blocked by a policy. */
export function answerBlockedMessage(block: AnswerBlock): string {
  return `Policy \`${block.policy}\` blocked this answer: \`${block.detector}\` found in ${block.position.part} at character ${block.position.start} (the matched text is not shown)`;
}
