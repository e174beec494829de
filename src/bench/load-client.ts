/**
 * The closed-loop load client: `concurrency` workers, each sending its next
 * request as soon as the previous one is done, over keep-alive connections
 * (the runtime's fetch pools them). Direct and relay targets run through this
 * same code, with the body pre-encoded and the headers built once.
 */

/** Where to send the benchmark request, prepared once. */
export interface LoadTarget {
  readonly name: string;
  readonly url: string;
  readonly headers: Headers;
  readonly body: Uint8Array<ArrayBuffer>;
}

/** Latencies (ms) of one round, in completion order, and how many requests failed. */
export interface RoundResult {
  readonly latencies: Float64Array;
  readonly errors: number;
  /** First failure, for the report. */
  readonly firstError: string | undefined;
}

/** One round of requests against a target. */
export interface RoundSpec {
  readonly concurrency: number;
  readonly count: number;
  /** Streaming: latency ends at the first chunk carrying text (a non-empty `content`); else at the end of the body. */
  readonly stream: boolean;
  /** Aborts every request in flight (the deadline). */
  readonly signal: AbortSignal;
}

/** Builds a target: pre-encodes the body and freezes the headers. */
export function createLoadTarget(name: string, url: string, body: string, headers: ReadonlyArray<readonly [string, string]>): LoadTarget {
  const all = new Headers({ "content-type": "application/json" });
  for (const [key, value] of headers) all.set(key, value);
  return { name, url, headers: all, body: new TextEncoder().encode(body) };
}

/** The OpenAI chat completion the benchmark sends: a ~200-byte message, 16 output tokens at most. */
export function benchRequestBody(model: string, stream: boolean): string {
  const content =
    "Renio benchmark request. Reply with a short greeting. This sentence pads the message so that it is about " +
    "two hundred bytes long, like a small but realistic chat turn sent by an application.";
  return JSON.stringify({ model, messages: [{ role: "user", content }], max_tokens: 16, stream });
}

/** Runs `count` requests with `concurrency` workers; resolves when all are done or the signal aborts. */
export async function runRound(target: LoadTarget, spec: RoundSpec): Promise<RoundResult> {
  return (await runInterleaved([target], spec))[0]!;
}

/**
 * Runs `count` requests to each target with `concurrency` workers, the targets taking turns call
 * by call (request i goes to target i mod n), so every target meets the same conditions at the
 * same moments; one result per target, in the order given. Resolves when all are done or the
 * signal aborts.
 */
export async function runInterleaved(targets: readonly LoadTarget[], spec: RoundSpec): Promise<RoundResult[]> {
  const total = spec.count * targets.length;
  const rounds = targets.map(() => ({ latencies: new Float64Array(spec.count), done: 0, errors: 0, firstError: undefined as string | undefined }));
  let next = 0;
  const send = spec.stream ? timeToFirstText : timeToFullBody;
  const worker = async (): Promise<void> => {
    while (next < total && !spec.signal.aborted) {
      const which = next++ % targets.length;
      const round = rounds[which]!;
      try {
        const elapsed = await send(targets[which]!, spec.signal);
        round.latencies[round.done++] = elapsed;
      } catch (error) {
        round.errors++;
        round.firstError ??= spec.signal.aborted ? "deadline reached" : error instanceof Error ? error.message : String(error);
      }
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.min(spec.concurrency, total); i++) workers.push(worker());
  await Promise.all(workers);
  return rounds.map((round) => ({ latencies: round.latencies.subarray(0, round.done), errors: round.errors, firstError: round.firstError }));
}

async function timeToFullBody(target: LoadTarget, signal: AbortSignal): Promise<number> {
  const start = performance.now();
  const response = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body, signal });
  const body = await response.arrayBuffer();
  const elapsed = performance.now() - start;
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${snippet(new Uint8Array(body))}`);
  return elapsed;
}

async function timeToFirstText(target: LoadTarget, signal: AbortSignal): Promise<number> {
  const start = performance.now();
  const response = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body, signal });
  if (!response.ok || response.body === null) {
    const body = new Uint8Array(await response.arrayBuffer());
    throw new Error(`HTTP ${response.status}: ${snippet(body)}`);
  }
  const reader = response.body.getReader();
  const scanner = createTextScanner();
  let first = -1;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (first < 0 && scanner(value)) first = performance.now() - start;
  }
  if (first < 0) throw new Error("stream ended without a chunk carrying text");
  return first;
}

/** `"content":` then a string that is not empty (`"content":""` is a role chunk's). */
const FIRST_TEXT = /"content":[ \t]*"[^"]/;
/** Enough of the previous chunk's end to find the pattern across a chunk boundary (JSON between `:` and `"` is a few spaces at most). */
const TEXT_TAIL = 64;

/**
 * A stateful scanner for the first chat completion chunk carrying text: a non-empty `content`,
 * across chunk boundaries; true once seen. The first token a caller sees, where the first
 * `data:` may be a role chunk without text (which a stream guard hands on before the text it holds back).
 */
export function createTextScanner(): (chunk: Uint8Array) => boolean {
  const decoder = new TextDecoder();
  let tail = "";
  return (chunk) => {
    const text = tail + decoder.decode(chunk, { stream: true });
    if (FIRST_TEXT.test(text)) return true;
    tail = text.slice(-TEXT_TAIL);
    return false;
  };
}

const PATTERN = [0x64, 0x61, 0x74, 0x61, 0x3a]; // "data:"

/** A stateful scanner for the bytes `data:`, across chunk boundaries; true once seen. */
export function createDataScanner(): (chunk: Uint8Array) => boolean {
  let matched = 0;
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === PATTERN[matched]) {
        if (++matched === PATTERN.length) return true;
      } else {
        matched = byte === PATTERN[0] ? 1 : 0;
      }
    }
    return false;
  };
}

function snippet(body: Uint8Array): string {
  return new TextDecoder().decode(body.subarray(0, 200)).replace(/\s+/g, " ");
}
