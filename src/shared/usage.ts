/** Server-side tools a provider runs itself and bills per use (the request's `tools[].type`, dated variants aside). */
export const SERVER_TOOL_KINDS = ["web_search", "web_fetch", "file_search", "code_interpreter", "code_execution"] as const;
export type ServerToolKind = (typeof SERVER_TOOL_KINDS)[number];

/**
 * Token usage reported by a provider, normalized across wire formats.
 *
 * The three counts are always present. The optional fields refine them and are present only
 * when the provider reported a non-zero value: they are parts of the counts, never added to them.
 */
export interface Usage {
  /** Input tokens billed at the full input price or above (cached reads excluded; cache writes and audio included). */
  inputTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  cachedInputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`: written to the prompt cache for 5 minutes (Anthropic). */
  cacheWrite5mTokens?: number;
  /** Of `inputTokens`: written to the prompt cache for 1 hour (Anthropic). */
  cacheWrite1hTokens?: number;
  /** Of `inputTokens`: audio (OpenAI `prompt_tokens_details.audio_tokens`). */
  audioInputTokens?: number;
  /** Of `outputTokens`: audio (OpenAI `completion_tokens_details.audio_tokens`). */
  audioOutputTokens?: number;
  /** The service tier the provider says served the call (OpenAI `service_tier`), when not the default. */
  serviceTier?: string;
  /** The model the provider says answered (the response's `model`), when it named one. */
  responseModel?: string;
  /** Uses of server-side tools billed per use, by kind. */
  toolUses?: Partial<Record<ServerToolKind, number>>;
}

/**
 * Output tokens reserved when neither the request nor the price sets a maximum; a translated
 * request that needs a maximum (Anthropic's `max_tokens`) and has no reserved bound asks for
 * this one, so what is sent never exceeds what pricing reserves.
 */
export const DEFAULT_OUTPUT_RESERVATION = 4096;

/** The wire format a route and a provider speak. */
export type WireFormat = "openai" | "anthropic";
