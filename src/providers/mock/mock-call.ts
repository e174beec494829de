import type { MockFrame } from "./mock-stream.ts";
import { mockText, type MockText } from "./mock-text.ts";
import type { MockAnswer } from "../../config/mock-schema.ts";

/** One parsed model call, as the route builders see it. */
export interface MockCall {
  readonly body: Readonly<Record<string, unknown>>;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** A sentence or filler (mock-text.ts). */
  readonly answer: MockAnswer;
  /** Content deltas per stream. */
  readonly chunks: number;
  /** `JSON.stringify(model)`; "mock-model" when the body names none. */
  readonly modelJson: string;
  /** A short id unique within this process, for `chatcmpl-…`, `msg_…` and such. */
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  /** True when the body asks for a stream. */
  readonly stream: boolean;
}

/** What a route answers: a JSON body, or SSE frames to pace out. */
export type MockReply =
  | { readonly kind: "json"; readonly body: string }
  | { readonly kind: "stream"; readonly frames: MockFrame[] };

/** Builds the reply for one call. */
export type MockRoute = (call: MockCall) => MockReply;

/** The call's output text, split into its stream deltas. */
export function callText(call: MockCall): MockText {
  return mockText(call.outputTokens, call.chunks, call.answer);
}

/** A `data:`-only SSE frame. */
export function dataFrame(json: string, paced: boolean): MockFrame {
  return { text: `data: ${json}\n\n`, paced };
}

/** A named SSE frame (`event:` then `data:`). */
export function eventFrame(event: string, json: string, paced: boolean): MockFrame {
  return { text: `event: ${event}\ndata: ${json}\n\n`, paced };
}
