import type { KeyView } from "../keys/key-admin.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { AuditEvent, AuditQuery } from "../shared/audit.ts";
import { httpAdminTarget, storeAdminTarget, type AdminTarget, type Answer } from "./admin-target.ts";
import { durationMs, parseSubcommand, usageLine, UsageError } from "../shared/cli-args.ts";
import { AUDIT_USAGE, KEYS_USAGE, wantsHelp } from "./cli-help.ts";
import { parseTime } from "./cli-journal.ts";
import { announcedTarget, TARGET_OPTIONS, targetFlags, type TargetFlags } from "./cli-target.ts";

const TARGET = { ...TARGET_OPTIONS, json: { type: "boolean" } } as const;
const SCOPES = { project: { type: "string" }, model: { type: "string", multiple: true }, region: { type: "string", multiple: true } } as const;
const SETTINGS = {
  ...SCOPES,
  expires: { type: "string", valueName: "an ISO time or a duration like 30d" },
  metadata: { type: "string", valueName: "a JSON object" },
} as const;
const KEY_SUBCOMMANDS = {
  create: { ...TARGET, ...SETTINGS, id: { type: "string" }, "idempotency-key": { type: "string" } },
  update: { ...TARGET, ...SETTINGS },
  list: { ...TARGET, project: { type: "string" }, status: { type: "string", oneOf: ["active", "expired", "revoked"] }, source: { type: "string", oneOf: ["store", "config"] } },
  show: TARGET,
  rotate: { ...TARGET, grace: { type: "string", valueName: "seconds or a duration like 1h" }, "idempotency-key": { type: "string" } },
  revoke: TARGET,
} as const;
const AUDIT_SUBCOMMANDS = {
  list: {
    ...TARGET,
    since: { type: "string" },
    until: { type: "string" },
    actor: { type: "string" },
    action: { type: "string" },
    target: { type: "string" },
    limit: { type: "integer", min: 1, max: 1000, default: 50 },
  },
} as const;

/** What a `renio keys` or `renio audit` line asks, validated before anything is contacted. */
interface AdminCommand {
  readonly target: TargetFlags;
  readonly json: boolean;
  run(target: AdminTarget, out: (line: string) => void): Promise<void>;
}

/**
 * `renio keys create|list|show|rotate|revoke` and `renio audit list`: against a running relay's
 * admin API or the configured store, by the targeting rule of cli-target.ts. A usage error is one line on `err` (exit 2); nothing is contacted.
 */
export async function runAdminCommand(
  command: "keys" | "audit",
  args: string[],
  runtime: Runtime,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  if (wantsHelp(args)) {
    out(command === "keys" ? KEYS_USAGE : AUDIT_USAGE);
    return 0;
  }
  let parsed: AdminCommand;
  try {
    parsed = command === "keys" ? parseKeysArgs(args, Date.now()) : parseAuditArgs(args, Date.now());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(usageLine(command, error));
    return 2;
  }
  const where = await announcedTarget(command, parsed.target, err);
  const target = where.kind === "relay" ? httpAdminTarget(where.url, where.token) : await storeAdminTarget(where.config, runtime);
  try {
    await parsed.run(target, out);
    return 0;
  } finally {
    await target.close();
  }
}

/** Validates `renio keys …`; throws {@link UsageError}. */
export function parseKeysArgs(args: readonly string[], now: number): AdminCommand {
  const line = parseSubcommand(args, KEY_SUBCOMMANDS, { show: 1, update: 1, rotate: 1, revoke: 1 });
  const { json } = line.values;
  const base = { target: targetFlags(line.values), json };
  const id = (): string => {
    const [value] = line.positionals;
    if (value === undefined) throw new UsageError(`${line.sub} needs the key id: renio keys ${line.sub} ID`);
    return value;
  };
  switch (line.sub) {
    case "create": {
      const body = settingsBody(line.values, now);
      if (line.values.id !== undefined) body.id = line.values.id;
      return { ...base, run: async (target, out) => printIssued(await target.createKey(body, line.values["idempotency-key"]), json, out) };
    }
    case "update": {
      const key = id();
      const body = settingsBody(line.values, now);
      return { ...base, run: async (target, out) => printKey(await target.updateKey(key, body), json, out) };
    }
    case "list": {
      const { project, status, source } = line.values;
      const filter = Object.fromEntries(Object.entries({ project, status, source }).filter((entry): entry is [string, string] => entry[1] !== undefined));
      return { ...base, run: async (target, out) => printKeys(await target.listKeys(filter), json, out) };
    }
    case "show": {
      const key = id();
      return { ...base, run: async (target, out) => printKey(await target.showKey(key), json, out) };
    }
    case "rotate": {
      const key = id();
      const grace = line.values.grace;
      const body = grace === undefined ? {} : { graceSeconds: graceSeconds(grace) };
      return { ...base, run: async (target, out) => printIssued(await target.rotateKey(key, body, line.values["idempotency-key"]), json, out) };
    }
    case "revoke": {
      const key = id();
      return { ...base, run: async (target, out) => printKey(await target.revokeKey(key), json, out) };
    }
  }
}

/** Validates `renio audit list …`; throws {@link UsageError}. */
export function parseAuditArgs(args: readonly string[], now: number): AdminCommand {
  const { values: v } = parseSubcommand(args, AUDIT_SUBCOMMANDS);
  const query: AuditQuery = {
    limit: v.limit,
    ...(v.since !== undefined && { since: parseTime(v.since, now, "--since") }),
    ...(v.until !== undefined && { until: parseTime(v.until, now, "--until") }),
    ...(v.actor !== undefined && { actor: v.actor }),
    ...(v.action !== undefined && { action: v.action }),
    ...(v.target !== undefined && { target: v.target }),
  };
  return { target: targetFlags(v), json: v.json, run: async (target, out) => printAudit((await target.listAudit(query)).events, v.json, out) };
}

/** The admin API body of `--project`, `--model`, `--region`, `--expires` (`never` clears), `--metadata`. */
function settingsBody(v: { project?: string; model: readonly string[]; region: readonly string[]; expires?: string; metadata?: string }, now: number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (v.project !== undefined) body.project = v.project;
  if (v.model.length > 0) body.models = v.model;
  if (v.region.length > 0) body.regions = v.region;
  if (v.expires !== undefined) body.expiresAt = v.expires === "never" ? null : new Date(futureTime(v.expires, now)).toISOString();
  if (v.metadata !== undefined) body.metadata = jsonObject(v.metadata);
  return body;
}

function futureTime(text: string, now: number): number {
  const ahead = durationMs(text);
  if (ahead !== undefined) return now + ahead;
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new UsageError(`--expires must be an ISO time or a duration like 30d, got "${text}"`);
  return time;
}

function graceSeconds(text: string): number {
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : durationMs(text);
  if (ms === undefined) throw new UsageError(`--grace must be seconds or a duration like 1h, got "${text}"`);
  return ms / 1000;
}

function jsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError("--metadata must be a JSON object");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new UsageError("--metadata must be a JSON object");
  return value as Record<string, unknown>;
}

function printIssued(issued: Answer, json: boolean, out: (line: string) => void): void {
  if (json) return out(JSON.stringify({ key: issued.key, secret: issued.secret }, null, 2));
  printKey(issued.key, false, out);
  out(`secret: ${issued.secret}`);
  out("(shown once: store it now; Renio keeps only a hash)");
}

function printKey(key: KeyView, json: boolean, out: (line: string) => void): void {
  if (json) return out(JSON.stringify(key, null, 2));
  for (const [name, value] of Object.entries(key)) out(`${name}: ${value === null ? "-" : typeof value === "object" ? JSON.stringify(value) : String(value)}`);
}

function printKeys(keys: readonly KeyView[], json: boolean, out: (line: string) => void): void {
  if (json) return out(JSON.stringify(keys, null, 2));
  table(
    ["ID", "SOURCE", "PROJECT", "STATUS", "PREFIX", "MODELS", "EXPIRES"],
    keys.map((k) => [k.id, k.source, k.project, k.status, k.prefix ?? "-", k.models.join(","), k.expiresAt ?? "-"]),
    "(no keys)",
    out,
  );
}

function printAudit(events: readonly AuditEvent[], json: boolean, out: (line: string) => void): void {
  if (json) return out(JSON.stringify(events, null, 2));
  table(
    ["TIME", "ACTOR", "ACTION", "TARGET"],
    events.map((e) => [new Date(e.at).toISOString(), e.actor, e.action, e.target]),
    "(no audit events)",
    out,
  );
}

function table(header: readonly string[], rows: readonly string[][], empty: string, out: (line: string) => void): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  for (const row of [header, ...rows]) out(row.map((cell, i) => cell.padEnd(widths[i] as number)).join("  ").trimEnd());
  if (rows.length === 0) out(empty);
}
