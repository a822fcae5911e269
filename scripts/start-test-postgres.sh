#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on 127.0.0.1 for the store and API tests, and prints its URL.
# Usage: eval "$(scripts/start-test-postgres.sh)"   → exports TEST_DATABASE_URL
set -euo pipefail
port="${PGPORT_TEST:-54329}"
dir="${PGDATA_TEST:-/tmp/vantage-test-pg}"
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bin" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
run() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

if ! run "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
  rm -rf "$dir"; mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  run "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 >/dev/null
  run "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -o "-c listen_addresses=127.0.0.1 -p $port -k /tmp" -w start >/dev/null
fi
echo "export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres"
