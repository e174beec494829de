import type { Context } from "hono";
import { RelayError } from "../../shared/relay-error.ts";
import { adminActor } from "./admin-auth.ts";
import type { HttpEnv } from "../app.ts";

/** What a config reload did. */
export type ReloadOutcome =
  /** The new config is in effect; `needsRestart` lists the restart-only settings it changes (their running values stay). */
  | { readonly reloaded: true; readonly needsRestart: readonly string[] }
  /** The new config is invalid (`FILE:LINE:COLUMN: path: message` each); the running one stays. */
  | { readonly reloaded: false; readonly problems: readonly string[] };

/**
 * Re-reads the config file and swaps it in (absent when there is no file, e.g. the embedded
 * default); `actor` (an admin token's id, or `signal:SIGHUP`) is recorded in the audit.
 */
export type Reload = (actor: string) => Promise<ReloadOutcome>;

/** `POST /admin/reload`: 200 with what needs a restart, or 400 listing the new config's problems. */
export function reloadHandler(reload: Reload | undefined): (c: Context<HttpEnv>) => Promise<Response> {
  return async (c) => {
    if (reload === undefined) throw new RelayError(409, "reload_unavailable", "This relay was not started from a config file (--config); there is nothing to reload");
    const outcome = await reload(adminActor(c).id);
    if (outcome.reloaded) return c.json({ object: "config.reload", reloaded: true, needs_restart: outcome.needsRestart });
    const message = `The new config is invalid; the running config stays (${outcome.problems.length} problem${outcome.problems.length === 1 ? "" : "s"})`;
    return c.json({ error: { message, type: "invalid_request_error", param: null, code: "invalid_config", problems: outcome.problems } }, 400);
  };
}
