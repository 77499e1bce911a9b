#!/usr/bin/env bash
# A throwaway PostgreSQL server for Writ's tests and benchmarks.
#
#   tests/postgres/server.sh start DIR [PORT]   initdb in DIR, start a server
#                                               on 127.0.0.1:PORT, print its URL
#   tests/postgres/server.sh stop DIR           stop it at once (no checkpoint)
#   tests/postgres/server.sh restart DIR        start it again, on its port
#   tests/postgres/server.sh install            install Debian's postgresql if missing
#
# The server listens on loopback only (and a Unix socket in DIR), asks
# for a password (scram-sha-256) for its one role `writ`, and keeps its
# data in DIR/data; the password is in DIR/password, for PGPASSWORD.
# initdb refuses to run as root: as root, the server runs as the
# `postgres` user the package creates (DIR is handed to it).
set -euo pipefail

bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  return 1
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Start the server of DIR on PORT (loopback and a socket in DIR only),
# waiting until it accepts connections. For tests, durability is traded
# for speed (fsync off): the data is a test's, and a server stopped at
# once still recovers from its write-ahead log, which the operating system
# kept. WRIT_PG_DURABLE=1 keeps PostgreSQL's durable defaults (each commit
# flushed to disk), as a benchmark beside SQLite's flushed commits needs.
serve() {
  fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  if [ -n "${WRIT_PG_DURABLE:-}" ]; then fast=""; fi
  as_owner "$1/pg_ctl" -D "$2/data" -l "$2/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $3 -k $2 -c max_connections=300 $fast" \
    start >/dev/null || { cat "$2/server.log" >&2; exit 1; }
}

case "${1:-}" in
  install)
    if ! bindir >/dev/null; then
      echo "== installing PostgreSQL (Debian's postgresql package)" >&2
      export DEBIAN_FRONTEND=noninteractive
      # The package would start its own cluster as a service; on a
      # machine without an init system that fails the install. A
      # policy-rc.d that forbids starting services keeps it from trying
      # (the server here is started by hand, as the tests need it).
      made_policy=
      if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod +x /usr/sbin/policy-rc.d
        made_policy=1
      fi
      apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2 || true
      if [ -n "$made_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
    fi
    bindir || { echo "PostgreSQL could not be installed" >&2; exit 1; }
    ;;
  start)
    dir="${2:?usage: server.sh start DIR [PORT]}"
    port="${3:-$((20000 + RANDOM % 20000))}"
    bin="$(bindir)" || { echo "no PostgreSQL server binaries (tests/postgres/server.sh install)" >&2; exit 1; }
    mkdir -p "$dir"
    dir="$(realpath "$dir")"
    head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/password"
    if [ "$(id -u)" = 0 ]; then chown -R postgres "$dir"; chmod 700 "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -U writ --auth=scram-sha-256 \
      --pwfile="$dir/password" -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    echo "$port" >"$dir/port"
    serve "$bin" "$dir" "$port"
    echo "postgres://writ@127.0.0.1:$port/postgres"
    ;;
  restart)
    dir="$(realpath "${2:?usage: server.sh restart DIR}")"
    serve "$(bindir)" "$dir" "$(cat "$dir/port")"
    ;;
  stop)
    dir="${2:?usage: server.sh stop DIR}"
    bin="$(bindir)"
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    ;;
  *)
    echo "usage: server.sh install | start DIR [PORT] | stop DIR | restart DIR" >&2
    exit 2
    ;;
esac
