#!/usr/bin/env bash
# Runs the whole test suite on Bun and on Deno, against a throwaway PostgreSQL
# (started here unless RENIO_TEST_PG_URL is set) and SQLite files in temp dirs.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -z "${RENIO_TEST_PG_URL:-}" ]; then
  RENIO_TEST_PG_URL=$(bash scripts/pg-start.sh) || { echo "could not start PostgreSQL"; exit 1; }
  export RENIO_TEST_PG_URL
  trap 'bash scripts/pg-stop.sh "$RENIO_TEST_PG_URL" >/dev/null 2>&1' EXIT
fi
log=$(mktemp)
echo "== bun test"
node_modules/.bin/bun test --timeout 60000 2>&1 | tee "$log"
bun_status=${PIPESTATUS[0]}
echo "== deno test"
NO_COLOR=1 node_modules/.bin/deno test -A --quiet 2>&1 | tee -a "$log"
deno_status=${PIPESTATUS[0]}
# One closing line over both runtimes.
read -r passed failed < <(awk '
  /^ *[0-9]+ pass$/ { p += $1 } /^ *[0-9]+ fail$/ { f += $1 }
  /^(ok|FAILED) \| [0-9]+ passed/ { for (i = 1; i < NF; i++) { if ($(i+1) == "passed") p += $i; if ($(i+1) == "failed") f += $i } }
  END { print p + 0, f + 0 }' "$log")
rm -f "$log"
if [ "$bun_status" -ne 0 ] || [ "$deno_status" -ne 0 ]; then
  [ "$failed" -eq 0 ] && failed=1
fi
echo "tests: $passed passed, $failed failed"
[ "$bun_status" -eq 0 ] && [ "$deno_status" -eq 0 ]
