/** How a caller's request is translated into a provider's format, and what is refused. */

/** A request the provider's format cannot express: the parameter at fault and why (answered 400 in the caller's envelope, naming it). */
export class UntranslatableError extends Error {
  constructor(readonly param: string, message: string) {
    super(message);
  }
}

/** How to translate one call between the OpenAI and Anthropic formats. */
export interface RequestTranslation {
  /** Drop parameters with no equivalent in the provider's format instead of refusing the call. */
  readonly dropUnsupported: boolean;
  /** The output limit to send when the caller set none (the relay's reserved bound, else the model's maximum). */
  readonly outputLimit: number | undefined;
}
