#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster (temp dir, free loopback port, trust auth) and prints
# its URL: postgres://postgres@127.0.0.1:PORT/renio. Stop it with scripts/pg-stop.sh.
# Works as root (the server runs as the OS user `postgres`) or as any other user.
# Env: PG_BIN (dir of initdb/pg_ctl), RENIO_PG_FSYNC=off to trade durability for speed.
set -euo pipefail

find_pg_bin() {
  local found
  found=$(command -v initdb || true)
  if [ -z "$found" ]; then found=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1 || true); fi
  [ -n "$found" ] && dirname "$(readlink -f "$found")"
}
if [ -z "${PG_BIN:-}" ] && ! find_pg_bin >/dev/null; then
  # A fresh Debian machine: install the server binaries when we may (root), else say what is missing.
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "pg-start: installing PostgreSQL (apt-get install postgresql)" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } >&2
  else
    echo "pg-start: PostgreSQL server binaries (initdb, pg_ctl) not found; install PostgreSQL 15 or set PG_BIN" >&2
    exit 1
  fi
fi
PG_BIN=${PG_BIN:-$(find_pg_bin)}
STATE_DIR=${RENIO_PG_STATE_DIR:-${TMPDIR:-/tmp}}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

base=$(mktemp -d "${TMPDIR:-/tmp}/renio-pg.XXXXXX")
chmod 0755 "$base"
if [ "$(id -u)" = 0 ]; then chown postgres "$base"; fi

as_owner "$PG_BIN/initdb" -D "$base/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$base/initdb.log" 2>&1 || {
  cat "$base/initdb.log" >&2; exit 1; }

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

started=""
for _ in $(seq 1 20); do
  port=$((20000 + RANDOM % 40000))
  port_free "$port" || continue
  # Settings go into postgresql.conf (last one wins) so a plain `pg_ctl start` restarts it as is.
  printf "listen_addresses = '127.0.0.1'\nport = %s\nunix_socket_directories = '%s'\nfsync = %s\nmax_connections = 200\n" \
    "$port" "$base" "${RENIO_PG_FSYNC:-on}" | as_owner tee -a "$base/data/postgresql.conf" >/dev/null
  if as_owner "$PG_BIN/pg_ctl" -D "$base/data" -l "$base/server.log" -w -t 30 -s start >&2; then
    started=$port
    break
  fi
done
if [ -z "$started" ]; then
  echo "pg-start: could not start PostgreSQL (see $base/server.log)" >&2
  exit 1
fi

as_owner "$PG_BIN/psql" -q -h 127.0.0.1 -p "$started" -U postgres -d postgres -c "create database renio" >&2

echo "$started" >"$base/port"
echo "$base" >"$STATE_DIR/renio-pg-$started.dir"
echo "$base" >"$STATE_DIR/renio-pg-last.dir"
echo "postgres://postgres@127.0.0.1:$started/renio"
