#!/usr/bin/env bash
# Enforces the dependency rules of DESIGN.md: runtime-specific APIs only in main-*.ts and
# src/runtime/, and providers never import Hono, http or relay.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
runtime_leaks=$(grep -rlE "(\bBun\.|\bDeno\.|from \"bun:|from \"node:sqlite\")" src --include='*.ts' \
  | grep -vE '^src/(main-bun|main-deno)\.ts$|^src/runtime/' | grep -vE '\.test\.ts$' || true)
if [ -n "$runtime_leaks" ]; then echo "runtime APIs outside src/runtime and main-*.ts:"; echo "$runtime_leaks"; status=1; fi
provider_leaks=$(grep -rlE "from \"(hono|(\.\./)+(http|relay)/)" src/providers --include='*.ts' || true)
if [ -n "$provider_leaks" ]; then echo "providers importing hono/http/relay:"; echo "$provider_leaks"; status=1; fi
any_uses=$(grep -rnE ":\s*any\s*[;,)=>|\]]|:\s*any$|\bas any\b|<any>" src --include='*.ts' || true)
if [ -n "$any_uses" ]; then echo "uses of any:"; echo "$any_uses"; status=1; fi
[ $status -eq 0 ] && echo "dependency rules: ok"
exit $status
