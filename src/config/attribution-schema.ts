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
  endUser: z.array(z.enum(END_USER_SOURCES)).optional(),
  /** The tags this key's calls may carry (header `x-renio-tags` or request `metadata`). */
  tags: z
    .strictObject({
      /** Tag names → the values allowed for each (so the number of tags stays bounded). */
      allow: nameMap(tagName, z.array(tagValue).min(1).max(1000)).default(() => new Map()),
      /** A tag outside `allow`: `refuse` answers 400 `tag_not_allowed`; `drop` forwards the call without it. */
      unknown: z.enum(["refuse", "drop"]).default("refuse"),
    })
    .optional(),
};

/** One team: a named group of projects (budgets and reports by team). */
export const teamSchema = z.strictObject({
  id: idText(/^[A-Za-z0-9_.:-]+$/, "use letters, digits, _ . : -"),
  /** The projects of the team; a project belongs to one team at most. */
  projects: z.array(nameText()).min(1),
});

/** One team as configured. */
export type TeamConfig = z.infer<typeof teamSchema>;
