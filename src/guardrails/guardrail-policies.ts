import type { GuardrailPolicyConfig, GuardrailsConfig, RequestPart } from "../config/guardrails-schema.ts";
import { regionOfLocation } from "../shared/provider-region.ts";
import { detectorResolver } from "./detector-catalog.ts";
import type { Detector } from "./detector.ts";

/** A policy ready to apply: its detectors resolved, its conditions as sets. */
export interface Policy {
  readonly id: string;
  readonly detectors: readonly Detector[];
  readonly parts: ReadonlySet<RequestPart>;
  readonly request: GuardrailPolicyConfig["request"];
  readonly answer: GuardrailPolicyConfig["answer"];
  readonly webhook: GuardrailPolicyConfig["webhook"];
  readonly keys: ReadonlySet<string> | undefined;
  readonly projects: ReadonlySet<string> | undefined;
  readonly models: ReadonlySet<string> | undefined;
  /** Target regions, normalized (see sameRegion). */
  readonly regions: ReadonlySet<string> | undefined;
  readonly outsideHomeRegion: boolean;
}

/** Who is calling what: what a policy's key, project and model conditions read. */
export interface Caller {
  readonly keyId: string;
  readonly project: string;
  /** The public model name the caller asked for. */
  readonly model: string;
}

/** A region label as the checks compare it: the geography a cloud location names (`eu-central-1` is `eu`), else the label in lower case. */
export function regionKey(region: string): string {
  return regionOfLocation(region) ?? region.toLowerCase();
}

/** The config's policies, compiled. */
export function compilePolicies(config: GuardrailsConfig): Policy[] {
  const resolve = detectorResolver(config.detectors);
  const set = (list: readonly string[] | undefined) => (list === undefined ? undefined : new Set(list));
  return config.policies.map((policy) => ({
    id: policy.id,
    detectors: resolve(policy.detectors),
    parts: new Set(policy.parts),
    request: policy.request,
    answer: policy.answer,
    webhook: policy.webhook,
    keys: set(policy.match.keys),
    projects: set(policy.match.projects),
    models: set(policy.match.models),
    regions: policy.match.regions === undefined ? undefined : new Set(policy.match.regions.map(regionKey)),
    outsideHomeRegion: policy.match.outsideHomeRegion,
  }));
}

/** Whether a policy's key, project and model conditions hold for `caller` (its region conditions are read per target). */
export function appliesTo(policy: Policy, caller: Caller): boolean {
  return (
    (policy.keys === undefined || policy.keys.has(caller.keyId)) &&
    (policy.projects === undefined || policy.projects.has(caller.project)) &&
    (policy.models === undefined || policy.models.has(caller.model))
  );
}

/**
 * Whether a policy applies to a target in `region` for a key at home in `home` (normalized;
 * undefined: no home region known). A key without a home region is outside it everywhere, so a
 * policy meant for calls leaving home applies rather than silently not.
 */
export function appliesIn(policy: Policy, region: string, home: string | undefined): boolean {
  if (policy.regions !== undefined && !policy.regions.has(region)) return false;
  return !policy.outsideHomeRegion || home === undefined || home !== region;
}

/** A key's home region (normalized): its own, its project's, or the default; undefined when none is configured. */
export function homeRegionOf(config: GuardrailsConfig): (caller: Caller) => string | undefined {
  const keys = new Map(Object.entries(config.homeRegions.keys).map(([id, region]) => [id, regionKey(region)]));
  const projects = new Map(Object.entries(config.homeRegions.projects).map(([id, region]) => [id, regionKey(region)]));
  const fallback = config.homeRegion === undefined ? undefined : regionKey(config.homeRegion);
  return (caller) => keys.get(caller.keyId) ?? projects.get(caller.project) ?? fallback;
}
