import type { JWTPayload } from "jose";
import { ADMIN_ROLES, type AdminRole } from "../../config/config-schema.ts";
import type { AdminOidcConfig } from "../../config/admin-oidc-schema.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { AdminActor } from "./admin-auth.ts";

/**
 * Who an ID token names, as an admin actor: `oidc:<email>` (or `oidc:<sub>` without an email),
 * with the roles whose claim values (`rolesClaim`) the person carries. Refused (403) when
 * `allowedGroups` is set and the person carries none of them, or when no role is granted.
 */
export function actorOfClaims(claims: JWTPayload, config: AdminOidcConfig): AdminActor {
  const person = typeof claims.email === "string" && claims.email !== "" ? claims.email : String(claims.sub);
  const carried = claimValues(new Map(Object.entries(claims)).get(config.rolesClaim));
  if (config.allowedGroups !== undefined && !config.allowedGroups.some((group) => carried.has(group))) {
    throw new RelayError(403, "forbidden", `${person} is in none of the groups allowed to sign in (server.admin.oidc.allowedGroups)`);
  }
  const roles = new Set<AdminRole>(ADMIN_ROLES.filter((role) => config.roles[role]?.some((value) => carried.has(value))));
  if (roles.size === 0) {
    throw new RelayError(403, "forbidden", `${person} carries no claim value mapped to a role (server.admin.oidc.roles, claim \`${config.rolesClaim}\`)`);
  }
  return { id: `oidc:${person}`, roles };
}

/** A claim holding a string or a list of strings, as a set (anything else: empty). */
function claimValues(claim: unknown): ReadonlySet<string> {
  if (typeof claim === "string") return new Set([claim]);
  if (Array.isArray(claim)) return new Set(claim.filter((value): value is string => typeof value === "string"));
  return new Set();
}
