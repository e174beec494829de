import type { JournalCompletion, JournalGuardrail } from "../shared/journal-records.ts";
import { RelayError } from "../shared/relay-error.ts";
import { guardJsonAnswer, type GuardedJson } from "./answer-json.ts";
import { AnswerRules, answerBlockedMessage } from "./answer-rules.ts";
import { guardStream, type GuardedStream } from "./answer-stream.ts";
import { FindingLog, mergeFindings } from "./guardrail-findings.ts";
import { maskedRequest, type Evaluation, type ScannedRequest } from "./request-guard.ts";
import { StreamScanner } from "./stream-scanner.ts";
import type { Detector } from "./detector.ts";

/** What is done to one answer of a guarded call. */
export interface AnswerGuard {
  /** A JSON answer as the client gets it (and as the journal keeps it), or the refusal when a policy blocks it. */
  json(bytes: Uint8Array<ArrayBuffer>): GuardedJson | RelayError;
  /** A streamed answer (the usage tap's body) through the guard. */
  stream(source: ReadableStream<Uint8Array>): GuardedStream;
}

/** The error code an answer blocked by a policy is journaled with. */
export const ANSWER_BLOCKED = "guardrail_blocked";

/**
 * A call scanned by its policies, region by region: the body each target gets (or why it gets
 * none), the answer guard there, and what fired, for the journal. Holds the call's placeholder
 * books (the pseudonymised values) and nothing else of the request; it lives as long as the call.
 */
export class GuardedCall {
  private readonly used = new Set<Evaluation>();
  private readonly answers = new Map<Evaluation, AnswerGuard | undefined>();
  private readonly answerLogs: FindingLog[] = [];
  /** The status the client got for an answer a policy blocked (400 for JSON; a stream had its 200), or undefined. */
  private blockedAnswer: number | undefined;
  /** The largest body any target may get (placeholders can be longer than what they replace): what the reservation must cover. */
  readonly largestBytes: number;

  constructor(
    private readonly request: ScannedRequest,
    private readonly byRegion: ReadonlyMap<string, Evaluation>,
    private readonly path: string,
    /** Every detector of every policy that may apply to the caller: what the journal's copy of the request is masked with. */
    private readonly journalDetectors: readonly Detector[],
  ) {
    this.largestBytes = Math.max(request.bytes.byteLength, ...[...byRegion.values()].map((e) => e.body.byteLength));
  }

  /** The body for a target in `region`; undefined when a policy keeps the call from going there. */
  bodyFor(region: string): Uint8Array<ArrayBuffer> | undefined {
    const evaluation = this.byRegion.get(region);
    if (evaluation === undefined || evaluation.refusal !== undefined) return undefined;
    this.used.add(evaluation);
    return evaluation.body;
  }

  /** Why the call may not go to a target in `region` (the refusal the caller gets when no target is left), or undefined; what fired there is journaled. */
  refusal(region: string): RelayError | undefined {
    const evaluation = this.byRegion.get(region);
    if (evaluation === undefined) return new RelayError(503, "guardrail_unavailable", "The guardrail policies were not evaluated for this target; the call was not sent");
    this.used.add(evaluation);
    return evaluation.refusal;
  }

  /** What is done to the answer of a target in `region`; undefined when nothing is (no answer policy, nothing to restore). */
  answerFor(region: string): AnswerGuard | undefined {
    const evaluation = this.byRegion.get(region);
    if (evaluation === undefined) return undefined;
    if (!this.answers.has(evaluation)) this.answers.set(evaluation, this.answerGuard(evaluation));
    return this.answers.get(evaluation);
  }

  /** The request as the journal keeps it (every match of any policy that may apply to the caller masked, whatever the policies did). */
  journalBody(): Uint8Array<ArrayBuffer> {
    return maskedRequest(this.request, this.byRegion.values(), this.journalDetectors);
  }

  /** What fired so far (request, and answers), for the journal; undefined when nothing did. */
  records(): JournalGuardrail[] | undefined {
    const records = mergeFindings([...[...this.used].map((evaluation) => evaluation.log), ...this.answerLogs]);
    return records.length === 0 ? undefined : records;
  }

  /** Adds what fired to a call's completion; an answer a policy blocked is journaled as such. */
  complete(completion: JournalCompletion): void {
    const records = this.records();
    if (records !== undefined) completion.guardrails = records;
    if (this.blockedAnswer !== undefined) {
      completion.errorCode = ANSWER_BLOCKED;
      completion.status = this.blockedAnswer;
    }
  }

  private answerGuard(evaluation: Evaluation): AnswerGuard | undefined {
    const policies = evaluation.policies.filter((policy) => policy.answer !== undefined);
    if (policies.length === 0 && !evaluation.book.restores) return undefined;
    const log = new FindingLog();
    this.answerLogs.push(log);
    const rules = new AnswerRules(policies, evaluation.book, log);
    return {
      json: (bytes) => {
        const guarded = guardJsonAnswer(rules, bytes, this.path, policies[0]?.id);
        if (!("policy" in guarded)) return guarded;
        this.blockedAnswer = 400;
        return new RelayError(400, "guardrail_blocked", answerBlockedMessage(guarded));
      },
      stream: (source) => guardStream(source, new StreamScanner(rules, this.path), this.path, () => (this.blockedAnswer ??= 200)),
    };
  }
}

/**
 * The first target of a guarded call it may go to: `first`, or the next the route offers when
 * a policy keeps the call from `first`'s region (each such target is excluded). Throws the
 * refusal of the first target when none is left.
 */
export function firstAllowed<T extends { readonly provider: { readonly region: string } }>(call: GuardedCall, first: T, next: () => T | undefined, exclude: (target: T) => void): T {
  const refusal = call.refusal(first.provider.region);
  if (refusal === undefined) return first;
  for (let target = first; ; ) {
    exclude(target);
    const candidate = next();
    if (candidate === undefined) throw refusal;
    if (call.refusal(candidate.provider.region) === undefined) return candidate;
    target = candidate;
  }
}
