import type { Config, ModelEntryConfig, ModelTargetConfig } from "./config-schema.ts";

/**
 * A model entry in one shape, whichever way it was written (one target, a list, or the object
 * form), with `routing` defaults filled in. Read by the config checks and the model router.
 */
export interface ModelRouteConfig {
  /** The targets, each with its priority group decided. */
  readonly targets: ReadonlyArray<ModelTargetConfig & { readonly priority: number }>;
  readonly fallbacks: readonly string[];
  readonly contextFallback: string | undefined;
  readonly strategy: "weighted" | "least-busy";
  readonly retry: RetrySettings;
  /** The call's total deadline (ms). */
  readonly timeoutMs: number;
  /** The model's default connect / first-byte timeouts (its targets' own win; else the provider's). */
  readonly connectTimeoutMs: number | undefined;
  readonly firstByteTimeoutMs: number | undefined;
  /** Where target `index` is in the config (for problems). */
  targetPath(index: number): PropertyKey[];
}

/** A model's retry policy, defaults applied. */
export interface RetrySettings {
  /** Attempts on the model's own targets, the first included. */
  readonly maxAttempts: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly maxRetryAfterMs: number;
  /** Attempts after possibly billed ones the reservation makes room for. */
  readonly billedRetries: number;
}

/** The entry of model `name` in one shape; undefined when no such model is configured. */
export function modelRouteOf(config: Config, name: string): ModelRouteConfig | undefined {
  const entry = config.models.get(name);
  return entry === undefined ? undefined : normalize(config, name, entry);
}

function normalize(config: Config, name: string, entry: ModelEntryConfig): ModelRouteConfig {
  const defaults = config.routing;
  if (Array.isArray(entry) || !("targets" in entry)) {
    // A plain list is an ordered failover: without priorities of their own, earlier targets rank higher.
    const targets = Array.isArray(entry) ? entry.map((target, index) => ({ ...target, priority: target.priority ?? -index })) : [{ ...entry, priority: entry.priority ?? 0 }];
    return {
      targets,
      fallbacks: [],
      contextFallback: undefined,
      strategy: "weighted",
      retry: { ...defaults.retry, maxAttempts: defaults.retry.maxAttempts ?? targets.length },
      timeoutMs: defaults.timeoutMs,
      connectTimeoutMs: undefined,
      firstByteTimeoutMs: undefined,
      targetPath: (index) => (Array.isArray(entry) ? ["models", name, index] : ["models", name]),
    };
  }
  const own = entry.retry ?? {};
  return {
    targets: entry.targets.map((target) => ({ ...target, priority: target.priority ?? 0 })),
    fallbacks: entry.fallbacks,
    contextFallback: entry.contextFallback,
    strategy: entry.strategy,
    retry: {
      maxAttempts: own.maxAttempts ?? defaults.retry.maxAttempts ?? entry.targets.length,
      backoffMs: own.backoffMs ?? defaults.retry.backoffMs,
      maxBackoffMs: own.maxBackoffMs ?? defaults.retry.maxBackoffMs,
      maxRetryAfterMs: own.maxRetryAfterMs ?? defaults.retry.maxRetryAfterMs,
      billedRetries: own.billedRetries ?? defaults.retry.billedRetries,
    },
    timeoutMs: entry.timeoutMs ?? defaults.timeoutMs,
    connectTimeoutMs: entry.connectTimeoutMs,
    firstByteTimeoutMs: entry.firstByteTimeoutMs,
    targetPath: (index) => ["models", name, "targets", index],
  };
}
