import { didYouMean } from "../shared/did-you-mean.ts";
import type { WireFormat } from "../shared/usage.ts";
import type { ConfigProblem } from "./config-error.ts";
import type { Config, ModelTargetConfig, ProviderConfig } from "./config-schema.ts";
import { modelRouteOf, type ModelRouteConfig } from "./model-routes.ts";

/** The wire formats each provider type speaks (the providers' own `wires`, known to the config checks). */
export const PROVIDER_WIRES: Readonly<Record<ProviderConfig["type"], readonly WireFormat[]>> = {
  openai: ["openai"],
  anthropic: ["anthropic"],
  azure: ["openai"],
  gemini: ["openai"],
  bedrock: ["openai"],
  mock: ["openai", "anthropic"],
};

/**
 * The routing checks zod cannot express: every target names a configured provider; fallbacks
 * name configured models, never loop and speak the model's wire format; a model's targets
 * share a wire format.
 */
export function checkRouting(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [id, provider] of config.providers) {
    if (provider.type === "mock" && provider.baseUrl !== undefined && provider.faults !== undefined) {
      problems.push({ path: ["providers", id, "faults"], message: "a fault script runs in the in-process mock only; a `renio mock` at baseUrl takes its script from POST /_mock/script" });
    }
  }
  const routes = new Map<string, ModelRouteConfig>();
  for (const name of config.models.keys()) routes.set(name, modelRouteOf(config, name)!);
  const wires = new Map<string, ReadonlySet<WireFormat>>();
  for (const [name, route] of routes) {
    const known = route.targets.every((target, index) => {
      if (config.providers.has(target.provider)) return true;
      problems.push({ path: [...route.targetPath(index), "provider"], message: `unknown provider "${target.provider}" (configured: ${[...config.providers.keys()].join(", ") || "none"})${didYouMean(target.provider, [...config.providers.keys()])}` });
      return false;
    });
    if (!known) continue;
    const shared = sharedWires(config, route.targets);
    if (shared.size === 0) {
      const spoken = route.targets.map((t) => `${t.provider}: ${wiresOf(config, t).join(", ")}`).join("; ");
      problems.push({ path: ["models", name], message: `the targets speak different wire formats (${spoken}); every target of a model must speak one the others do` });
    }
    wires.set(name, shared);
  }
  for (const [name, route] of routes) {
    const links: Array<[PropertyKey[], string]> = route.fallbacks.map((fallback, index) => [["models", name, "fallbacks", index], fallback]);
    if (route.contextFallback !== undefined) links.push([["models", name, "contextFallback"], route.contextFallback]);
    for (const [path, fallback] of links) {
      if (!routes.has(fallback)) {
        problems.push({ path, message: `unknown model "${fallback}"${didYouMean(fallback, [...routes.keys()])}` });
        continue;
      }
      const loop = loopThrough(routes, name, fallback);
      if (loop !== undefined) problems.push({ path, message: `fallback loop: ${loop.join(" → ")}` });
      const own = wires.get(name);
      const theirs = wires.get(fallback);
      if (own !== undefined && theirs !== undefined && own.size > 0 && theirs.size > 0 && ![...own].some((wire) => theirs.has(wire))) {
        problems.push({ path, message: `"${fallback}" is served through ${[...theirs].join(", ")} and "${name}" through ${[...own].join(", ")}: a fallback must speak the model's wire format` });
      }
    }
  }
  return problems;
}

/** The wire formats one target speaks (both, when it translates). */
function wiresOf(config: Config, target: ModelTargetConfig): readonly WireFormat[] {
  return target.translate ? ["openai", "anthropic"] : PROVIDER_WIRES[config.providers.get(target.provider)!.type];
}

/** The wire formats every one of `targets` speaks. */
function sharedWires(config: Config, targets: readonly ModelTargetConfig[]): Set<WireFormat> {
  let shared = new Set(wiresOf(config, targets[0]!));
  for (const target of targets.slice(1)) {
    const own = wiresOf(config, target);
    shared = new Set([...shared].filter((wire) => own.includes(wire)));
  }
  return shared;
}

/** The chain `from → next → … → from` when following `next`'s fallbacks leads back to `from`. */
function loopThrough(routes: ReadonlyMap<string, ModelRouteConfig>, from: string, next: string): string[] | undefined {
  const seen = new Set<string>();
  const walk = (name: string, chain: string[]): string[] | undefined => {
    if (name === from) return chain;
    if (seen.has(name)) return undefined;
    seen.add(name);
    const route = routes.get(name);
    if (route === undefined) return undefined;
    for (const fallback of [...route.fallbacks, ...(route.contextFallback === undefined ? [] : [route.contextFallback])]) {
      const found = walk(fallback, [...chain, fallback]);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(next, [from, next]);
}
