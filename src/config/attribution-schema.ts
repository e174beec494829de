import { z } from "zod";
import { nameMap } from "./schema-maps.ts";
import { idText, nameText } from "./schema-text.ts";

/** Where a key's calls may name their end user: the header, or a field of the request body. */
export const END_USER_SOURCES = ["header", "user", "safety_identifier", "metadata.user_id"] as const;
/** One place an end user may be named. */
export type EndUserSource = (typeof END_USER_SOURCES)[number];

/** A tag's name: what `x-renio-tags` can carry before its `=`. */
export const tagName = idText(/^[A-Za-z0-9_.:-]+$/, "use letters, digits, _ . : -", 64);
/** A tag's value: what `x-renio-tags` can carry after a name's `=` (no comma, no space at either end). */
export const tagValue = nameText(64).regex(/^[^,\s](?:[^,]*[^,\s])?$/, "no comma, and no space at either end");

/** A key's fields saying who its calls are for (docs/budgets.md: end users and tags). */
export const attributionFields = {
  /**
   * Where this key's calls may name their end user, first match wins (default: all of them).
   * `[]`: the key's calls have no end user. An end user always belongs to its key's project.
   */
  endUser: z.array(z.enum(END_USER_SOURCES)).optional().describe("where the key's calls may name their end user, first match wins: `header` (`x-renio-end-user`), `user`, `safety_identifier` (OpenAI), `metadata.user_id` (Anthropic); `[]`: none. An end user always belongs to the key's project"),
  /** The tags this key's calls may carry (header `x-renio-tags` or request `metadata`). */
  tags: z
    .strictObject({
      /** Tag names → the values allowed for each (so the number of tags stays bounded). */
      allow: nameMap(tagName, z.array(tagValue).min(1).max(1000)).default(() => new Map()).describe("tag name → the values allowed (`{\"feature\": [\"search\", \"chat\"]}`), so the number of tags stays bounded"),
      /** A tag outside `allow`: `refuse` answers 400 `tag_not_allowed`; `drop` forwards the call without it. */
      unknown: z.enum(["refuse", "drop"]).default("refuse").describe("a tag outside `allow`: `refuse` answers 400 `tag_not_allowed`; `drop` forwards the call without it"),
    })
    .optional().describe("the tags the key's calls may carry (Who spends)"),
};

/** One team: a named group of projects (budgets and reports by team). */
export const teamSchema = z.strictObject({
  id: idText(/^[A-Za-z0-9_.:-]+$/, "use letters, digits, _ . : -").describe("the team's name"),
  /** The projects of the team; a project belongs to one team at most. */
  projects: z.array(nameText()).min(1).describe("its projects; a project belongs to one team at most"),
});

/** One team as configured. */
export type TeamConfig = z.infer<typeof teamSchema>;
