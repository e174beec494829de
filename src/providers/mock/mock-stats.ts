import type { WireFormat } from "../../shared/usage.ts";

/** Counters the mock keeps so tests can observe what reached it. */
export interface MockStats {
  /** Model calls received (every request outside `/_mock/`). */
  received: number;
  /** The same, by the wire format of the path called (`/v1/messages…` is Anthropic's). */
  receivedByWire: Record<WireFormat, number>;
  /** Calls whose response the mock delivered to the end (JSON or a clean stream end). */
  completed: number;
  /** Calls whose client went away (request.signal aborted, or body cancelled) before the end. */
  aborted: number;
  /** `x-request-id` of each received call ("" when absent), oldest first, at most the last 10,000. */
  requestIds: string[];
}

/** How many request ids {@link MockStatsRecorder} keeps. */
export const REQUEST_ID_LIMIT = 10_000;

/** Mutable counters with a ring buffer of request ids. */
export class MockStatsRecorder {
  received = 0;
  #byWire: Record<WireFormat, number> = { openai: 0, anthropic: 0 };
  completed = 0;
  aborted = 0;
  #ids: string[] = [];
  #next = 0;

  /** Records one received call. */
  receive(requestId: string, wire: WireFormat): void {
    this.received++;
    this.#byWire[wire]++;
    if (this.#ids.length < REQUEST_ID_LIMIT) this.#ids.push(requestId);
    else {
      this.#ids[this.#next] = requestId;
      this.#next = (this.#next + 1) % REQUEST_ID_LIMIT;
    }
  }

  /** A copy of the counters. */
  snapshot(): MockStats {
    const ids = this.#next === 0 ? this.#ids.slice() : [...this.#ids.slice(this.#next), ...this.#ids.slice(0, this.#next)];
    return { received: this.received, receivedByWire: { ...this.#byWire }, completed: this.completed, aborted: this.aborted, requestIds: ids };
  }

  /** Zeroes everything. */
  reset(): void {
    this.received = 0;
    this.#byWire = { openai: 0, anthropic: 0 };
    this.completed = 0;
    this.aborted = 0;
    this.#ids = [];
    this.#next = 0;
  }
}
