import { z } from "zod";
import { positiveInt } from "./schema-numbers.ts";

/** The built-in detectors, by the id a policy names them with (what each matches: docs/guardrails.md). */
export const BUILT_IN_DETECTORS = [
  "email", "phone", "iban", "payment_card", "ip_address",
  "nl_bsn", "es_dni", "it_codice_fiscale", "fr_nir", "de_steuer_id", "be_national_number", "pl_pesel",
  "openai_key", "anthropic_key", "aws_access_key", "github_token", "google_api_key", "stripe_key", "slack_token", "private_key", "jwt",
] as const;
/** One built-in detector id. */
export type BuiltInDetectorId = (typeof BUILT_IN_DETECTORS)[number];

const NATIONAL_IDS = ["nl_bsn", "es_dni", "it_codice_fiscale", "fr_nir", "de_steuer_id", "be_national_number", "pl_pesel"] as const;
const CREDENTIALS = ["openai_key", "anthropic_key", "aws_access_key", "github_token", "google_api_key", "stripe_key", "slack_token", "private_key", "jwt"] as const;

/** Names a policy may use for several built-in detectors at once. */
export const DETECTOR_GROUPS: Readonly<Record<string, readonly BuiltInDetectorId[]>> = {
  contact: ["email", "phone"],
  financial: ["iban", "payment_card"],
  national_ids: NATIONAL_IDS,
  pii: ["email", "phone", "iban", "payment_card", "ip_address", ...NATIONAL_IDS],
  credentials: CREDENTIALS,
};

/** The parts of a request a policy may scan. */
export const REQUEST_PARTS = ["messages", "system", "toolArguments", "toolResults"] as const;
/** One part of a request. */
export type RequestPart = (typeof REQUEST_PARTS)[number];

/** What a policy does with a match in a request. */
export const REQUEST_ACTIONS = ["block", "redact", "pseudonymise", "log"] as const;
/** What a policy does with a match in an answer (pseudonymised values are restored in answers on their own). */
export const ANSWER_ACTIONS = ["block", "redact", "log"] as const;

/** Bounds of a custom pattern, so that no pattern can make a scan slow (see patternProblem). */
export const PATTERN_LIMITS = { maxSource: 500, maxRepeat: 1000, maxPaths: 1024, maxLength: 1024 } as const;

const detectorId = z.string().regex(/^[a-z][a-z0-9_-]*$/, "use lowercase letters, digits, _ and - (starting with a letter)");
const policyId = z.string().regex(/^[A-Za-z0-9_.:-]+$/, "use letters, digits, _ . : -");

/** A detector of the config's own: a bounded regular expression, or a list of words and phrases. */
const customDetectorSchema = z
  .strictObject({
    id: detectorId.describe("the detector's id, used in policies"),
    /** A JavaScript regular expression (see patternProblem for what is refused). */
    pattern: z.string().min(1).optional().describe("a bounded regular expression"),
    ignoreCase: z.boolean().default(false).describe("match the pattern case-insensitively"),
    /** Words or phrases matched as whole words, case-insensitively. */
    words: z.array(z.string().trim().min(1).max(100)).min(1).max(10_000).optional().describe("a word list instead of a pattern"),
    /** The longest match a pattern may have; longer ones are not matches (and a stream holds back this many characters). */
    maxLength: positiveInt.max(PATTERN_LIMITS.maxLength).default(64).describe("the longest match the pattern may make"),
    /** The placeholder's type, e.g. EMPLOYEE_ID for `[EMPLOYEE_ID_1]` (default: the id in capitals, `-` as `_`). */
    placeholder: z.string().regex(/^[A-Z][A-Z0-9_]*$/, "use capitals, digits and _").optional().describe("the placeholder's type: `EMPLOYEE_ID` gives `[EMPLOYEE_ID_1]`"),
  })
  .superRefine((detector, ctx) => {
    if ((detector.pattern === undefined) === (detector.words === undefined)) ctx.addIssue({ code: "custom", message: "set exactly one of pattern and words" });
    if (detector.pattern !== undefined) {
      const problem = patternProblem(detector.pattern);
      if (problem !== undefined) ctx.addIssue({ code: "custom", path: ["pattern"], message: problem });
    }
  });

/** A company's own check (DLP, moderation) a policy calls with the scanned text; see docs/guardrails.md for its protocol. */
const webhookCheckSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).describe("where the call's text is POSTed"),
  /** The call waits at most this long for a verdict (ms). */
  timeoutMs: positiveInt.max(30_000).default(2000).describe("the check's time"),
  /** true: a check that fails or does not answer in time lets the call go on (recorded); default: the call is refused. */
  failOpen: z.boolean().default(false).describe("on a failed check, let the call through instead of refusing it"),
  /** HMAC key the request is signed with (`renio-signature`, as alerts are), usually `${ENV_VAR}`. */
  secret: z.string().min(16, "must be at least 16 characters").optional().describe("HMAC key the check request is signed with (`renio-signature`, as alerts are)"),
});

/** Which calls a policy applies to (every listed condition must hold; an absent one holds for every call). */
const policyMatchSchema = z.strictObject({
  keys: z.array(z.string().min(1)).min(1).optional().describe("key ids, projects, public models, provider regions"),
  projects: z.array(z.string().min(1)).min(1).optional().describe("key ids, projects, public models, provider regions"),
  /** Public model names, as the caller asked for them. */
  models: z.array(z.string().min(1)).min(1).optional().describe("key ids, projects, public models, provider regions"),
  /** Regions of the target the call goes to. */
  regions: z.array(z.string().min(1)).min(1).optional().describe("key ids, projects, public models, provider regions"),
  /** Only when the target's region is not the key's home region (guardrails.homeRegion, homeRegions). */
  outsideHomeRegion: z.boolean().default(false).describe("apply only when the call leaves the key's home region"),
});

const policySchema = z
  .strictObject({
    id: policyId.describe("the policy's name, in errors, the journal and metrics"),
    match: policyMatchSchema.prefault({}).describe("which calls the policy applies to"),
    /** Built-in detector ids, group names (pii, contact, financial, national_ids, credentials) and custom detector ids. */
    detectors: z.array(z.string().min(1)).default([]).describe("built-in detector ids and groups (`pii`, `credentials`, …) or your own ids"),
    /** The parts of a request scanned (default all). */
    parts: z.array(z.enum(REQUEST_PARTS)).min(1).default([...REQUEST_PARTS]).describe("which parts of a request are scanned: `messages`, `system`, `toolArguments`, `toolResults`"),
    /** What a match in the request does; absent: requests are not scanned. */
    request: z.enum(REQUEST_ACTIONS).optional().describe("what a match in the request does: `block`, `redact`, `pseudonymise` or `log`"),
    /** What a match in the answer does; absent: answers are not scanned. */
    answer: z.enum(ANSWER_ACTIONS).optional().describe("what a match in the answer does: `block`, `redact` or `log` (pseudonymised values are restored in answers on their own)"),
    webhook: webhookCheckSchema.optional().describe("an external check (your DLP service)"),
  })
  .superRefine((policy, ctx) => {
    if (policy.request === undefined && policy.answer === undefined) ctx.addIssue({ code: "custom", message: "set `request`, `answer` or both: what a match does" });
    if (policy.detectors.length === 0 && policy.webhook === undefined) ctx.addIssue({ code: "custom", path: ["detectors"], message: "name at least one detector, or set a webhook" });
    if (policy.webhook !== undefined && policy.request === undefined) ctx.addIssue({ code: "custom", path: ["webhook"], message: "a webhook checks requests: set `request`" });
  });

/** The `guardrails` section: detectors of its own, policies, and the keys' home regions. */
export const guardrailsSchema = z
  .strictObject({
    /** The home region of every key not listed in homeRegions (for `match.outsideHomeRegion`). */
    homeRegion: z.string().min(1).optional().describe("the home region of every key, for `match.outsideHomeRegion`"),
    homeRegions: z
      .strictObject({
        keys: z.record(z.string().min(1), z.string().min(1)).default({}).describe("key id or project → region"),
        projects: z.record(z.string().min(1), z.string().min(1)).default({}).describe("key id or project → region"),
      })
      .prefault({}).describe("home regions by key or project, over `homeRegion`"),
    detectors: z.array(customDetectorSchema).default([]).describe("detectors of your own"),
    policies: z.array(policySchema).default([]).describe("policies, applied in order"),
  })
  .superRefine(checkReferences);

/** The validated `guardrails` section. */
export type GuardrailsConfig = z.infer<typeof guardrailsSchema>;
/** One policy as configured. */
export type GuardrailPolicyConfig = GuardrailsConfig["policies"][number];
/** One custom detector as configured. */
export type CustomDetectorConfig = GuardrailsConfig["detectors"][number];

/** Unique ids, detectors that exist, and a home region wherever a policy needs one. */
function checkReferences(section: { detectors: readonly { id: string }[]; policies: readonly GuardrailPolicyConfig[]; homeRegion?: string; homeRegions: { keys: object; projects: object } }, ctx: z.RefinementCtx): void {
  const builtIn = new Set<string>([...BUILT_IN_DETECTORS, ...Object.keys(DETECTOR_GROUPS), "webhook"]);
  const custom = new Set<string>();
  section.detectors.forEach((detector, index) => {
    if (builtIn.has(detector.id)) ctx.addIssue({ code: "custom", path: ["detectors", index, "id"], message: `"${detector.id}" is a built-in detector or group name` });
    else if (custom.has(detector.id)) ctx.addIssue({ code: "custom", path: ["detectors", index, "id"], message: `duplicate detector id "${detector.id}"` });
    custom.add(detector.id);
  });
  const policies = new Set<string>();
  const homes = section.homeRegion !== undefined || Object.keys(section.homeRegions.keys).length > 0 || Object.keys(section.homeRegions.projects).length > 0;
  section.policies.forEach((policy, index) => {
    if (policies.has(policy.id)) ctx.addIssue({ code: "custom", path: ["policies", index, "id"], message: `duplicate policy id "${policy.id}"` });
    policies.add(policy.id);
    policy.detectors.forEach((name, at) => {
      if ((builtIn.has(name) && name !== "webhook") || custom.has(name)) return;
      ctx.addIssue({ code: "custom", path: ["policies", index, "detectors", at], message: `unknown detector "${name}" (built in: ${BUILT_IN_DETECTORS.join(", ")}; groups: ${Object.keys(DETECTOR_GROUPS).join(", ")}; or an id of guardrails.detectors)` });
    });
    if (policy.match.outsideHomeRegion && !homes) {
      ctx.addIssue({ code: "custom", path: ["policies", index, "match", "outsideHomeRegion"], message: "set guardrails.homeRegion (or homeRegions) so that a key has a home region" });
    }
  });
}

/**
 * Why a custom pattern is refused, or undefined. JavaScript's regular expressions backtrack, so
 * a pattern can take time exponential (nested or alternated repetition) or polynomial (several
 * repetitions in a row) in the text it scans. A pattern is accepted only when its cost per
 * starting position is bounded by a constant: no backreferences; no repetition of a group that
 * itself repeats or holds alternatives; every repetition bounded (`{m,n}`, `?`; not `*`, `+` or
 * `{m,}`), at most 1,000; and the product of the ranges of its repetitions (the ways one
 * position can be tried) at most 1,024. It must compile.
 */
export function patternProblem(source: string): string | undefined {
  if (source.length > PATTERN_LIMITS.maxSource) return `longer than ${PATTERN_LIMITS.maxSource} characters`;
  try {
    new RegExp(source, "g");
  } catch (error) {
    return `not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (/\\[1-9]|\\k</.test(source)) return "backreferences are not allowed (they make a scan's time unbounded)";
  /** Per open group: whether it holds a repetition or an alternative. */
  const groups: { repeats: boolean; alternates: boolean }[] = [{ repeats: false, alternates: false }];
  let paths = 1;
  let lastWasGroup: { repeats: boolean; alternates: boolean } | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      i++;
      lastWasGroup = undefined;
      continue;
    }
    if (c === "[") {
      // A character class: skip to its closing bracket (escapes inside included).
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      lastWasGroup = undefined;
      continue;
    }
    if (c === "(") {
      groups.push({ repeats: false, alternates: false });
      // A group's prefix (non-capturing, lookaround, named) is not a quantifier.
      const prefix = /^\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(source.slice(i + 1));
      if (prefix !== null) i += prefix[0].length;
      lastWasGroup = undefined;
      continue;
    }
    if (c === ")") {
      const closed = groups.pop()!;
      if (closed.repeats) groups[groups.length - 1]!.repeats = true;
      lastWasGroup = closed;
      continue;
    }
    if (c === "|") {
      groups[groups.length - 1]!.alternates = true;
      lastWasGroup = undefined;
      continue;
    }
    const repeat = quantifierAt(source, i);
    if (repeat === undefined) {
      lastWasGroup = undefined;
      continue;
    }
    if (repeat.max === Infinity) return `unbounded repetition \`${repeat.text}\` is not allowed: use a bounded one such as {1,${PATTERN_LIMITS.maxRepeat}}`;
    if (repeat.max > PATTERN_LIMITS.maxRepeat) return `repetition \`${repeat.text}\` is above ${PATTERN_LIMITS.maxRepeat}`;
    if (lastWasGroup !== undefined && (lastWasGroup.repeats || lastWasGroup.alternates) && repeat.max > 1) {
      return `a repeated group may not itself repeat or hold alternatives (\`${repeat.text}\` after a group): write it without nesting`;
    }
    groups[groups.length - 1]!.repeats = true;
    paths *= repeat.max - repeat.min + 1;
    if (paths > PATTERN_LIMITS.maxPaths) return `its repetitions allow more than ${PATTERN_LIMITS.maxPaths} ways to match at one position: narrow their ranges`;
    i += repeat.text.length - 1;
    // A lazy or possessive marker after the quantifier.
    if (source[i + 1] === "?") i++;
    lastWasGroup = undefined;
  }
  return undefined;
}

/** The quantifier starting at `i` (`*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}`), or undefined. */
function quantifierAt(source: string, i: number): { text: string; min: number; max: number } | undefined {
  const c = source[i];
  if (c === "*") return { text: "*", min: 0, max: Infinity };
  if (c === "+") return { text: "+", min: 1, max: Infinity };
  if (c === "?") return { text: "?", min: 0, max: 1 };
  if (c !== "{") return undefined;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
  if (match === null) return undefined;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[3] === "" ? Infinity : Number(match[3]);
  return { text: match[0], min, max };
}
