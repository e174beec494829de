import type { AlertEvent, AlertOutbox, AlertStatus } from "../alerts/alert-outbox.ts";
import { parseSubcommand } from "../shared/cli-args.ts";
import { TARGET_OPTIONS, targetFlags, type TargetFlags } from "./cli-target.ts";

/** A validated `renio alerts` command line. */
export interface AlertsCommand {
  readonly sub: "list";
  readonly target: TargetFlags;
  readonly status: AlertStatus | undefined;
  readonly limit: number;
  readonly json: boolean;
}

const LIST_OPTIONS = {
  ...TARGET_OPTIONS,
  status: { type: "string", oneOf: ["pending", "delivered", "failed"] },
  limit: { type: "integer", min: 1, max: 10_000, default: 50 },
  json: { type: "boolean" },
} as const;

/** Validates `renio alerts …` arguments; throws UsageError. Touches no store. */
export function parseAlertsArgs(args: readonly string[]): AlertsCommand {
  const { values } = parseSubcommand(args, { list: LIST_OPTIONS });
  return { sub: "list", target: targetFlags(values), status: values.status as AlertStatus | undefined, limit: values.limit, json: values.json };
}

/** Lists the outbox, newest first: a table, or the events as JSON. */
export async function executeAlertsCommand(command: AlertsCommand, store: Pick<AlertOutbox, "listAlerts">, out: (line: string) => void): Promise<void> {
  const events = await store.listAlerts({ status: command.status, limit: command.limit });
  if (command.json) {
    out(JSON.stringify(events, null, 2));
    return;
  }
  if (events.length === 0) {
    out("(no alert events)");
    return;
  }
  const header = ["CREATED", "TYPE", "BUDGET", "PERIOD", "THRESHOLD", "WEBHOOK", "STATUS", "ATTEMPTS", "LAST ERROR"];
  const rows = events.map((e) => row(e));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const cells of [header, ...rows]) out(cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd());
}

function row(e: AlertEvent): string[] {
  return [
    new Date(e.createdAt).toISOString(),
    e.type,
    e.budgetId ?? "-",
    e.period ?? "-",
    e.threshold === null ? "-" : `${e.threshold}%`,
    e.webhook,
    e.status,
    String(e.attempts),
    e.lastError ?? "",
  ];
}
