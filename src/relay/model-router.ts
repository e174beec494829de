import type { Config } from "../config/config-schema.ts";
import type { Provider } from "../providers/provider.ts";
import { createTranslatingProvider } from "../providers/translate/translating-provider.ts";
import { ANTHROPIC_TO_OPENAI, OPENAI_TO_ANTHROPIC } from "../providers/translate/wire-translations.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { WireFormat } from "../shared/usage.ts";
import type { CallerKey } from "./keyring.ts";

/** Where a call goes. */
export interface Target {
  readonly provider: Provider;
  readonly upstreamModel: string;
}

/** Resolves a public model name to a target for a key, a wire format and its region policy. */
export interface ModelRouter {
  resolve(key: CallerKey, model: string, wire: WireFormat): Target;
  /** Public model names a key may call: allowed by its `models`, served in a region it allows. */
  modelsFor(key: CallerKey): string[];
}

/**
 * Precomputes model → targets at startup; per (key, model, wire) answers are cached, per key
 * object: a stored key changed at run time is a new object, so it never meets a stale answer.
 */
export function createModelRouter(config: Config, providers: ReadonlyMap<string, Provider>): ModelRouter {
  const targets = new Map<string, Target[]>();
  for (const [name, entry] of Object.entries(config.models)) {
    const list = (Array.isArray(entry) ? entry : [entry]).flatMap((target) => {
      const provider = providers.get(target.provider)!;
      const upstreamModel = target.model ?? name;
      const direct = { provider, upstreamModel };
      // A provider of one wire format, opted into translation, also serves callers of the other.
      if (!target.translate || provider.wires.size !== 1) return [direct];
      const translation = provider.wires.has("anthropic") ? OPENAI_TO_ANTHROPIC : ANTHROPIC_TO_OPENAI;
      const outputLimit = (config.prices[upstreamModel] ?? config.prices[name])?.maxOutputTokens;
      return [direct, { provider: createTranslatingProvider(provider, translation, { dropUnsupported: target.dropUnsupported, outputLimit }), upstreamModel }];
    });
    targets.set(name, list);
  }
  const cache = new WeakMap<CallerKey, Map<string, Target | RelayError>>();

  const decide = (key: CallerKey, model: string, wire: WireFormat): Target | RelayError => {
    const candidates = targets.get(model);
    if (candidates === undefined) return new RelayError(404, "model_not_found", `The model \`${model}\` does not exist or is not served by this relay`);
    if (key.models !== null && !key.models.has(model)) {
      return new RelayError(403, "model_not_allowed", `Key \`${key.id}\` may not use the model \`${model}\``);
    }
    const speaking = candidates.filter((target) => target.provider.wires.has(wire));
    if (speaking.length === 0) {
      const route = wire === "openai" ? "an Anthropic-style route (/v1/messages)" : "an OpenAI-style route";
      return new RelayError(400, "invalid_request", `The model \`${model}\` is served through ${route}`);
    }
    const allowed = key.regions === null ? speaking : speaking.filter((target) => key.regions!.has(target.provider.region));
    if (allowed.length === 0) {
      return new RelayError(403, "region_not_allowed", `Key \`${key.id}\` may not send data to the region(s) serving \`${model}\` (${[...new Set(speaking.map((t) => t.provider.region))].join(", ")})`);
    }
    return allowed[0]!;
  };

  return {
    resolve(key, model, wire) {
      let decisions = cache.get(key);
      if (decisions === undefined) cache.set(key, (decisions = new Map()));
      const cacheKey = `${wire}\u0000${model}`;
      let decision = decisions.get(cacheKey);
      if (decision === undefined) {
        decision = decide(key, model, wire);
        if (targets.has(model)) decisions.set(cacheKey, decision);
      }
      if (decision instanceof RelayError) throw decision;
      return decision;
    },
    modelsFor(key) {
      const regionAllowed = (target: Target) => key.regions === null || key.regions.has(target.provider.region);
      return [...targets].filter(([model, list]) => (key.models === null || key.models.has(model)) && list.some(regionAllowed)).map(([model]) => model);
    },
  };
}
