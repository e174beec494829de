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
  issuer: z.url({ protocol: /^https?$/ }).describe("the provider's issuer URL; its discovery document must name the same issuer"),
  clientId: z.string().min(1).max(256).describe("the client id registered at the provider"),
  /** The client's secret (usually `${ENV_VAR}`); absent: a public client (PKCE alone). */
  clientSecret: z.string().min(1).optional().describe("the client's secret (`${ENV}`), sent by HTTP Basic to the token endpoint; absent: a public client (PKCE alone)"),
  /** The external URL of the relay's callback, registered at the provider: `https://<host>/dashboard/auth/callback`. */
  redirectUrl: z
    .url({ protocol: /^https?$/ })
    .refine((url) => new URL(url).pathname === OIDC_CALLBACK_PATH, `must end with the path ${OIDC_CALLBACK_PATH}`)
    .describe("the external URL of `/dashboard/auth/callback`, registered at the provider; https makes the session cookie `Secure` (`__Host-renio_session`)"),
  /** Scopes asked for besides `openid`. */
  scopes: z.array(z.string().regex(/^[\x21-\x7e]+$/, "a scope is visible ASCII without spaces")).default(["email", "profile"]).describe("scopes asked for besides `openid` (add the one that puts your groups claim in the ID token, e.g. `groups`)"),
  /** The ID token claim holding the person's groups (a string or a list of strings). */
  rolesClaim: nameText(128).default("groups").describe("the ID token claim (a string or a list of strings) whose values grant roles"),
  /** Admin role → the claim values that grant it (e.g. `admin: [platform-admins]`, `read: [engineers]`). */
  roles: z
    .strictObject({
      read: claimValues.optional().describe("claim values granting `read` (a viewer: every admin `GET`)"),
      keys: claimValues.optional().describe("claim values granting `keys`"),
      budgets: claimValues.optional().describe("claim values granting `budgets`"),
      admin: claimValues.optional().describe("claim values granting `admin` (everything)"),
    })
    .refine((roles) => Object.keys(roles).length > 0, "map at least one role (read, keys, budgets, admin) to claim values")
    .describe('admin role → the claim values that grant it, e.g. `{ "admin": ["platform-admins"], "read": ["engineers"] }`; at least one role'),
  /** Claim values one of which a person must carry to sign in at all (absent: everyone granted a role may). */
  allowedGroups: claimValues.optional().describe("claim values one of which a person must carry to sign in at all; absent: anyone granted a role"),
  /** How long a session lasts after sign-in (seconds; default 8 hours). */
  sessionTtlSeconds: z.number().int().min(60).max(7 * 24 * 3600).default(8 * 3600).describe("how long a session lasts after sign-in (60 s to 7 days); the cookie's `Max-Age`"),
});

/** `server.admin.oidc`. */
export type AdminOidcConfig = z.output<typeof adminOidcSchema>;
