#!/usr/bin/env bash
# Runs the whole test suite on Bun and on Deno, against a throwaway PostgreSQL and Redis
# (started here unless RENIO_TEST_PG_URL / RENIO_TEST_REDIS_URL are set) and SQLite files in temp dirs.
# RENIO_TEST_JOBS: how many test processes run at once (default 2: more starve the relays the tests
# start on a 2-core machine, and tests that give a relay 20 s to listen fail).
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
jobs=${RENIO_TEST_JOBS:-2}
work=$(mktemp -d)
stop_started+='rm -rf "$work";'
export NO_COLOR=1

# The work: every file under test/ on each runtime, one process per file, and src/'s unit tests
# in one process per runtime. Most of a test's time is spent waiting on sockets, child
# processes and the database, so two processes share 2 cores well; each one is a fresh
# process, so no test sees another's environment variables. Every test makes its own temp
# dirs, ports and PostgreSQL databases, so any two may run at once.
# Deno type-checks every test module first, once (`check`); the runs then skip the check, which
# deno test would otherwise repeat for each worker thread a test starts (seconds per relay).
# Longest first, so that no long file starts last: the process tests, the contract tests, the
# unit tests, then the end-to-end tests; larger files first within a folder.
items=("deno check")
for dir in test/process test/contract src test/e2e test/docs; do
  if [ "$dir" = src ]; then
    items+=("deno ./src" "bun ./src")
    continue
  fi
  mapfile -t files < <(find "$dir" -name '*.test.ts' -printf '%s %p\n' | sort -k1,1nr -k2 | cut -d' ' -f2)
  for file in "${files[@]}"; do items+=("deno ./$file"); done
  for file in "${files[@]}"; do items+=("bun ./$file"); done
done
# Every file must be in the list: a folder added under test/ must be added above.
listed=$(printf '%s\n' "${items[@]}" | grep -c '^bun ./test/')
found=$(find test -name '*.test.ts' | wc -l)
if [ "$listed" -ne "$found" ]; then
  echo "scripts/test.sh lists $listed of the $found test files under test/: add the new folder to its list"
  exit 1
fi

run_item() { # runtime target log
  case "$1 $2" in
    "deno check") node_modules/.bin/deno test -A --quiet --no-run && node_modules/.bin/deno check --quiet src/store-worker-deno.ts ;;
    deno*) node_modules/.bin/deno test -A --quiet --no-check "$2" ;;
    bun*) node_modules/.bin/bun test --timeout 60000 "$2" ;;
  esac >"$3" 2>&1
}
echo 0 >"$work/next"
lane() { # lane number
  local index start
  while :; do
    index=$(flock "$work/next" bash -c 'read -r n <"$1"; echo $((n + 1)) >"$1"; echo "$n"' _ "$work/next")
    [ "$index" -lt "${#items[@]}" ] || break
    read -r runtime target <<<"${items[$index]}"
    start=$SECONDS
    run_item "$runtime" "$target" "$work/$index.log"
    echo "$? $((SECONDS - start)) $1" >"$work/$index.done"
  done
  echo "$1 $((SECONDS - started))" >>"$work/lanes"
}
started=$SECONDS
lane_pids=()
for ((n = 1; n <= jobs; n++)); do
  lane "$n" &
  lane_pids+=($!)
done
for pid in "${lane_pids[@]}"; do wait "$pid"; done
wall=$((SECONDS - started))

# Each runtime's output whole, in the order above; then the times and one closing line.
bun_status=0
deno_status=0
declare -A runtime_seconds=([bun]=0 [deno]=0)
log=$(mktemp)
for runtime in bun deno; do
  echo "== $runtime test"
  for index in "${!items[@]}"; do
    read -r item_runtime _ <<<"${items[$index]}"
    [ "$item_runtime" = "$runtime" ] || continue
    cat "$work/$index.log"
    cat "$work/$index.log" >>"$log"
    read -r status seconds _ <"$work/$index.done"
    runtime_seconds[$runtime]=$((runtime_seconds[$runtime] + seconds))
    if [ "$status" -ne 0 ]; then
      echo "exit status $status: ${items[$index]}"
      [ "$runtime" = bun ] && bun_status=1 || deno_status=1
    fi
  done
done
lanes_ended=$(sort -k2,2n "$work/lanes" | awk '{ printf "%s%ss", (NR > 1 ? ", " : ""), $2 }')
echo "== times: ${wall}s in all ($jobs processes at once, ended after $lanes_ended); bun ${runtime_seconds[bun]}s, deno ${runtime_seconds[deno]}s of process time; the slowest:"
for index in "${!items[@]}"; do
  read -r _ seconds _ <"$work/$index.done"
  echo "$seconds ${items[$index]}"
done | sort -k1,1nr | head -5 | sed 's/^/  /'
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
