/**
 * Finds plain objects used as maps with keys that may come from outside (a request, the
 * config, the store, a provider): a lookup on such an object finds `Object.prototype`'s
 * members (`constructor`, `toString`, …), `key in object` is true for them, and a write
 * under `__proto__` replaces the object's prototype. Such maps must be a `Map` (or, where a
 * JSON shape is needed, an object made with `Object.create(null)`, allow-listed below).
 *
 * Type-aware (the TypeScript 7 API over the project's tsconfig.json): in every non-test file
 * under src/ it reports
 *   - `object[key]` (read or write) where `key` is an open string (type `string`, a template
 *     literal or a type parameter: not a literal or a union of literals, not a number) and the
 *     object's type has a string index signature (`Record<string, …>`, `{ [k: string]: … }`)
 *     and is not an array;
 *   - `key in object` where `key` is an open string;
 *   - `Object.assign(target, source)` where a source has a string index signature (it copies
 *     with [[Set]]: an own `__proto__` key in the source replaces the target's prototype);
 *   - `Object.keys / values / entries(m)` where `m` is a Map or a Set: always empty, the mistake
 *     a plain object turned Map leaves behind.
 *
 * Allow-list: a finding is accepted when its line, or the line above it, carries the comment
 * `// plain-object: <why this object is safe>` (e.g. a null-prototype object, a constant table
 * looked up with a checked key). The reason is required, and a comment that excuses nothing is
 * itself reported, so the list cannot go stale.
 *
 *   bun scripts/check-maps.ts              check src/
 *   bun scripts/check-maps.ts --self-test  show the check finds planted violations and nothing else
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import process from "node:process";
import { API, TypeFlags, type Checker, type Type, type UnionType } from "typescript/unstable/async";
import { SyntaxKind, type Node, type SourceFile } from "typescript/unstable/ast";

/** One reported use: where, and what. */
interface Finding {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

const ALLOW = /\/\/\s*plain-object:(.*)$/;
const OPEN_STRING = TypeFlags.String | TypeFlags.TemplateLiteral | TypeFlags.StringMapping | TypeFlags.TypeParameter | TypeFlags.Any | TypeFlags.Unknown;

/** True when values of `type` may be any string (not only known literals). */
async function openString(type: Type): Promise<boolean> {
  if ((type.flags & OPEN_STRING) !== 0) return true;
  if ((type.flags & TypeFlags.Union) === 0) return false;
  for (const member of await (type as UnionType).getTypes()) if (await openString(member)) return true;
  return false;
}

/** True when `type` is an object with a string index signature and not array-like. */
async function stringIndexed(checker: Checker, type: Type): Promise<boolean> {
  if (await checker.isArrayLikeType(type)) return false;
  if ((type.flags & TypeFlags.Union) !== 0) {
    for (const member of await (type as UnionType).getTypes()) if (await stringIndexed(checker, member)) return true;
    return false;
  }
  return (await checker.getIndexInfosOfType(type)).some((info) => (info.keyType.flags & TypeFlags.String) !== 0);
}

/** The 1-based line of each offset of `text`. */
function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** The uses worth asking the checker about, in one file. */
function candidates(file: SourceFile): { access: Node[]; inTests: Node[]; assigns: Node[]; listings: Node[] } {
  const access: Node[] = [];
  const inTests: Node[] = [];
  const assigns: Node[] = [];
  const listings: Node[] = [];
  const visit = (node: Node): void => {
    if (node.kind === SyntaxKind.ElementAccessExpression) access.push(node);
    else if (node.kind === SyntaxKind.BinaryExpression && (node as unknown as { operatorToken: Node }).operatorToken.kind === SyntaxKind.InKeyword) inTests.push(node);
    else if (node.kind === SyntaxKind.CallExpression) {
      const callee = (node as unknown as { expression: Node }).expression.getText(file).replace(/\s+/g, "");
      if (callee === "Object.assign") assigns.push(node);
      else if (/^Object\.(keys|values|entries)$/.test(callee)) listings.push(node);
    }
    node.forEachChild(visit);
  };
  visit(file);
  return { access, inTests, assigns, listings };
}

const COLLECTIONS = new Set(["Map", "ReadonlyMap", "WeakMap", "Set", "ReadonlySet", "WeakSet"]);

/** Every finding in the files under `root`/src of the project `root`/tsconfig.json, allow-listed ones removed. */
export async function findPlainObjectMaps(root: string): Promise<Finding[]> {
  const api = new API({ cwd: root });
  try {
    const project = (await api.updateSnapshot({ openProject: join(root, "tsconfig.json") })).getProjects()[0];
    if (project === undefined) throw new Error(`no TypeScript project at ${root}`);
    const { program, checker } = project;
    const src = resolve(root, "src") + "/";
    const findings: Finding[] = [];
    for (const name of await program.getSourceFileNames()) {
      if (!name.startsWith(src) || name.endsWith(".test.ts") || name.endsWith(".d.ts")) continue;
      const file = await program.getSourceFile(name);
      if (file === undefined) continue;
      const rel = relative(root, name);
      const lineOf = lineIndex(file.text);
      const raw: Finding[] = [];
      const report = (node: Node, message: string) => raw.push({ file: rel, line: lineOf(node.getStart(file)), message: `${message}: ${node.getText(file).replace(/\s+/g, " ").slice(0, 100)}` });
      const { access, inTests, assigns, listings } = candidates(file);
      if (access.length > 0) {
        const pairs = access.flatMap((node) => {
          const e = node as unknown as { expression: Node; argumentExpression: Node };
          return [e.expression, e.argumentExpression];
        });
        const types = await checker.getTypeAtLocation(pairs);
        for (const [i, node] of access.entries()) {
          const object = types[2 * i];
          const key = types[2 * i + 1];
          if (object !== undefined && key !== undefined && (await openString(key)) && (await stringIndexed(checker, object))) report(node, "a plain object indexed by an open string");
        }
      }
      if (inTests.length > 0) {
        const types = await checker.getTypeAtLocation(inTests.map((node) => (node as unknown as { left: Node }).left));
        for (const [i, node] of inTests.entries()) {
          const key = types[i];
          if (key !== undefined && (await openString(key))) report(node, "`in` with an open string (true for inherited members)");
        }
      }
      for (const node of assigns) {
        const sources = (node as unknown as { arguments: readonly Node[] }).arguments.slice(1);
        const types = sources.length === 0 ? [] : await checker.getTypeAtLocation([...sources]);
        for (const type of types) {
          if (type !== undefined && (await stringIndexed(checker, type))) {
            report(node, "Object.assign from a string-keyed object (copies `__proto__` with [[Set]])");
            break;
          }
        }
      }
      if (listings.length > 0) {
        const types = await checker.getTypeAtLocation(listings.map((node) => (node as unknown as { arguments: readonly Node[] }).arguments[0] ?? node));
        for (const [i, node] of listings.entries()) {
          const name = (await types[i]?.getSymbol())?.name;
          if (name !== undefined && COLLECTIONS.has(name)) report(node, `Object.keys/values/entries of a ${name} (always empty; iterate it instead)`);
        }
      }
      findings.push(...allowListed(rel, file.text, raw));
    }
    return findings;
  } finally {
    api.close();
  }
}

/** Removes findings excused by a `// plain-object: <reason>` comment; reports comments without a reason or without a finding. */
function allowListed(rel: string, text: string, raw: readonly Finding[]): Finding[] {
  const lines = text.split("\n");
  const excuses = new Map<number, string>();
  lines.forEach((line, i) => {
    const match = ALLOW.exec(line);
    if (match) excuses.set(i + 1, match[1]!.trim());
  });
  const used = new Set<number>();
  const kept: Finding[] = [];
  for (const finding of raw) {
    const at = [finding.line, finding.line - 1].find((line) => (excuses.get(line) ?? "") !== "");
    if (at === undefined) kept.push(finding);
    else used.add(at);
  }
  for (const [line, reason] of excuses) {
    if (reason === "") kept.push({ file: rel, line, message: "`// plain-object:` needs a reason" });
    else if (!used.has(line)) kept.push({ file: rel, line, message: "`// plain-object:` excuses nothing here (remove it)" });
  }
  return kept.sort((a, b) => a.line - b.line);
}

/** The planted fixture of --self-test: each `expect` line, and the comment without a reason, must be reported, nothing else. */
const FIXTURE = `
export function planted(input: string, raw: unknown, rows: readonly { id: string; n: number }[]): unknown[] {
  const byId: Record<string, number> = {};
  for (const row of rows) byId[row.id] = row.n; // expect
  const found = byId[input]; // expect
  const has = input in byId; // expect
  const table = Object.fromEntries(rows.map((row) => [row.id, row.n]));
  const fromTable = table[input]; // expect
  const copy = Object.assign({}, raw as Record<string, unknown>); // expect
  const prefixed = byId[\`key:\${input}\`]; // expect
  // plain-object:
  const noReason = byId[input]; // expect
  // plain-object: a null-prototype object made just above
  const allowed = byId[input];
  const stale = 1; // plain-object: nothing to excuse here (expect)
  const map = new Map(rows.map((row) => [row.id, row.n]));
  const empty = Object.keys(map); // expect
  const fine = [map.get(input), byId["literal"], rows[0]?.n, rows[found ?? 0], "x" in byId, ({ a: 1 } as { a: number })["a"], Object.keys(byId), [...map.keys()]];
  return [found, has, fromTable, copy, prefixed, noReason, allowed, stale, empty, fine];
}
`;

async function selfTest(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "renio-check-maps-"));
  try {
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", lib: ["ES2023"], types: [], noEmit: true, noUncheckedIndexedAccess: true }, include: ["src"] }));
    const src = join(dir, "src");
    mkdirSync(src);
    writeFileSync(join(src, "planted.ts"), FIXTURE);
    writeFileSync(join(src, "planted.test.ts"), "export const t: Record<string, number> = {}; export const u = (k: string) => t[k];\n");
    const expected = FIXTURE.split("\n").flatMap((line, i) => (/expect\)?$|plain-object:$/.test(line) ? [i + 1] : []));
    const found = (await findPlainObjectMaps(dir)).map((finding) => finding.line);
    if (JSON.stringify(found) !== JSON.stringify(expected)) {
      console.error(`plain-object map self-test failed; expected lines ${expected.join(", ")}, found ${found.join(", ")}`);
      return 1;
    }
    console.log(`plain-object map self-test: ok (${expected.length} planted uses found, safe ones and test files left alone)`);
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const root = resolve(import.meta.dirname, "..");
  if (process.argv.includes("--self-test")) process.exit(await selfTest());
  const findings = await findPlainObjectMaps(root);
  for (const finding of findings) console.log(`${finding.file}:${finding.line}: ${finding.message}`);
  if (findings.length > 0) {
    console.log(`plain objects as maps keyed by outside input: ${findings.length} (use a Map, or allow-list with // plain-object: <reason>)`);
    process.exit(1);
  }
  console.log("plain-object maps: ok");
}
