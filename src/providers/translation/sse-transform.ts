import { parseSseEvent } from "../../usage/sse-event-fields.ts";

const EVENT_END = /\r\n\r\n|\n\n|\r\r/;

/** What a stream translator does with each event's data and at the end of the stream. */
export interface SseTranslator {
  /** One event's `data` (never empty); enqueue what it becomes. */
  event(data: string, out: TransformStreamDefaultController<Uint8Array>): void;
  /** The upstream ended (a trailing unterminated event has been handled): finish or error. */
  end(out: TransformStreamDefaultController<Uint8Array>): void;
  /**
   * What bytes after the last blank line are when the upstream ends: an event like any other
   * (the default: a last event may lack its blank line), or a cut (`"cut"`: the output errors
   * instead of ending, for streams whose end no event marks).
   */
  readonly unterminated?: "event" | "cut";
}

/**
 * A byte stream of SSE events in, translated bytes out: events are split at their blank line
 * (any SSE line ending) however the bytes are chunked, comments and empty events skipped.
 */
export function sseTransform(translator: SseTranslator): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let pending = "";
  const handle = (text: string, out: TransformStreamDefaultController<Uint8Array>) => {
    const { data } = parseSseEvent(text);
    if (data !== "") translator.event(data, out);
  };
  return new TransformStream({
    transform(bytes, out) {
      pending += decoder.decode(bytes, { stream: true });
      for (let match = EVENT_END.exec(pending); match !== null; match = EVENT_END.exec(pending)) {
        const text = pending.slice(0, match.index);
        pending = pending.slice(match.index + match[0].length);
        handle(text, out);
      }
    },
    flush(out) {
      pending += decoder.decode();
      if (pending.trim() !== "") {
        if (translator.unterminated === "cut") throw new Error("the upstream stream ended inside an event");
        handle(pending, out);
      }
      translator.end(out);
    },
  });
}
