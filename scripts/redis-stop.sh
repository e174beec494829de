#!/usr/bin/env bash
# Stops a Redis server started by scripts/redis-start.sh and removes its temp dir.
set -euo pipefail
port=$(sed -E 's#^redis://[^:]+:([0-9]+).*#\1#' <<<"$1")
STATE_DIR=${RENIO_REDIS_STATE_DIR:-${TMPDIR:-/tmp}}
file="$STATE_DIR/renio-redis-$port.dir"
[ -f "$file" ] || exit 0
base=$(cat "$file")
redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || { [ -f "$base/redis.pid" ] && kill "$(cat "$base/redis.pid")" 2>/dev/null; } || true
rm -rf "$base" "$file"
