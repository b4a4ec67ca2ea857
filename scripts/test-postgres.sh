#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback for the shared-store tests.
#
#   eval "$(scripts/test-postgres.sh start)"   # prints: export BASTION_TEST_POSTGRES=postgres://…
#   scripts/test-postgres.sh stop
#
# `start` installs PostgreSQL (Debian package `postgresql`) when no initdb is found,
# creates a cluster in $BASTION_PG_DIR (default: a fresh temp dir, remembered in
# .ci/test-postgres.dir of this checkout for `stop`) owned by an unprivileged user (the `postgres`
# account when it exists, else `nobody`: the server refuses to run as root), with trust
# authentication for the superuser `bastion`, listening on 127.0.0.1 only, on the first
# free port from $BASTION_PG_PORT (default 54329), fsync off (test data only), and its
# Unix socket in the cluster directory. Every test creates its own database in it.
# Progress goes to stderr; stdout carries only the export line.
set -euo pipefail
cd "$(dirname "$0")/.."

STATE=${BASTION_PG_STATE:-$PWD/.ci/test-postgres.dir}

find_bin() {
  local name=$1 p
  if p=$(command -v "$name" 2>/dev/null); then echo "$p"; return 0; fi
  for p in /usr/lib/postgresql/*/bin/"$name"; do
    [ -x "$p" ] && { echo "$p"; return 0; }
  done
  return 1
}

port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start() {
  stop # a cluster left by an earlier run of this checkout
  if ! find_bin initdb >/dev/null; then
    echo "installing PostgreSQL (Debian package postgresql)" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  local initdb pg_ctl dir port user run=()
  initdb=$(find_bin initdb)
  pg_ctl=$(find_bin pg_ctl)
  dir=${BASTION_PG_DIR:-$(mktemp -d /tmp/bastion-pg.XXXXXX)}
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then
    if id postgres >/dev/null 2>&1; then user=postgres; else user=nobody; fi
    chown "$user" "$dir"
    chmod 700 "$dir"
    run=(runuser -u "$user" --)
  fi
  port=${BASTION_PG_PORT:-54329}
  for _ in $(seq 1 20); do
    port_free "$port" && break
    port=$((port + 1))
  done
  port_free "$port" || { echo "no free port for PostgreSQL near ${BASTION_PG_PORT:-54329}" >&2; exit 1; }
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    "${run[@]}" "$initdb" -D "$dir/data" -U bastion --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null 2>&1 \
      || "${run[@]}" "$initdb" -D "$dir/data" -U bastion --auth=trust --encoding=UTF8 --no-locale >&2
  fi
  "${run[@]}" "$pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >&2
  echo "$dir" > "$STATE"
  echo "PostgreSQL test cluster in $dir on 127.0.0.1:$port" >&2
  echo "export BASTION_TEST_POSTGRES=postgres://bastion@127.0.0.1:$port/postgres"
}

stop() {
  [ -f "$STATE" ] || return 0
  local dir run=()
  dir=$(cat "$STATE")
  [ -d "$dir/data" ] || { rm -rf "$STATE"; return 0; }
  if [ "$(id -u)" = 0 ]; then run=(runuser -u "$(stat -c %U "$dir")" --); fi
  "${run[@]}" "$(find_bin pg_ctl)" -D "$dir/data" -m fast -w stop >&2 || true
  rm -rf "$dir" "$STATE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
