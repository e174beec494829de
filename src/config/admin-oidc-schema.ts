import { z } from "zod";
import { nameText } from "./schema-text.ts";

/** The path the relay answers an identity provider's redirect on; `redirectUrl` must end with it. */
export const OIDC_CALLBACK_PATH = "/dashboard/auth/callback";

const claimValues = z.array(nameText(256)).min(1);

/**
 * Sign-in to the dashboard and the admin API with an OpenID Connect provider (authorization
 * code flow with PKCE). Who signs in gets the admin roles whose claim values they carry.
 */
export const adminOidcSchema = z.strictObject({
  /** The provider's issuer URL (its discovery document is `<issuer>/.well-known/openid-configuration`). */
  issuer: z.url({ protocol: /^https?$/ }),
  clientId: z.string().min(1).max(256),
  /** The client's secret (usually `${ENV_VAR}`); absent: a public client (PKCE alone). */
  clientSecret: z.string().min(1).optional(),
  /** The external URL of the relay's callback, registered at the provider: `https://<host>/dashboard/auth/callback`. */
  redirectUrl: z
    .url({ protocol: /^https?$/ })
    .refine((url) => new URL(url).pathname === OIDC_CALLBACK_PATH, `must end with the path ${OIDC_CALLBACK_PATH}`),
  /** Scopes asked for besides `openid`. */
  scopes: z.array(z.string().regex(/^[\x21-\x7e]+$/, "a scope is visible ASCII without spaces")).default(["email", "profile"]),
  /** The ID token claim holding the person's groups (a string or a list of strings). */
  rolesClaim: nameText(128).default("groups"),
  /** Admin role → the claim values that grant it (e.g. `admin: [platform-admins]`, `read: [engineers]`). */
  roles: z
    .strictObject({
      read: claimValues.optional(),
      keys: claimValues.optional(),
      budgets: claimValues.optional(),
      admin: claimValues.optional(),
    })
    .refine((roles) => Object.keys(roles).length > 0, "map at least one role (read, keys, budgets, admin) to claim values"),
  /** Claim values one of which a person must carry to sign in at all (absent: any that maps to a role). */
  allowedGroups: claimValues.optional(),
  /** How long a session lasts after sign-in (seconds; default 8 hours). */
  sessionTtlSeconds: z.number().int().min(60).max(7 * 24 * 3600).default(8 * 3600),
});

/** `server.admin.oidc`. */
export type AdminOidcConfig = z.output<typeof adminOidcSchema>;
