/** Store write errors the journal tells apart: a record the database refuses, and a commit whose outcome is unknown. */

/**
 * The store answered and refused a write for what one of its records holds (PostgreSQL: a data
 * exception, a constraint or a size limit; SQLite: a constraint, a value too big or of the wrong
 * type), not because it is down. `code` is the store's own (SQLSTATE, SQLite's extended code).
 */
export class RecordRejectedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "RecordRejectedError";
  }
}

/**
 * The connection was lost while a commit was on its way (its reply never came): the store may
 * have committed the write or not. Only a read after the store answers again tells.
 */
export class CommitUnknownError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`the commit's reply was lost (${message}); whether it was committed is unknown`, options);
    this.name = "CommitUnknownError";
  }
}
