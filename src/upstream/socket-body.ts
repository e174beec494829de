/** Where a {@link SocketBody}'s bytes come from: a socket or a response read from one. */
export interface BodySource {
  /** Asks for more bytes (the source stays paused between reads). */
  resume(): void;
  /** The reader cancelled the body before its end. */
  cancel(): void;
}

/**
 * A response body read off a socket, as a pull stream: the pieces received wait here and one is
 * handed out per read, the source resumed only while the reader asks for more. The end, or the
 * error, comes once every piece received before it was read (a cut body keeps every byte).
 */
export class SocketBody {
  /** Received and not yet read, oldest first. */
  readonly pieces: Uint8Array[] = [];
  private done = false;
  private error: unknown = undefined;
  private wake: (() => void) | undefined;

  /** The body's end arrived. */
  get ended(): boolean {
    return this.done;
  }

  /** The body's first failure, undefined while none. */
  get failure(): unknown {
    return this.error;
  }

  /** A piece arrived. */
  push(piece: Uint8Array): void {
    this.pieces.push(piece);
    this.notify();
  }

  /** The body ended. */
  end(): void {
    this.done = true;
    this.notify();
  }

  /** The body failed (the first failure counts). */
  fail(error: unknown): void {
    this.error ??= error;
    this.notify();
  }

  /** The pull stream over the body, reading from `source`. */
  stream(source: BodySource): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          while (this.pieces.length === 0 && !this.done && this.error === undefined) {
            const arrived = new Promise<void>((resolve) => (this.wake = resolve));
            source.resume();
            await arrived;
          }
          if (this.pieces.length > 0) controller.enqueue(this.pieces.shift()!);
          else if (this.done) controller.close();
          else controller.error(this.error);
        },
        cancel: () => source.cancel(),
      },
      { highWaterMark: 0 },
    );
  }

  private notify(): void {
    const resume = this.wake;
    this.wake = undefined;
    resume?.();
  }
}
