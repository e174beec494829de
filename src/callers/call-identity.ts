import { END_USER_SOURCES, type EndUserSource } from "../config/attribution-schema.ts";
import type { KeyConfig } from "../config/config-schema.ts";
import { TEXT_BOUNDS, textProblem } from "../shared/input-text.ts";
import { RelayError } from "../shared/relay-error.ts";

/** The header naming a call's end user. */
export const END_USER_HEADER = "x-renio-end-user";
/** The header carrying a call's tags: `name=value` pairs separated by commas. */
export const TAGS_HEADER = "x-renio-tags";
/** The most tags one call may carry. */
const MAX_TAGS = 16;

/** The request fields that may name the end user or carry tags (request-body.ts reads them). */
export interface IdentityFields {
  /** OpenAI `user`. */
  user?: string;
  /** OpenAI `safety_identifier`. */
  safetyIdentifier?: string;
  /** Anthropic `metadata.user_id`. */
  metadataUserId?: string;
  /** The request's `metadata` members whose values are strings. */
  metadata?: ReadonlyMap<string, string>;
}

/** Who a call is for: its key's project's team, its end user (within that project) and its allowed tags. */
export interface CallerIdentity {
  team: string | null;
  endUser: string | null;
  tags: Array<[string, string]>;
}

/** What a key allows its calls to say about who they are for. */
interface IdentityPolicy {
  sources: readonly EndUserSource[];
  allow: ReadonlyMap<string, ReadonlySet<string>>;
  unknown: "refuse" | "drop";
}

/** Resolves who each call is for, by its key's policy (precomputed from config keys; keys created at run time take the default). */
export interface CallerIdentities {
  identify(key: { id: string; project: string }, headers: Headers, fields: IdentityFields): CallerIdentity;
}

const DEFAULT_POLICY: IdentityPolicy = { sources: END_USER_SOURCES, allow: new Map(), unknown: "refuse" };

/** Builds the per-key policies once; `teamOf` names a project's team. */
export function createCallerIdentities(keys: readonly KeyConfig[], teamOf: (project: string) => string | null): CallerIdentities {
  const policies = new Map<string, IdentityPolicy>();
  for (const key of keys) {
    const allow = new Map<string, ReadonlySet<string>>();
    for (const [name, values] of key.tags?.allow ?? []) allow.set(name, new Set(values));
    policies.set(key.id, { sources: key.endUser ?? END_USER_SOURCES, allow, unknown: key.tags?.unknown ?? "refuse" });
  }
  return {
    identify(key, headers, fields) {
      const policy = policies.get(key.id) ?? DEFAULT_POLICY;
      return { team: teamOf(key.project), endUser: endUserOf(policy.sources, headers, fields), tags: tagsOf(policy, headers.get(TAGS_HEADER), fields.metadata) };
    },
  };
}

const FIELD_NAMES: Readonly<Record<EndUserSource, string>> = {
  header: `header \`${END_USER_HEADER}\``,
  user: "`user` field",
  safety_identifier: "`safety_identifier` field",
  "metadata.user_id": "`metadata.user_id` field",
};

/** The end user from the first of `sources` the call fills; a 400 naming the field when it breaks the input rules. */
function endUserOf(sources: readonly EndUserSource[], headers: Headers, fields: IdentityFields): string | null {
  for (const source of sources) {
    const value = source === "header" ? headers.get(END_USER_HEADER) : source === "user" ? fields.user : source === "safety_identifier" ? fields.safetyIdentifier : fields.metadataUserId;
    if (value === undefined || value === null || value === "") continue;
    const problem = textProblem(value, TEXT_BOUNDS.name);
    if (problem !== undefined) throw new RelayError(400, "invalid_end_user", `The end user in the ${FIELD_NAMES[source]} ${problem}`);
    return value;
  }
  return null;
}

/**
 * The call's tags: the header's `name=value` pairs, then the `metadata` members named in the
 * key's allowlist (other metadata is the provider's, not tags). A header tag outside the
 * allowlist is refused (400 `tag_not_allowed`) or dropped, as the key says; so is a metadata
 * member with a value not allowed.
 */
function tagsOf(policy: IdentityPolicy, header: string | null, metadata: ReadonlyMap<string, string> | undefined): Array<[string, string]> {
  const tags = new Map<string, string>();
  const add = (name: string, value: string, from: string) => {
    if (policy.allow.get(name)?.has(value) === true) {
      tags.set(name, value);
      return;
    }
    if (policy.unknown === "drop") return;
    const names = [...policy.allow.keys()];
    const allowed = names.length === 0 ? "this key allows no tags" : `this key allows ${names.map((n) => `\`${n}\``).join(", ")} with the values set in its \`tags.allow\``;
    throw new RelayError(400, "tag_not_allowed", `The tag \`${shown(name)}=${shown(value)}\` (${from}) is not allowed: ${allowed}; remove it or add it to the key's \`tags.allow\``);
  };
  if (metadata !== undefined && policy.allow.size > 0) {
    for (const name of policy.allow.keys()) {
      const value = metadata.get(name);
      if (value !== undefined) add(name, value, "request `metadata`");
    }
  }
  if (header !== null && header.trim() !== "") {
    const parts = header.split(",");
    if (parts.length > MAX_TAGS) throw new RelayError(400, "invalid_tags", `The header \`${TAGS_HEADER}\` carries ${parts.length} tags; the limit is ${MAX_TAGS}`);
    for (const part of parts) {
      const at = part.indexOf("=");
      const name = part.slice(0, at).trim();
      const value = part.slice(at + 1).trim();
      if (at < 0 || name === "" || value === "") throw new RelayError(400, "invalid_tags", `The header \`${TAGS_HEADER}\` must hold \`name=value\` pairs separated by commas, got \`${shown(part.trim())}\``);
      add(name, value, `header \`${TAGS_HEADER}\``);
    }
  }
  return [...tags].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Outside text shown in a message: at most 64 characters, control characters as `?` (headers hold none; metadata may). */
function shown(text: string): string {
  const head = text.length > 64 ? `${text.slice(0, 64)}…` : text;
  return head.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
}
