#!/usr/bin/env bash
# Enforces the dependency rules of DESIGN.md: the folder order (no file imports a folder above
# its own), runtime-specific APIs only in main-*.ts and src/runtime/, providers never import
# Hono, http or relay, guardrails never import Hono, http, relay, storage or journal, no `any`,
# and no plain object as a map keyed by outside input (scripts/check-maps.ts, type-aware).
#   bash scripts/check-deps.sh              check src/
#   bash scripts/check-deps.sh --self-test  show the folder-order and plain-object map checks fail on planted violations
set -euo pipefail
cd "$(dirname "$0")/.."

# Folder order, top to bottom: main (the entry points main-*.ts and store-worker-*.ts) → cli
# (with bench) → http (with observe) → relay → providers / journal (with sse, alerts, guardrails) → storage → budget →
# config / runtime / shared. A file may import its own rank or any rank below it. Prints the rank of a
# path under src/ (empty when the folder is not listed).
rank_of() {
  case "$1" in
    main-*.ts | store-worker-*.ts) echo 0 ;;
    cli/* | bench/*) echo 1 ;;
    http/* | observe/*) echo 2 ;;
    relay/*) echo 3 ;;
    providers/* | journal/* | sse/* | alerts/* | guardrails/*) echo 4 ;;
    storage/*) echo 5 ;;
    budget/*) echo 6 ;;
    config/* | runtime/* | shared/*) echo 7 ;;
    *) echo "" ;;
  esac
}

# Prints "importer -> imported" for every relative import (static, re-export or dynamic) of a
# non-test .ts file under $1 that points to a folder above the importer's.
upward_imports() {
  local root=$1 line from to rf rt
  while read -r line; do
    from=${line% *}
    to=${line#* }
    rf=$(rank_of "$from")
    rt=$(rank_of "$to")
    [ -n "$rf" ] && [ -n "$rt" ] && [ "$rt" -lt "$rf" ] || continue
    echo "$from -> $to"
  done < <(cd "$root" && find . -name '*.ts' ! -name '*.test.ts' -print0 \
    | xargs -0 grep -oHE "(from|import\() *\"\.{1,2}/[^\"]+\"" | resolve_imports)
}

# Reads "file:…\"spec\"" lines (paths relative to the root) and prints "file target", the
# import resolved against the file's folder, both without a leading "./".
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

if [ "${1:-}" = "--self-test" ]; then
  fixture=$(mktemp -d)
  trap 'rm -rf "$fixture"' EXIT
  mkdir -p "$fixture"/{budget,journal,runtime,storage,providers/openai,relay,shared}
  echo 'import type { X } from "../journal/ledger.ts";' >"$fixture/budget/up.ts"
  echo 'export { Y } from "../../relay/relay.ts";' >"$fixture/providers/openai/up.ts"
  echo 'const m = await import("../storage/store.ts");' >"$fixture/runtime/up.ts"
  echo 'import { a } from "../budget/a.ts"; import { s } from "./same.ts";' >"$fixture/journal/down.ts"
  echo 'import { b } from "../shared/b.ts";' >"$fixture/storage/down.ts"
  echo 'import { s } from "./storage/store-thread.ts"; import { o } from "./runtime/sqlite-bun.ts";' >"$fixture/store-worker-bun.ts"
  echo 'import { s } from "../storage/store-thread.ts";' >"$fixture/runtime/store-worker-bun.ts"
  echo 'export { w } from "../store-worker-bun.ts";' >"$fixture/storage/up.ts"
  echo 'import { r } from "../relay/relay.ts";' >"$fixture/budget/up.test.ts"
  found=$(upward_imports "$fixture" | sort)
  expected=$(printf '%s\n' "budget/up.ts -> journal/ledger.ts" "providers/openai/up.ts -> relay/relay.ts" \
    "runtime/up.ts -> storage/store.ts" "runtime/store-worker-bun.ts -> storage/store-thread.ts" \
    "storage/up.ts -> store-worker-bun.ts" | sort)
  if [ "$found" != "$expected" ]; then
    echo "folder-order self-test failed; expected:"; echo "$expected"; echo "found:"; echo "$found"
    exit 1
  fi
  echo "folder-order self-test: ok (upward imports found, downward ones and the entry points allowed)"
  node_modules/.bin/bun scripts/check-maps.ts --self-test
  exit 0
fi

status=0
upward=$(upward_imports src)
if [ -n "$upward" ]; then echo "imports against the folder order (DESIGN.md):"; echo "$upward"; status=1; fi
runtime_leaks=$(grep -rlE "(\bBun\.|\bDeno\.|from \"bun:|from \"node:sqlite\")" src --include='*.ts' \
  | grep -vE '^src/(main-bun|main-deno)\.ts$|^src/runtime/' | grep -vE '\.test\.ts$' || true)
if [ -n "$runtime_leaks" ]; then echo "runtime APIs outside src/runtime and main-*.ts:"; echo "$runtime_leaks"; status=1; fi
provider_leaks=$(grep -rlE "from \"(hono|(\.\./)+(http|relay)/)" src/providers --include='*.ts' || true)
if [ -n "$provider_leaks" ]; then echo "providers importing hono/http/relay:"; echo "$provider_leaks"; status=1; fi
# Guardrails are a concept the spine calls into: they know neither the spine nor the store.
guardrail_leaks=$(grep -rlE "from \"(hono|(\.\./)+(http|relay|storage|journal)/)" src/guardrails --include='*.ts' || true)
if [ -n "$guardrail_leaks" ]; then echo "guardrails importing hono/http/relay/storage/journal:"; echo "$guardrail_leaks"; status=1; fi
any_uses=$(grep -rnE ":\s*any\s*[;,)=>|\]]|:\s*any$|\bas any\b|<any>" src --include='*.ts' || true)
if [ -n "$any_uses" ]; then echo "uses of any:"; echo "$any_uses"; status=1; fi
node_modules/.bin/bun scripts/check-maps.ts || status=1
[ $status -eq 0 ] && echo "dependency rules: ok"
exit $status
