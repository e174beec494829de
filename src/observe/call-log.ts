import type { CallObserver } from "./call-observer.ts";
import type { JournalAttempt, JournalCompletion, JournalStart } from "../shared/journal-records.ts";
import { formatAmount } from "../shared/money.ts";

/** Log levels, most verbose first. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How the relay logs. */
export interface LogOptions {
  readonly format: "json" | "text";
  /** Lines below this level are not written. */
  readonly level: LogLevel;
}

/** The default: JSON lines when stdout is not a terminal (a collector reads it), text for a person. */
export function defaultLogOptions(stdoutIsTerminal: boolean): LogOptions {
  return { format: stdoutIsTerminal ? "text" : "json", level: "info" };
}

/** Writes one whole line (the newline included); e.g. one process.stdout.write. */
export type LineWriter = (line: string) => void;

/** One line per event, in the configured format and level. */
export interface Logger extends CallObserver {
  readonly options: LogOptions;
  /** A line about Renio itself; `error` adds its message, and its stack only at level debug. */
  log(level: LogLevel, message: string, error?: unknown): void;
}

/** A call's level: error for 5xx (Renio's or the provider's failure), warn for 4xx, info else. */
function levelOfCall(status: number): LogLevel {
  return status >= 500 ? "error" : status >= 400 ? "warn" : "info";
}

/**
 * The logger. A call's line carries its ids, route, model, provider, status, outcome, error
 * code, tokens, cost and times, and never a secret or a body: it is built only from journal
 * fields that hold neither (the key's id, never its secret; the request body is not read).
 * Each line is one `write`; user data (model names, ids) is escaped, so a line is always one line.
 */
export function createLogger(options: LogOptions, write: LineWriter): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level);
  const enabled = (level: LogLevel): boolean => LOG_LEVELS.indexOf(level) >= threshold;
  const json = options.format === "json";
  return {
    options,
    ended(start, end) {
      const level = levelOfCall(end.status);
      try {
        if (enabled(level)) write((json ? callJson : callText)(level, start, end));
        // One warn line per upstream attempt that failed (an error status, a reset, a time-out, a cut stream): its entry and code, never a stack.
        if (enabled("warn")) {
          for (const [index, attempt] of (end.attempts ?? []).entries()) {
            if (attempt.errorCode !== null) write((json ? faultJson : faultText)(start, attempt, index + 1));
          }
        }
      } catch {
        // A broken stdout must not break the call.
      }
    },
    log(level, message, error) {
      if (!enabled(level)) return;
      const detail = error === undefined ? undefined : error instanceof Error ? error.message : String(error);
      const stack = options.level === "debug" && error instanceof Error ? error.stack : undefined;
      try {
        if (json) {
          write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...(detail === undefined ? {} : { error: detail }), ...(stack === undefined ? {} : { stack }) })}\n`);
        } else {
          write(`${new Date().toISOString()} ${level} ${message}${detail === undefined ? "" : `: ${detail}`}${stack === undefined ? "" : ` ${JSON.stringify(stack)}`}\n`);
        }
      } catch {
        // as above
      }
    },
  };
}

/** A JSON value: a string escaped, null kept. */
const str = (value: string | null): string => (value === null ? "null" : JSON.stringify(value));
const num = (value: number | null): string => (value === null ? "null" : String(Math.round(value * 1000) / 1000));

function callJson(level: LogLevel, start: Readonly<JournalStart>, end: Readonly<JournalCompletion>): string {
  const usage = end.usage;
  return (
    `{"time":"${new Date().toISOString()}","level":"${level}","msg":"call","requestId":${str(start.requestId ?? start.id)},"entryId":${str(start.id)}` +
    `,"keyId":${str(start.keyId)},"project":${str(start.project)},"route":${str(start.route)},"model":${str(start.model)}` +
    `,"provider":${str(start.provider)},"upstreamModel":${str(start.upstreamModel)},"stream":${start.stream}` +
    `,"status":${end.status},"outcome":"${end.outcome}","errorCode":${str(end.errorCode)}` +
    `,"inputTokens":${usage === null ? "null" : usage.inputTokens},"cachedInputTokens":${usage === null ? "null" : usage.cachedInputTokens},"outputTokens":${usage === null ? "null" : usage.outputTokens}` +
    `,"cost":${end.cost === null ? "null" : formatAmount(end.cost)},"ms":${num(end.totalMs)},"ttfbMs":${num(end.ttfbMs)},"upstreamMs":${num(end.upstreamMs)}` +
    `${whoJson(start)}}\n`
  );
}

function faultJson(start: Readonly<JournalStart>, attempt: Readonly<JournalAttempt>, number: number): string {
  return (
    `{"time":"${new Date().toISOString()}","level":"warn","msg":"upstream fault","requestId":${str(start.requestId ?? start.id)},"entryId":${str(start.id)}` +
    `,"attempt":${number},"model":${str(attempt.model)},"provider":${str(attempt.provider)},"upstreamModel":${str(attempt.upstreamModel)}` +
    `,"status":${attempt.status ?? "null"},"errorCode":${str(attempt.errorCode)},"ms":${num(attempt.ms)}}\n`
  );
}

function faultText(start: Readonly<JournalStart>, attempt: Readonly<JournalAttempt>, number: number): string {
  return (
    `${new Date().toISOString()} warn upstream fault ${fmt(attempt.errorCode)} attempt=${number} provider=${fmt(attempt.provider)} upstream_model=${fmt(attempt.upstreamModel)}` +
    ` status=${attempt.status ?? "-"} ms=${num(attempt.ms)} entry=${fmt(start.id)} request=${fmt(start.requestId ?? start.id)}\n`
  );
}

/** logfmt: a value is quoted (JSON-escaped) when it holds a space, a quote, an `=` or a control character. */
const fmt = (value: string | null): string => (value === null ? "-" : /^[^\s"=\\\x00-\x1f\x7f]+$/.test(value) ? value : JSON.stringify(value));

function callText(level: LogLevel, start: Readonly<JournalStart>, end: Readonly<JournalCompletion>): string {
  const usage = end.usage;
  const tokens = usage === null ? "" : ` tokens=${usage.inputTokens}/${usage.cachedInputTokens}/${usage.outputTokens}`;
  return (
    `${new Date().toISOString()} ${level} call ${end.status} ${end.outcome}${end.errorCode === null ? "" : ` error=${fmt(end.errorCode)}`}` +
    ` route=${fmt(start.route)} model=${fmt(start.model)} provider=${fmt(start.provider)} project=${fmt(start.project)} key=${fmt(start.keyId)}` +
    `${tokens}${end.cost === null ? "" : ` cost=${formatAmount(end.cost)}`} ms=${num(end.totalMs)}${end.ttfbMs === null ? "" : ` ttfb=${num(end.ttfbMs)}`}` +
    `${end.upstreamMs === null ? "" : ` upstream=${num(end.upstreamMs)}`}${whoText(start)} request=${fmt(start.requestId ?? start.id)}\n`
  );
}

/** Who the call was for, as JSON members (only those it has). */
function whoJson(start: Readonly<JournalStart>): string {
  let text = "";
  if (start.endUser) text += `,"endUser":${str(start.endUser)}`;
  if (start.team) text += `,"team":${str(start.team)}`;
  if (start.tags && start.tags.length > 0) text += `,"tags":${JSON.stringify(start.tags.map(([name, value]) => `${name}=${value}`))}`;
  if (start.downgradedFrom) text += `,"downgradedFrom":${str(start.downgradedFrom)}`;
  return text;
}

/** Who the call was for, as logfmt pairs (only those it has). */
function whoText(start: Readonly<JournalStart>): string {
  let text = "";
  if (start.endUser) text += ` end_user=${fmt(start.endUser)}`;
  if (start.team) text += ` team=${fmt(start.team)}`;
  if (start.tags && start.tags.length > 0) text += ` tags=${fmt(start.tags.map(([name, value]) => `${name}=${value}`).join(","))}`;
  if (start.downgradedFrom) text += ` downgraded_from=${fmt(start.downgradedFrom)}`;
  return text;
}
