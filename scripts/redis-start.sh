#!/usr/bin/env bash
# Starts a throwaway Redis server (temp dir, free loopback port, no persistence) and prints its
# URL: redis://127.0.0.1:PORT. Stop it with scripts/redis-stop.sh URL.
# Installs Debian's redis-server when it is missing and we may (root).
set -euo pipefail
if ! command -v redis-server >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "redis-start: installing redis-server (apt-get install redis-server)" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; } >&2
  else
    echo "redis-start: redis-server not found; install Redis 6.2 or later (or Valkey)" >&2
    exit 1
  fi
fi
STATE_DIR=${RENIO_REDIS_STATE_DIR:-${TMPDIR:-/tmp}}
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 1 20); do
  port=$((20000 + RANDOM % 40000))
  port_free "$port" || continue
  base=$(mktemp -d "${TMPDIR:-/tmp}/renio-redis.XXXXXX")
  if redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$base" \
      --daemonize yes --pidfile "$base/redis.pid" --logfile "$base/redis.log" >&2; then
    for _ in $(seq 1 50); do
      if redis-cli -p "$port" ping >/dev/null 2>&1; then
        echo "$base" >"$STATE_DIR/renio-redis-$port.dir"
        echo "redis://127.0.0.1:$port"
        exit 0
      fi
      sleep 0.1
    done
  fi
  rm -rf "$base"
done
echo "redis-start: could not start redis-server" >&2
exit 1
