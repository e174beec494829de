import type { Config } from "../config/config-schema.ts";
import type { EmbeddedAdminToken } from "./serve-admin-token.ts";

/** How the embedded default got its admin token: generated (or kept) beside its store, or from the environment. */
export interface EmbeddedSignIn {
  readonly generated: EmbeddedAdminToken | undefined;
  /** The variable that gave the token, when it came from the environment. */
  readonly fromEnv: string | undefined;
}

/**
 * The banner's lines about the dashboard and /metrics: where they are and how to sign in, or how to
 * turn them on. A generated admin token is shown only by the run that created it; later runs say
 * which file keeps it.
 */
export function signInLines(service: { readonly url: string; readonly adminUrl: string | undefined }, config: Config, embedded: EmbeddedSignIn | undefined): string[] {
  const admin = config.server.adminToken !== undefined || config.server.admin.tokens.length > 0;
  const base = service.adminUrl ?? service.url;
  const lines: string[] = [];
  if (!admin) {
    lines.push("dashboard: off (set RENIO_ADMIN_TOKEN, or server.admin.tokens in the config, to serve it at /dashboard/)");
    if (config.server.metricsToken !== undefined) lines.push(`metrics: ${base}/metrics (Authorization: Bearer <server.metricsToken>)`);
    return lines;
  }
  lines.push(`dashboard: ${base}/dashboard/ (sign in with an admin token)`);
  lines.push(`metrics: ${base}/metrics (Authorization: Bearer <admin token>)`);
  const generated = embedded?.generated;
  if (generated?.created === true) {
    lines.push(`admin token: ${generated.token}`);
    lines.push(`  generated for the embedded default and shown only now; kept in ${generated.file} (mode 0600); set RENIO_ADMIN_TOKEN to use your own`);
  } else if (generated !== undefined) {
    lines.push(`admin token: kept in ${generated.file} (shown when it was generated; read it from there); set RENIO_ADMIN_TOKEN to use your own`);
  } else if (embedded?.fromEnv !== undefined) {
    lines.push(`admin token: the value of ${embedded.fromEnv}`);
  }
  return lines;
}
