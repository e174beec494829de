#!/usr/bin/env bash
# Enforces the dependency rules of docs/architecture.md on src/ (test files excepted):
#   1. folder order: a file imports its own folder's rank or a rank below it, and every folder has a rank;
#   2. no cycles between folders (folders of one rank may import each other, never in a loop);
#   3. only app/, cli/, bench/ and the entry points import storage/ (the concepts declare ports);
#   4. runtime APIs (Bun., Deno., bun:*, node:sqlite) only in the entry points and runtime/;
#   5. providers never import Hono; guardrails never import Hono or the journal (nor, by the order,
#      http/, relay/ or storage/); 6. no `any`; and no plain object as a map keyed by outside input
#      (scripts/check-maps.ts, type-aware).
#   bash scripts/check-deps.sh              check src/
#   bash scripts/check-deps.sh --self-test  plant a violation of each rule in a scratch tree and show each is caught
set -euo pipefail
cd "$(dirname "$0")/.."

# The folder order, top to bottom; one line per rank, folders of one rank on one line. "main" is
# the entry points (src/main-*.ts, src/store-worker-*.ts). A sub-folder has its folder's rank.
ORDER='main
cli
bench
app
http
storage
relay
journal limits alerts guardrails cache
pricing
routing
keys budgets callers
observe
providers
usage
runtime
upstream config shared redis'

# Prints "importer target" for every relative import (static, side-effect, re-export or dynamic) of a
# non-test .ts file under the root $1, both resolved and relative to it.
imports_of() {
  (cd "$1" && find . -name '*.ts' ! -name '*.test.ts' ! -name '*.d.ts' -print0 \
    | xargs -0 -r grep -oHE "(from|import) *\(? *\"\.{1,2}/[^\"]+\"" || true) | resolve_imports
}

# Reads "file:…\"spec\"" lines and prints "file target", the import resolved against the
# file's folder, both without a leading "./".
resolve_imports() {
  awk -F: '{
    file = $1; sub(/^\.\//, "", file)
    spec = substr($0, length($1) + 2); sub(/^[^"]*"/, "", spec); sub(/"$/, "", spec)
    n = split(file, parts, "/"); depth = n - 1
    m = split(spec, segs, "/")
    for (i = 1; i <= m; i++) {
      if (segs[i] == ".") continue
      if (segs[i] == "..") { if (depth > 0) depth--; continue }
      parts[++depth] = segs[i]
    }
    target = parts[1]; for (i = 2; i <= depth; i++) target = target "/" parts[i]
    print file " " target
  }'
}

# Reads "importer target" lines; prints "importer folder target folder" (a file at the top is in "main").
with_folders() {
  awk '{ f = $1 ~ /\// ? $1 : "main/"; t = $2 ~ /\// ? $2 : "main/"; sub(/\/.*/, "", f); sub(/\/.*/, "", t); print $1, f, $2, t }'
}

# Rule 1. Prints "importer -> imported" for each import of a folder ranked above the importer's,
# and "unranked: folder/" for each folder holding .ts files that the order does not list.
order_violations() {
  local root=$1
  {
    (cd "$root" && find . -mindepth 2 -name '*.ts' | cut -d/ -f2 | sort -u | sed 's/^/folder /')
    imports_of "$root" | with_folders | sed 's/^/import /'
  } | awk -v order="$ORDER" '
    BEGIN { n = split(order, lines, "\n"); for (i = 1; i <= n; i++) { m = split(lines[i], fs, " "); for (j = 1; j <= m; j++) rank[fs[j]] = i } }
    $1 == "folder" { if (!($2 in rank)) print "unranked: " $2 "/ (give it its place in ORDER)"; next }
    $1 == "import" && ($3 in rank) && ($5 in rank) && rank[$5] < rank[$3] { print $2 " -> " $4 }'
}

# Rule 2. Prints each loop of imports between folders, as tsort finds them.
folder_cycles() {
  local pairs
  pairs=$(imports_of "$1" | with_folders | awk '$2 != $4 { print $2, $4 }' | sort -u)
  [ -n "$pairs" ] || return 0
  tsort <<<"$pairs" 2>&1 >/dev/null | awk '
    /input contains a loop/ { if (loop != "") print "a loop between folders:" loop; loop = ""; next }
    /^tsort: / { sub(/^tsort: /, ""); loop = loop " " $0 }
    END { if (loop != "") print "a loop between folders:" loop }' || true
}

# Rule 3. Prints "importer -> storage/…" for each import of storage/ from a folder other than
# storage/ itself, app/, cli/, bench/ and the entry points.
storage_imports() {
  imports_of "$1" | with_folders | awk '$4 == "storage" && $2 !~ /^(storage|app|cli|bench|main)$/ { print $1 " -> " $3 }'
}

# Rule 4. Files using runtime APIs outside the entry points and runtime/.
runtime_leaks() {
  (cd "$1" && grep -rlE "(\b(Bun|Deno)\.[A-Za-z_]|from \"bun:|from \"node:sqlite\")" . --include='*.ts' || true) \
    | sed 's#^\./##' | grep -vE '^(main-[a-z]+|store-worker-[a-z]+)\.ts$|^runtime/|\.test\.ts$' || true
}

# Rule 5. Providers importing Hono; guardrails importing Hono or the journal (a concept the spine
# calls into knows neither the spine nor the store).
provider_leaks() {
  (cd "$1" && { [ ! -d providers ] || grep -rlE "from \"hono" providers --include='*.ts'; [ ! -d guardrails ] || grep -rlE "from \"(hono|(\.\./)+journal/)" guardrails --include='*.ts'; } || true)
}

# Rule 6. Uses of `any`.
any_uses() {
  (cd "$1" && grep -rnE ":\s*any\s*[];,)=>|]|:\s*any$|\bas any\b|<any>" . --include='*.ts' || true) | sed 's#^\./##'
}

# Runs every rule on the tree at $1; prints what each found and returns 1 when anything was.
check_tree() {
  local root=$1 found status=0
  found=$(order_violations "$root")
  if [ -n "$found" ]; then echo "imports against the folder order:"; echo "$found"; status=1; fi
  found=$(folder_cycles "$root")
  if [ -n "$found" ]; then echo "$found"; status=1; fi
  found=$(storage_imports "$root")
  if [ -n "$found" ]; then echo "storage/ imported below app/ (import the concept's port instead):"; echo "$found"; status=1; fi
  found=$(runtime_leaks "$root")
  if [ -n "$found" ]; then echo "runtime APIs outside src/runtime and the entry points:"; echo "$found"; status=1; fi
  found=$(provider_leaks "$root")
  if [ -n "$found" ]; then echo "providers importing hono, or guardrails importing hono or journal/:"; echo "$found"; status=1; fi
  found=$(any_uses "$root")
  if [ -n "$found" ]; then echo "uses of any:"; echo "$found"; status=1; fi
  return $status
}

# A scratch tree that keeps every rule: one file per folder of the order, each importing downward.
clean_fixture() {
  local root=$1 dir
  mkdir -p "$root"/{cli,bench,app,http/admin,storage/queries,relay,journal/admission-log,limits,alerts,pricing,routing,keys,budgets,observe,providers/openai,usage,runtime,upstream,config,shared}
  echo 'import { c } from "./cli/cli-main.ts"; import { r } from "./runtime/runtime-bun.ts";' >"$root/main-bun.ts"
  echo 'import { s } from "./storage/store-thread.ts";' >"$root/store-worker-bun.ts"
  echo 'import { b } from "../bench/bench-command.ts"; import { a } from "../app/relay-service.ts"; import type { S } from "../storage/store.ts";' >"$root/cli/cli-main.ts"
  echo 'import { x } from "../shared/cli-args.ts"; import { a } from "../app/relay-service.ts";' >"$root/bench/bench-command.ts"
  echo 'import { h } from "../http/app.ts"; import { o } from "../storage/store-open.ts";' >"$root/app/relay-service.ts"
  echo 'import { r } from "../relay/relay.ts"; import { k } from "../keys/key-admin.ts";' >"$root/http/app.ts"
  echo 'import { a } from "./admin-auth.ts"; import type { K } from "../../keys/key-store.ts";' >"$root/http/admin/admin-keys.ts"
  echo 'import type { K } from "../keys/key-store.ts"; import { q } from "./queries/store-keys.ts";' >"$root/storage/store.ts"
  echo 'import type { J } from "../../journal/journal-store.ts"; import type { S } from "../store.ts";' >"$root/storage/queries/store-query.ts"
  echo 'import { l } from "../journal/ledger.ts"; import { p } from "../pricing/call-pricing.ts"; import { t } from "../limits/rate-limiter.ts";' >"$root/relay/relay.ts"
  echo 'import { b } from "../budgets/budget-book.ts"; import { w } from "./admission-log/journal-log.ts";' >"$root/journal/ledger.ts"
  echo 'import type { J } from "../journal-store.ts";' >"$root/journal/admission-log/journal-log.ts"
  echo 'import { c } from "../config/config-schema.ts";' >"$root/limits/rate-limiter.ts"
  echo 'import type { R } from "../budgets/alert-rules.ts";' >"$root/alerts/alert-dispatcher.ts"
  echo 'import { r } from "../routing/route-plan.ts"; import { k } from "../keys/keyring.ts";' >"$root/pricing/call-pricing.ts"
  echo 'import { o } from "../observe/call-trace.ts"; import { p } from "../providers/provider.ts";' >"$root/routing/route-plan.ts"
  echo 'import { s } from "../shared/audit.ts";' >"$root/keys/key-admin.ts"
  echo 'import { s } from "../shared/usage.ts";' >"$root/budgets/budget-book.ts"
  echo 'import type { P } from "../providers/provider.ts";' >"$root/observe/call-trace.ts"
  echo 'import { u } from "../usage/usage-fields.ts"; import { f } from "../upstream/node-http-fetch.ts";' >"$root/providers/provider.ts"
  echo 'import { h } from "../http-provider.ts"; const m = await import("../../usage/usage-json.ts");' >"$root/providers/openai/openai-provider.ts"
  echo 'import "../shared/usage.ts";' >"$root/usage/usage-json.ts"
  echo 'import { d } from "../runtime/direct-stream.ts";' >"$root/usage/usage-tap.ts"
  echo 'import { f } from "../upstream/node-http-fetch.ts"; const v = Bun.version;' >"$root/runtime/runtime-bun.ts"
  echo 'import { c } from "../config/config-schema.ts"; import { s } from "../shared/usage.ts";' >"$root/upstream/socket-fetch.ts"
  echo 'import { s } from "../shared/usage.ts";' >"$root/config/config-schema.ts"
  echo '// Deno. and Bun. in a comment are words, not calls.' >"$root/shared/usage.ts"
  # Tests may import anything.
  echo 'import { s } from "../storage/store.ts"; import { a } from "../app/relay-service.ts";' >"$root/keys/keyring.test.ts"
  mkdir -p "$root/sse" # an empty folder left by a move has no rank and needs none
}

# Each planted violation, the rule's function and what it must print (one line per expected finding).
self_test() {
  local failed=0
  fixture=$(mktemp -d)
  trap 'rm -rf "$fixture"' EXIT
  expect() { # name, function, tree, expected output
    local got
    got=$("$2" "$3" | sort)
    if [ "$got" != "$(printf '%s' "$4" | sort)" ]; then
      echo "self-test \"$1\" failed; expected:"; printf '%s\n' "$4"; echo "found:"; printf '%s\n' "$got"; failed=1
    else
      echo "self-test \"$1\": ok"
    fi
  }
  plant() { # a fresh clean tree at $fixture/$1
    rm -rf "${fixture:?}/$1"; mkdir -p "$fixture/$1"; clean_fixture "$fixture/$1"; echo "$fixture/$1"
  }
  local tree
  tree=$(plant clean)
  if check_tree "$tree" >/dev/null; then echo "self-test \"a clean tree passes\": ok"; else echo "self-test \"a clean tree passes\" failed:"; check_tree "$tree" || true; failed=1; fi

  tree=$(plant order)
  echo 'import type { R } from "../relay/relay.ts";' >"$tree/journal/up.ts"
  echo 'export { Y } from "../../routing/route-plan.ts";' >"$tree/providers/openai/up.ts"
  echo 'const m = await import("../app/relay-service.ts");' >"$tree/runtime/up.ts"
  echo 'import { w } from "../main-bun.ts";' >"$tree/cli/up.ts"
  echo 'import "../../http/app.ts";' >"$tree/storage/queries/up.ts"
  mkdir -p "$tree/unplaced" && echo 'import { s } from "../shared/usage.ts";' >"$tree/unplaced/thing.ts"
  expect "an upward import and an unranked folder are caught" order_violations "$tree" \
    "$(printf '%s\n' "journal/up.ts -> relay/relay.ts" "providers/openai/up.ts -> routing/route-plan.ts" "runtime/up.ts -> app/relay-service.ts" "cli/up.ts -> main-bun.ts" "storage/queries/up.ts -> http/app.ts" "unranked: unplaced/ (give it its place in ORDER)")"

  tree=$(plant cycle)
  echo 'import { a } from "../budgets/budget-book.ts";' >"$tree/keys/loop.ts"
  echo 'import { b } from "../keys/key-admin.ts";' >"$tree/budgets/loop.ts"
  local got
  got=$(folder_cycles "$tree")
  if [[ "$got" == "a loop between folders: "* && "$got" == *budgets* && "$got" == *keys* ]]; then echo "self-test \"a loop between folders of one rank is caught\": ok"
  else echo "self-test \"a loop between folders of one rank is caught\" failed; found: $got"; failed=1; fi

  tree=$(plant storage)
  echo 'import type { Store } from "../storage/store.ts";' >"$tree/http/up.ts"
  echo 'import { k } from "../../storage/queries/store-keys.ts";' >"$tree/journal/admission-log/up.ts"
  expect "storage/ imported below app/ is caught" storage_imports "$tree" \
    "$(printf '%s\n' "http/up.ts -> storage/store.ts" "journal/admission-log/up.ts -> storage/queries/store-keys.ts")"

  tree=$(plant runtime)
  echo 'export const v = Deno.version;' >"$tree/journal/leak.ts"
  echo 'import { Database } from "bun:sqlite";' >"$tree/storage/leak.ts"
  expect "runtime APIs outside runtime/ are caught" runtime_leaks "$tree" "$(printf '%s\n' "journal/leak.ts" "storage/leak.ts")"

  tree=$(plant hono)
  echo 'import type { Context } from "hono";' >"$tree/providers/openai/leak.ts"
  mkdir -p "$tree/guardrails"
  echo 'import { l } from "../journal/ledger.ts";' >"$tree/guardrails/leak.ts"
  expect "a provider importing hono, a guardrail importing the journal are caught" provider_leaks "$tree" "$(printf '%s\n' "providers/openai/leak.ts" "guardrails/leak.ts")"

  tree=$(plant any)
  echo 'export const x = (y: any) => y;' >"$tree/usage/loose.ts"
  expect "any is caught" any_uses "$tree" "usage/loose.ts:1:export const x = (y: any) => y;"

  [ $failed -eq 0 ] && echo "check-deps self-tests: ok"
  return $failed
}

if [ "${1:-}" = "--self-test" ]; then
  self_test || exit 1
  node_modules/.bin/bun scripts/check-maps.ts --self-test
  exit $?
fi

if check_tree src && node_modules/.bin/bun scripts/check-maps.ts; then echo "dependency rules: ok"; else exit 1; fi
