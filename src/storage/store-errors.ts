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
