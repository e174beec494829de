import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { configSchema } from "../../src/config/config-schema.ts";

/**
 * The docs hold together: every relative link in README.md and docs/ points at a file that exists
 * (and, into markdown, at a heading that exists), and docs/configuration.md names every key of the
 * config schema.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function markdownFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...markdownFiles(path));
    else if (entry.name.endsWith(".md")) files.push(path);
  }
  return files;
}

/** The text outside fenced code blocks and inline code spans, where links are links. */
function proseOf(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/(`+)[\s\S]*?\1/g, "");
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a markdown file's headings give, numbered as GitHub numbers repeats (`x`, `x-1`). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const match of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every problem with the relative links of one file, as `file: link: why`. */
function brokenLinks(file: string): string[] {
  const problems: string[] = [];
  const name = relative(root, file);
  const markdown = readFileSync(file, "utf8");
  for (const match of proseOf(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const link = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:: not in the repository
    const hash = link.indexOf("#");
    const pathPart = hash === -1 ? link : link.slice(0, hash);
    const anchor = hash === -1 ? undefined : decodeURIComponent(link.slice(hash + 1));
    const target = pathPart === "" ? file : resolve(dirname(file), decodeURIComponent(pathPart));
    if (!target.startsWith(root)) {
      problems.push(`${name}: ${link}: points outside the repository`);
      continue;
    }
    if (!existsSync(target)) {
      problems.push(`${name}: ${link}: ${relative(root, target)} does not exist`);
      continue;
    }
    if (anchor !== undefined && anchor !== "" && target.endsWith(".md") && statSync(target).isFile()) {
      if (!anchorsOf(readFileSync(target, "utf8")).has(anchor)) problems.push(`${name}: ${link}: no heading #${anchor} in ${relative(root, target)}`);
    }
  }
  return problems;
}

type JsonSchema = {
  description?: string;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

/** Every key path of the config schema (`server.host`, `providers.<name>.apiKey`, `keys[].id`, …) with the descriptions its definitions give it (one per union branch defining it). */
function schemaDescriptions(): Map<string, (string | undefined)[]> {
  const schema = z.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const definitions = schema.$defs ?? {};
  const keys = new Map<string, (string | undefined)[]>();
  const walk = (node: JsonSchema | undefined, path: string, depth: number): void => {
    if (node === undefined || depth > 20) return;
    if (node.$ref !== undefined) return walk(definitions[node.$ref.replace("#/$defs/", "")], path, depth + 1);
    for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) walk(branch, path, depth + 1);
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      const key = path === "" ? name : `${path}.${name}`;
      keys.set(key, [...(keys.get(key) ?? []), child.description ?? (child.$ref === undefined ? undefined : definitions[child.$ref.replace("#/$defs/", "")]?.description)]);
      walk(child, key, depth + 1);
    }
    if (typeof node.additionalProperties === "object") walk(node.additionalProperties, `${path}.<name>`, depth + 1);
    if (node.items !== undefined) walk(node.items, `${path}[]`, depth + 1);
  };
  walk(schema, "", 0);
  return keys;
}

function schemaKeys(): string[] {
  return [...schemaDescriptions().keys()];
}

/** The rows of the Reference tables of docs/configuration.md: the keys a row names and its meaning (links as their text). */
function referenceRows(page: string): { keys: string[]; meaning: string }[] {
  const rows: { keys: string[]; meaning: string }[] = [];
  for (const line of page.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const cells = line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim());
    if (cells.length !== 3) continue; // the environment table
    const keys = [...cells[0]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    rows.push({ keys, meaning: cells[2]!.replace(/\[([^\]]+)\]\([^)]+\)/g, "$1").replaceAll("\\|", "|") });
  }
  return rows;
}

/** A key as the page may write it: any `<placeholder>` for a name, `[]` for a list item optional. */
function keyPattern(key: string): RegExp {
  const escaped = key
    .split(/(<name>|\[\])/)
    .map((part) => (part === "<name>" ? "<[^>`]+>" : part === "[]" ? "(?:\\[\\])?" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp("`" + escaped + "(?:\\[\\])?`");
}

test("every relative link in README.md and docs/ resolves, anchors included", () => {
  const files = [join(root, "README.md"), ...markdownFiles(join(root, "docs"))];
  assert.ok(files.length > 10, `found ${files.length} markdown files`);
  const problems = files.flatMap(brokenLinks);
  assert.deepEqual(problems, [], `broken links:\n${problems.join("\n")}`);
});

test("docs/configuration.md names every key of the config schema", () => {
  const keys = schemaKeys();
  assert.ok(keys.length > 100 && keys.includes("server.host") && keys.includes("keys[].id"), `walked ${keys.length} keys from the schema`);
  const page = readFileSync(join(root, "docs", "configuration.md"), "utf8");
  const missing = keys.filter((key) => !keyPattern(key).test(page));
  assert.deepEqual(missing, [], `keys missing from docs/configuration.md:\n${missing.join("\n")}`);
});

test("every key of the config schema has a description, and docs/configuration.md gives the same meaning", () => {
  const described = schemaDescriptions();
  const rows = referenceRows(readFileSync(join(root, "docs", "configuration.md"), "utf8"));
  const meanings = new Set(rows.map((row) => row.meaning));
  const problems: string[] = [];
  for (const [key, descriptions] of described) {
    const pattern = new RegExp(`^${keyPattern(key).source.slice(1, -1)}$`);
    const row = rows.find((candidate) => candidate.keys.some((name) => pattern.test(name)));
    for (const description of descriptions) {
      if (description === undefined || description === "") problems.push(`${key}: no description`);
      // A row naming several keys describes them together; each one's description is a row's meaning of its own.
      else if (row !== undefined && row.keys.length === 1 && row.meaning !== description) problems.push(`${key}: the schema says "${description}", the page "${row.meaning}"`);
      else if (!meanings.has(description)) problems.push(`${key}: "${description}" is no meaning in docs/configuration.md`);
    }
  }
  assert.ok(described.size > 100, `walked ${described.size} keys`);
  assert.deepEqual(problems, [], problems.join("\n"));
});
