/** Where a direct stream's source writes: the consumer's own buffer (on Bun, the HTTP response being sent). */
export interface DirectSink {
  /**
   * Hands `chunk` on; the consumer copies it (the same object never reaches a reader). Returns a
   * promise while the connection cannot take more (backpressure: it resolves once it can), else
   * the bytes written.
   */
  write(chunk: Uint8Array): unknown;
  /** Sends what was written (it does not wait for the client). */
  flush(): unknown;
  /** Ends the stream: cleanly, or with `error` (the consumer sees it fail). */
  close(error?: Error): void;
}

/** The producer of a direct stream. */
export interface DirectSource {
  /** Called once, when the consumer starts: writes the whole stream, then closes the sink. */
  pull(sink: DirectSink): Promise<void>;
  /** The consumer went away (the client hung up). */
  cancel(reason: unknown): unknown;
}

/**
 * A stream the runtime's HTTP server drains without a JavaScript read per chunk: Bun's direct
 * streams (`type: "direct"`), whose writes go straight into the response, with no stream queue
 * or promise per chunk on the server's side. Undefined where the runtime has none (Deno): the
 * caller builds a standard stream instead.
 */
export function directStream(source: DirectSource): ReadableStream<Uint8Array> | undefined {
  if (!("Bun" in globalThis)) return undefined;
  const underlying = { type: "direct", pull: (sink: DirectSink) => source.pull(sink), cancel: (reason: unknown) => source.cancel(reason) };
  // Deno's type checker knows no direct streams; this runs on Bun only.
  return new ReadableStream(underlying as unknown as UnderlyingDefaultSource<Uint8Array>);
}
