/** Token usage reported by a provider, normalized across wire formats. */
export interface Usage {
  /** Input tokens billed at the full input price (cached ones excluded). */
  inputTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  cachedInputTokens: number;
  outputTokens: number;
}

/** The wire format a route and a provider speak. */
export type WireFormat = "openai" | "anthropic";
