#!/usr/bin/env bash
# Runs the whole test suite on Bun and on Deno, against a throwaway PostgreSQL and Redis
# (started here unless RENIO_TEST_PG_URL / RENIO_TEST_REDIS_URL are set) and SQLite files in temp dirs.
set -uo pipefail
cd "$(dirname "$0")/.."
# What this script starts, it stops on exit.
stop_started=""
trap 'eval "$stop_started"' EXIT
if [ -z "${RENIO_TEST_PG_URL:-}" ]; then
  RENIO_TEST_PG_URL=$(bash scripts/pg-start.sh) || { echo "could not start PostgreSQL"; exit 1; }
  export RENIO_TEST_PG_URL
  stop_started+='bash scripts/pg-stop.sh "$RENIO_TEST_PG_URL" >/dev/null 2>&1;'
fi
if [ -z "${RENIO_TEST_REDIS_URL:-}" ]; then
  RENIO_TEST_REDIS_URL=$(bash scripts/redis-start.sh) || { echo "could not start Redis"; exit 1; }
  export RENIO_TEST_REDIS_URL
  stop_started+='bash scripts/redis-stop.sh "$RENIO_TEST_REDIS_URL" >/dev/null 2>&1;'
fi
# Bun and Deno run at the same time (most of a test's time is spent waiting on sockets, child
# processes and the database, so the two share the machine well); each one's output is printed
# whole when both are done. Every test makes its own temp dirs, ports and PostgreSQL databases.
bun_log=$(mktemp)
deno_log=$(mktemp)
node_modules/.bin/bun test --timeout 60000 >"$bun_log" 2>&1 &
bun_pid=$!
NO_COLOR=1 node_modules/.bin/deno test -A --quiet >"$deno_log" 2>&1 &
deno_pid=$!
wait "$bun_pid"
bun_status=$?
wait "$deno_pid"
deno_status=$?
echo "== bun test"
cat "$bun_log"
echo "== deno test"
cat "$deno_log"
log=$(mktemp)
cat "$bun_log" "$deno_log" >"$log"
rm -f "$bun_log" "$deno_log"
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
