import { didYouMean } from "../shared/did-you-mean.ts";
import type { Config } from "../config/config-schema.ts";
import { defaultOutputTokens } from "../budgets/default-output.ts";
import { modelRouteOf, type ModelRouteConfig } from "../config/model-routes.ts";
import type { Provider } from "../providers/provider.ts";
import { createTranslatingProvider } from "../providers/translation/translating-provider.ts";
import { ANTHROPIC_TO_OPENAI, OPENAI_TO_ANTHROPIC } from "../providers/translation/wire-translations.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { WireFormat } from "../shared/usage.ts";
import type { CallerKey } from "../keys/keyring.ts";
import type { RoutePlan, RouteStage, Target } from "./route-plan.ts";
import { createTargetHealthBook, usable, type TargetHealthBook } from "./target-health.ts";

export type { RoutePlan, RouteStage, Target } from "./route-plan.ts";

/** Resolves a public model name to its route for a key, a wire format and its region policy. */
export interface ModelRouter {
  resolve(key: CallerKey, model: string, wire: WireFormat): RoutePlan;
  /** Public model names a key may call on routes of `wire`: allowed by its `models`, served on that wire (translation included) in a region it allows. */
  modelsFor(key: CallerKey, wire: WireFormat): string[];
  /** Every configured target, by model in config order. */
  targets(): readonly Target[];
  /** Models none of whose targets a call may use at `now` (epoch ms): all cooling down. */
  coolingDown(now: number): string[];
}

/** One configured model: its settings and its targets. */
interface ModelTargets {
  readonly route: ModelRouteConfig;
  readonly targets: readonly Target[];
}

/**
 * Precomputes model → targets at startup; per (key, model, wire) plans are cached, per key
 * object: a stored key changed at run time is a new object, so it never meets a stale plan.
 * Targets share their health (`health`, kept across reloads) by provider and upstream model.
 */
export function createModelRouter(config: Config, providers: ReadonlyMap<string, Provider>, health: TargetHealthBook = createTargetHealthBook()): ModelRouter {
  const models = new Map<string, ModelTargets>();
  const outputDefault = defaultOutputTokens(config.budget.defaultOutputTokens);
  for (const name of config.models.keys()) {
    const route = modelRouteOf(config, name)!;
    const targets = route.targets.flatMap((target, slot): Target[] => {
      const provider = providers.get(target.provider)!;
      const upstreamModel = target.model ?? name;
      const direct: Target = {
        provider,
        upstreamModel,
        model: name,
        weight: target.weight,
        priority: target.priority,
        connectTimeoutMs: target.connectTimeoutMs ?? route.connectTimeoutMs ?? provider.connectTimeoutMs,
        firstByteTimeoutMs: target.firstByteTimeoutMs ?? route.firstByteTimeoutMs ?? provider.firstByteTimeoutMs,
        health: health.of(provider.id, upstreamModel),
        slot,
      };
      // A provider of one wire format, opted into translation, also serves callers of the other
      // (the same target for health and cooldown: only one of the two speaks a call's wire).
      if (!target.translate || provider.wires.size !== 1) return [direct];
      const translation = provider.wires.has("anthropic") ? OPENAI_TO_ANTHROPIC : ANTHROPIC_TO_OPENAI;
      // The output limit a translated call that sets none gets: the operator's default, never above the model's maximum.
      const maximum = (config.prices.get(upstreamModel) ?? config.prices.get(name))?.maxOutputTokens;
      const chosen = outputDefault(name, upstreamModel);
      const outputLimit = chosen === undefined ? maximum : Math.min(chosen, maximum ?? chosen);
      return [direct, { ...direct, provider: createTranslatingProvider(provider, translation, { dropUnsupported: target.dropUnsupported, outputLimit }) }];
    });
    models.set(name, { route, targets });
  }
  const cache = new WeakMap<CallerKey, Map<string, RoutePlan | RelayError>>();
  // A key's permissions hold for every model that serves its call, fallbacks included: its models, its regions.
  const allowedBy = (key: CallerKey, wire: WireFormat) => (target: Target) =>
    target.provider.wires.has(wire) && (key.models === null || key.models.has(target.model)) && (key.regions === null || key.regions.has(target.provider.region));

  /**
   * The stages of `model` and its fallbacks (depth first, each model once) a key may use: a
   * model the key may not call serves none of its calls, but the chain goes on through its fallbacks.
   */
  const stagesOf = (model: string, allowed: (target: Target) => boolean, seen: Set<string>): RouteStage[] => {
    if (seen.has(model)) return [];
    seen.add(model);
    const entry = models.get(model);
    if (entry === undefined) return [];
    const { route } = entry;
    const usableTargets = entry.targets.filter(allowed);
    const stages: RouteStage[] = [];
    if (usableTargets.length > 0) {
      const priorities = [...new Set(usableTargets.map((t) => t.priority))].sort((a, b) => b - a);
      stages.push({
        model,
        groups: priorities.map((priority) => usableTargets.filter((t) => t.priority === priority)),
        leastBusy: route.strategy === "least-busy",
        retry: route.retry,
        contextFallback: route.contextFallback === undefined ? undefined : stagesOf(route.contextFallback, allowed, new Set([model])),
      });
    }
    for (const fallback of route.fallbacks) stages.push(...stagesOf(fallback, allowed, seen));
    return stages;
  };

  const decide = (key: CallerKey, model: string, wire: WireFormat): RoutePlan | RelayError => {
    const entry = models.get(model);
    if (entry === undefined) {
      const known = [...models.keys()].filter((name) => key.models === null || key.models.has(name));
      return new RelayError(404, "model_not_found", `The model \`${model}\` does not exist or is not served by this relay${didYouMean(model, known)}; GET /v1/models lists the models this key may call`);
    }
    if (key.models !== null && !key.models.has(model)) {
      return new RelayError(403, "model_not_allowed", `Key \`${key.id}\` may not use the model \`${model}\`${didYouMean(model, [...key.models])}; GET /v1/models lists the models it may call, and an operator can change the key's \`models\``);
    }
    const speaking = entry.targets.filter((target) => target.provider.wires.has(wire));
    if (speaking.length === 0) {
      const route = wire === "openai" ? "an Anthropic-style route (/v1/messages)" : "an OpenAI-style route";
      return new RelayError(400, "invalid_request", `The model \`${model}\` is served through ${route}`);
    }
    if (key.regions !== null && !speaking.some((target) => key.regions!.has(target.provider.region))) {
      return new RelayError(403, "region_not_allowed", `Key \`${key.id}\` may not send data to the region(s) serving \`${model}\` (${[...new Set(speaking.map((t) => t.provider.region))].join(", ")}); it allows ${[...key.regions].join(", ")}: an operator can add a target in one of those or widen the key's \`regions\``);
    }
    const stages = stagesOf(model, allowedBy(key, wire), new Set());
    const targets = new Set<Target>();
    const collect = (list: readonly RouteStage[]): void => {
      for (const stage of list) {
        for (const group of stage.groups) for (const target of group) targets.add(target);
        if (stage.contextFallback !== undefined) collect(stage.contextFallback);
      }
    };
    collect(stages);
    return { model, stages, timeoutMs: entry.route.timeoutMs, targets: [...targets] };
  };

  const everyTarget = [...models.values()].flatMap((entry) => entry.targets);
  return {
    resolve(key, model, wire) {
      let decisions = cache.get(key);
      if (decisions === undefined) cache.set(key, (decisions = new Map()));
      const cacheKey = `${wire}\u0000${model}`;
      let decision = decisions.get(cacheKey);
      if (decision === undefined) {
        decision = decide(key, model, wire);
        if (models.has(model)) decisions.set(cacheKey, decision);
      }
      if (decision instanceof RelayError) throw decision;
      return decision;
    },
    modelsFor(key, wire) {
      const serves = (target: Target) => target.provider.wires.has(wire) && (key.regions === null || key.regions.has(target.provider.region));
      return [...models].filter(([model, entry]) => (key.models === null || key.models.has(model)) && entry.targets.some(serves)).map(([model]) => model);
    },
    targets: () => everyTarget,
    coolingDown(now) {
      return [...models].filter(([, entry]) => !entry.targets.some((target) => usable(target.health, now))).map(([model]) => model);
    },
  };
}
