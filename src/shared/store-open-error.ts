/**
 * The store or the journal could not be opened (a file another relay holds, a corrupt log,
 * a key secret that does not match the store); `message` is user-facing (no stack trace needed).
 */
export class StoreOpenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreOpenError";
  }
}
