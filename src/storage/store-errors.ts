import { StoreOpenError } from "../shared/store-open-error.ts";
/** The database was written by a newer Renio. */
export class SchemaTooNewError extends StoreOpenError {
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(`the database schema is version ${found}, newer than this Renio supports (${supported}); upgrade Renio or use another database`);
    this.name = "SchemaTooNewError";
  }
}

/** Message and code of an unknown thrown value. */
export function describeError(error: unknown): { message: string; code: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { message: error.message, code: typeof code === "string" ? code : "" };
  }
  return { message: String(error), code: "" };
}

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
