#!/usr/bin/env bash
# Stops and removes a cluster started by scripts/pg-start.sh.
# Usage: pg-stop.sh [URL|PORT]   (default: the last one started)
set -euo pipefail

PG_BIN=${PG_BIN:-$(dirname "$(readlink -f "$(command -v initdb || command -v pg_ctl)")")}
STATE_DIR=${RENIO_PG_STATE_DIR:-${TMPDIR:-/tmp}}

arg=${1:-}
if [ -z "$arg" ]; then
  state="$STATE_DIR/renio-pg-last.dir"
else
  port=$(echo "$arg" | sed -E 's#^postgres(ql)?://[^/]*:([0-9]+)/?.*$#\2#')
  state="$STATE_DIR/renio-pg-$port.dir"
fi
[ -f "$state" ] || { echo "pg-stop: no cluster recorded in $state" >&2; exit 1; }
base=$(cat "$state")

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ -d "$base/data" ]; then
  as_owner "$PG_BIN/pg_ctl" -D "$base/data" -m immediate -w -s stop >/dev/null 2>&1 || true
fi
port=$(cat "$base/port" 2>/dev/null || true)
case "$base" in
  */renio-pg.*) rm -rf "$base" ;;
esac
rm -f "$state"
[ -n "$port" ] && rm -f "$STATE_DIR/renio-pg-$port.dir"
last="$STATE_DIR/renio-pg-last.dir"
if [ -f "$last" ] && [ "$(cat "$last")" = "$base" ]; then rm -f "$last"; fi
