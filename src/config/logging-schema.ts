import { z } from "zod";

/** How log lines are written: one JSON object per line, or `key=value` text for a terminal. */
export const LOG_FORMATS = ["json", "text"] as const;
/** Log levels, most severe first: a level includes every level before it. */
export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;

/** The `logging` section. Also set by `RENIO_LOG_FORMAT` / `RENIO_LOG_LEVEL` and `renio serve --log-format` / `--log-level`. */
export const loggingSchema = z.strictObject({
  /**
   * Absent: `json` when stdout is not a terminal, else `text`. `renio serve` fills it in before
   * the relay starts, so the relay always sees `json` or `text`.
   */
  format: z.enum(LOG_FORMATS).optional().describe("`json` or `text` (`RENIO_LOG_FORMAT`, `--log-format`)"),
  level: z.enum(LOG_LEVELS).default("info").describe("`error`, `warn`, `info` or `debug` (`RENIO_LOG_LEVEL`, `--log-level`); stack traces only at `debug`"),
});

/** Where and how Renio logs. */
export type LoggingConfig = z.infer<typeof loggingSchema>;
/** A log format. */
export type LogFormat = (typeof LOG_FORMATS)[number];
/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];
