import { mockCutError } from "./mock-errors.ts";

/** One SSE event, fully encoded (`event:`/`data:` lines and the blank line). */
export interface MockFrame {
  readonly text: string;
  /** Wait the chunk interval before this frame (content deltas after the first). */
  readonly paced: boolean;
}

/** How a mock stream ended. */
export type MockStreamEnd = "completed" | "aborted" | "cut";

/** Options for {@link mockFrameStream}. */
export interface MockStreamOptions {
  readonly intervalMs: number;
  /** Error the stream after this many frames (when fewer than all frames). */
  readonly cutAfter: number | undefined;
  /** The request's signal: its abort stops the stream. */
  readonly signal: AbortSignal;
  /** Called once, when the stream ends in any way. */
  readonly onEnd: (end: MockStreamEnd) => void;
}

const encoder = new TextEncoder();

/**
 * A byte stream of SSE frames, paced by `intervalMs`. Unpaced frames are sent in
 * the same write as the frame before them. Paced frames are due on a fixed schedule
 * from the first write, so a late timer shortens the next wait instead of adding drift. Aborting the signal or cancelling the
 * body stops it at once; no timer outlives the stream.
 */
export function mockFrameStream(frames: readonly MockFrame[], options: MockStreamOptions): ReadableStream<Uint8Array> {
  const { intervalMs, signal, onEnd } = options;
  const cutAfter = options.cutAfter !== undefined && options.cutAfter < frames.length ? options.cutAfter : undefined;
  let index = 0;
  /** When the first write went out; paced frame k is due at startedAt + k × intervalMs. */
  let startedAt = 0;
  let paced = 0;
  let ended = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;

  const end = (how: MockStreamEnd): void => {
    if (ended) return;
    ended = true;
    signal.removeEventListener("abort", onAbort);
    if (timer !== undefined) clearTimeout(timer);
    wake?.();
    onEnd(how);
  };
  const onAbort = (): void => {
    if (ended) return;
    end("aborted");
    try {
      controller?.error(signal.reason);
    } catch {
      // already closed or errored
    }
  };
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort);
    },
    async pull(c) {
      if (ended) return;
      if (cutAfter !== undefined && index >= cutAfter) {
        end("cut");
        // One macrotask first: a server writes what it was handed at the end of the turn and drops it when the body errors sooner.
        await new Promise((resolve) => setTimeout(resolve, 0));
        c.error(mockCutError());
        return;
      }
      if (index === 0) startedAt = performance.now();
      else if (intervalMs > 0 && frames[index]?.paced) {
        const wait = startedAt + ++paced * intervalMs - performance.now();
        if (wait > 0.25) {
          await pause(wait);
          timer = undefined;
          wake = undefined;
          if (ended) return;
        }
      }
      const stop = cutAfter ?? frames.length;
      let text = frames[index++]?.text ?? "";
      while (index < stop && frames[index]?.paced === false) text += frames[index++]?.text ?? "";
      c.enqueue(encoder.encode(text));
      if (index >= frames.length) {
        end("completed");
        c.close();
      }
    },
    cancel() {
      end("aborted");
    },
  });
}
