import type { GuardrailsConfig } from "../config/guardrails-schema.ts";
import { GuardedCall } from "./guarded-call.ts";
import { appliesIn, appliesTo, compilePolicies, homeRegionOf, regionKey, type Caller, type Policy } from "./guardrail-policies.ts";
import { askWebhooks, evaluate, readRequest, type Evaluation } from "./request-guard.ts";

/** The config's guardrail policies, compiled; part of the relay's snapshot (a reload replaces it). */
export interface Guardrails {
  /** The guard of a call, or undefined when no policy can apply to its key, project and model (nothing is scanned). */
  forCall(caller: Caller): CallGuard | undefined;
}

/** The policies that may apply to one call, before its body is read. */
export interface CallGuard {
  /**
   * Scans the request once per set of policies that apply in the targets' regions (asking each
   * policy's webhook once); throws RelayError 400 for a body it cannot scan whole.
   */
  request(body: Uint8Array<ArrayBuffer>, path: string, regions: readonly string[]): Promise<GuardedCall>;
}

/** What createGuardrails needs besides the config. */
export interface GuardrailsOptions {
  /** How webhooks are called (default: the runtime's fetch). */
  readonly fetch?: typeof fetch;
}

/** Compiles the `guardrails` section; undefined when it has no policy (the relay then pays nothing per call). */
export function createGuardrails(config: GuardrailsConfig, options: GuardrailsOptions = {}): Guardrails | undefined {
  if (config.policies.length === 0) return undefined;
  const policies = compilePolicies(config);
  const homeOf = homeRegionOf(config);
  return {
    forCall(caller) {
      const candidates = policies.filter((policy) => appliesTo(policy, caller));
      if (candidates.length === 0) return undefined;
      const home = homeOf(caller);
      return { request: (body, path, regions) => guardRequest(candidates, home, body, path, regions, options.fetch) };
    },
  };
}

async function guardRequest(candidates: readonly Policy[], home: string | undefined, body: Uint8Array<ArrayBuffer>, path: string, regions: readonly string[], fetchImpl: typeof fetch | undefined): Promise<GuardedCall> {
  const request = readRequest(body, path);
  // The policies in force per region, grouped: regions with the same policies share one evaluation.
  const sets = new Map<string, Policy[]>();
  const setOf = new Map<string, string>();
  for (const region of new Set(regions)) {
    const key = regionKey(region);
    const applying = candidates.filter((policy) => appliesIn(policy, key, home));
    const id = applying.map((policy) => policy.id).join("\u0000");
    sets.set(id, applying);
    setOf.set(region, id);
  }
  const verdicts = await askWebhooks([...new Set([...sets.values()].flat())], request, fetchImpl);
  const evaluations = new Map<string, Evaluation>([...sets].map(([id, applying]) => [id, evaluate(applying, request, verdicts)]));
  const journalDetectors = [...new Set(candidates.flatMap((policy) => policy.detectors))];
  return new GuardedCall(request, new Map([...setOf].map(([region, id]) => [region, evaluations.get(id)!])), path, journalDetectors);
}
