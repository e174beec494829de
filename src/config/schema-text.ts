import { z } from "zod";
import { journalText, jsonTextProblem, TEXT_BOUNDS, textProblem } from "../shared/input-text.ts";

/**
 * A name or id in the config or an admin API body (a model, project, key, budget, region,
 * scope): a non-empty string by the input rules of shared/input-text.ts (no control characters
 * or lone surrogates, at most `max` characters), so what reaches the store is the same on
 * SQLite and PostgreSQL.
 */
export function nameText(max: number = TEXT_BOUNDS.name) {
  return z
    .string()
    .min(1)
    .superRefine((value, ctx) => {
      const problem = textProblem(value, max);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    });
}

/** A JSON value (labels, metadata) whose strings, keys included, follow the input rules. */
export function jsonText(max: number = TEXT_BOUNDS.name) {
  return z.json().superRefine((value, ctx) => {
    const found = jsonTextProblem(value, max);
    if (found !== undefined) ctx.addIssue({ code: "custom", message: found.problem, path: found.path });
  });
}

/**
 * One zod issue as the answer to an admin request says it: the path's parts joined by dots
 * (escaped: a name from the request may hold anything), and the message: a record's bad key by
 * its rule, unknown keys named.
 */
export function issueParts(issue: z.core.$ZodIssue, prefix: readonly string[] = []): { path: string; message: string } {
  const path = [...prefix, ...issue.path.map(String)].map((part) => journalText(part, Infinity)).join(".");
  const message =
    issue.code === "unrecognized_keys"
      ? `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${journalText(k, TEXT_BOUNDS.name)}"`).join(", ")}`
      : issue.code === "invalid_key"
        ? (issue.issues[0]?.message ?? issue.message)
        : issue.message;
  return { path, message };
}

/** An id by `pattern` (e.g. letters, digits, `_ . : -`), at most `max` characters. */
export function idText(pattern: RegExp, message: string, max: number = TEXT_BOUNDS.name) {
  return z.string().regex(pattern, message).max(max, `must be at most ${max} characters`);
}
