import type { JournalStart } from "../src/shared/journal-records.ts";
import { newEntryId } from "../src/shared/entry-id.ts";

/** The start of a typical streamed chat call, with a fresh id, as the journal benchmarks admit it. */
export function benchStart(): JournalStart {
  return {
    id: newEntryId(),
    receivedAt: Date.now(),
    requestId: null,
    keyId: "bench",
    project: "bench",
    route: "/v1/chat/completions",
    model: "gpt-4o-mini",
    provider: "mock",
    upstreamModel: "gpt-4o-mini",
    stream: true,
    requestBytes: 512,
    clientAddress: "127.0.0.1",
    requestBody: null,
  };
}
