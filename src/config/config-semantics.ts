import { didYouMean } from "../shared/did-you-mean.ts";
import { checkAttribution } from "./attribution-semantics.ts";
import type { Config } from "./config-schema.ts";
import { writtenAsList } from "./rate-limit-schema.ts";
import type { ConfigProblem } from "./config-error.ts";
import { checkProviders } from "./provider-semantics.ts";
import { checkRouting } from "./routing-semantics.ts";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/;

/** Whether a listen address is only reachable from this machine. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}

/** The id `server.adminToken` acts as (role `admin`). */
export const LEGACY_ADMIN_TOKEN_ID = "admin";

/** Admin tokens: unique ids, well-formed hashes; a separate admin listener needs a token and its own address. */
function checkAdmin(server: Config["server"]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const ids = new Set(server.adminToken === undefined ? [] : [LEGACY_ADMIN_TOKEN_ID]);
  server.admin.tokens.forEach((token, index) => {
    if (ids.has(token.id)) {
      const why = token.id === LEGACY_ADMIN_TOKEN_ID && server.adminToken !== undefined ? " (server.adminToken acts as \"admin\")" : "";
      problems.push({ path: ["server", "admin", "tokens", index, "id"], message: `duplicate admin token id "${token.id}"${why}` });
    }
    ids.add(token.id);
    if (token.secret.startsWith("sha256:") && !/^sha256:[0-9a-f]{64}$/.test(token.secret)) {
      problems.push({ path: ["server", "admin", "tokens", index, "secret"], message: "sha256 secrets must be sha256: followed by 64 lowercase hex digits" });
    }
  });
  const { host, port } = server.admin;
  if ((host !== undefined || port !== undefined) && ids.size === 0 && server.admin.oidc === undefined) {
    problems.push({ path: ["server", "admin", port === undefined ? "host" : "port"], message: "an admin listener needs an admin token (server.admin.tokens or server.adminToken)" });
  }
  if (host !== undefined && port === undefined) {
    problems.push({ path: ["server", "admin", "host"], message: "a separate admin listener needs server.admin.port as well" });
  }
  if (port !== undefined && port !== 0 && port === server.port && (host ?? server.host) === server.host) {
    problems.push({ path: ["server", "admin", "port"], message: `the admin listener cannot share the model listener's address (${server.host}:${port})` });
  }
  return problems;
}

/** Alert webhooks: unique ids, and every reference to one names one. */
function checkAlerts(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const ids = new Set<string>();
  config.alerts.webhooks.forEach((webhook, index) => {
    if (ids.has(webhook.id)) problems.push({ path: ["alerts", "webhooks", index, "id"], message: `duplicate webhook id "${webhook.id}"` });
    ids.add(webhook.id);
  });
  const known = `(configured in alerts.webhooks: ${[...ids].join(", ") || "none"})`;
  config.budgets.forEach((budget, index) => {
    if (budget.alerts && !ids.has(budget.alerts.webhook)) {
      problems.push({ path: ["budgets", index, "alerts", "webhook"], message: `unknown webhook "${budget.alerts.webhook}" ${known}${didYouMean(budget.alerts.webhook, [...ids])}` });
    }
  });
  const interrupted = config.alerts.interruptedWebhook;
  if (interrupted !== undefined && !ids.has(interrupted)) {
    problems.push({ path: ["alerts", "interruptedWebhook"], message: `unknown webhook "${interrupted}" ${known}${didYouMean(interrupted, [...ids])}` });
  }
  return problems;
}

/** Cross-field checks zod cannot express: references, uniqueness, safe exposure. */
export function checkSemantics(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = checkRouting(config);
  const keyIds = new Set<string>();
  const projects = new Set<string>();
  config.keys.forEach((key, index) => {
    if (keyIds.has(key.id)) problems.push({ path: ["keys", index, "id"], message: `duplicate key id "${key.id}"` });
    keyIds.add(key.id);
    projects.add(key.project);
    if (key.secret.startsWith("sha256:") && !/^sha256:[0-9a-f]{64}$/.test(key.secret)) {
      problems.push({ path: ["keys", index, "secret"], message: "sha256 secrets must be sha256: followed by 64 lowercase hex digits" });
    }
    key.models.forEach((model, modelIndex) => {
      if (model !== "*" && !config.models.has(model)) {
        problems.push({ path: ["keys", index, "models", modelIndex], message: `unknown model "${model}"${didYouMean(model, [...config.models.keys()])}` });
      }
    });
  });
  const budgetIds = new Set<string>();
  config.budgets.forEach((budget, index) => {
    if (budgetIds.has(budget.id)) problems.push({ path: ["budgets", index, "id"], message: `duplicate budget id "${budget.id}"` });
    budgetIds.add(budget.id);
    if (typeof budget.scope === "object" && "key" in budget.scope && !keyIds.has(budget.scope.key)) {
      problems.push({ path: ["budgets", index, "scope", "key"], message: `unknown key "${budget.scope.key}"${didYouMean(budget.scope.key, [...keyIds])}` });
    }
    if (typeof budget.scope === "object" && "project" in budget.scope && !projects.has(budget.scope.project)) {
      problems.push({ path: ["budgets", index, "scope", "project"], message: `no key belongs to project "${budget.scope.project}"${didYouMean(budget.scope.project, [...projects])}` });
    }
  });
  problems.push(...checkAttribution(config));
  problems.push(...checkProviders(config.providers));
  problems.push(...checkAdmin(config.server));
  problems.push(...checkAlerts(config));
  const rateScopes = new Set<string>();
  const at = (index: number) => (writtenAsList(config.rateLimits) ? ["rateLimits", index] : ["rateLimits", "limits", index]);
  if (config.rateLimits.store === "redis" && config.redis === undefined) problems.push({ path: ["rateLimits", "store"], message: "store: redis needs a `redis` section with the server's url" });
  if (config.cache?.store === "redis" && config.redis === undefined) problems.push({ path: ["cache", "store"], message: "store: redis needs a `redis` section with the server's url" });
  config.rateLimits.limits.forEach((limit, index) => {
    const [kind, id] = Object.entries(limit.scope)[0] as ["key" | "project" | "model", string];
    const scope = `${kind} ${id}`;
    if (rateScopes.has(scope)) problems.push({ path: [...at(index), "scope"], message: `duplicate rate limit for ${scope} (put its limits in one entry)` });
    rateScopes.add(scope);
    const unknown = kind === "key" ? !keyIds.has(id) : kind === "project" ? !projects.has(id) : !config.models.has(id);
    if (unknown) problems.push({ path: [...at(index), "scope", kind], message: kind === "project" ? `no key belongs to project "${id}"` : `unknown ${kind} "${id}"` });
  });
  if (!config.journal.enabled && config.budgets.length > 0) {
    problems.push({ path: ["journal", "enabled"], message: "budgets need the journal: remove the budgets or enable the journal" });
  }
  // Keys issued at run time (admin token and a store) count: without any key every call gets 401.
  const issuesKeys = (config.server.adminToken !== undefined || config.server.admin.oidc !== undefined) && config.journal.enabled;
  if (config.keys.length === 0 && !issuesKeys && !isLoopbackHost(config.server.host)) {
    problems.push({
      path: ["server", "host"],
      message: `Renio never listens on a non-loopback address (${config.server.host}) without keys configured (in keys, or issued at run time with server.adminToken)`,
    });
  }
  return problems;
}
