#!/usr/bin/env bash
# Installs (when missing) and starts the real engines the test suites need, on loopback
# ports, with state under .cairn-test/. Prints the environment to export.
#   scripts/engines.sh start   -> writes .cairn-test/engines.env
#   scripts/engines.sh stop
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD/.cairn-test"
PG_PORT="${CAIRN_TEST_PG_PORT:-55432}"
REDIS_PORT="${CAIRN_TEST_REDIS_PORT:-56379}"
mkdir -p "$ROOT"

apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "engines: installing ${missing[*]} from Debian" >&2
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

as_pg() {
  # initdb and postgres refuse to run as root; use the Debian 'postgres' user then.
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_postgres() {
  apt_install postgresql
  local bin; bin="$(pg_bin)"
  local data="$ROOT/pg"
  if [ ! -f "$data/PG_VERSION" ]; then
    rm -rf "$data"; mkdir -p "$data"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$data"
    as_pg "$bin/initdb" -D "$data" -U cairn --auth=trust -E UTF8 >/dev/null
  fi
  [ "$(id -u)" -eq 0 ] && chown -R postgres:postgres "$data"
  if ! as_pg "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_pg "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
      -o "-p $PG_PORT -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null
  fi
  as_pg "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U cairn -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname='cairn_test'" | grep -q 1 \
    || as_pg "$bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U cairn cairn_test
}

start_redis() {
  apt_install redis-server
  if ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
    # A server on this port that is still shutting down holds the socket: retry a while.
    for _ in $(seq 1 20); do
      redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --save "" --appendonly no \
        --dir "$ROOT" --pidfile "$ROOT/redis.pid" --logfile "$ROOT/redis.log" >/dev/null
      for _ in $(seq 1 20); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break 2; sleep 0.1; done
    done
  fi
  redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 || { echo "engines: redis did not start (see $ROOT/redis.log)" >&2; exit 1; }
}

ensure_libreoffice() {
  # Headless LibreOffice opens exported .xlsx files in the export tests. Any existing
  # install will do (the GUI suite conflicts with the -nogui one, so never add it next to one).
  command -v soffice >/dev/null 2>&1 && return 0
  apt_install libreoffice-calc-nogui
}

ensure_chromium() {
  # Debian's Chromium drives the dashboard's browser tests (test/browser.ts, playwright-core).
  [ -x /usr/bin/chromium ] && return 0
  apt_install chromium
}

case "${1:-start}" in
  start)
    start_postgres
    start_redis
    ensure_libreoffice
    ensure_chromium
    scripts/questdb.sh start >/dev/null
    scripts/opensearch.sh start >/dev/null
    scripts/s3proxy.sh start >/dev/null
    scripts/neo4j.sh start >/dev/null
    cat > "$ROOT/engines.env" <<ENV
export CAIRN_TEST_DATABASE_URL=postgres://cairn@127.0.0.1:$PG_PORT/cairn_test
export CAIRN_TEST_REDIS_URL=redis://127.0.0.1:$REDIS_PORT
ENV
    cat "$ROOT/questdb.env" >> "$ROOT/engines.env"
    cat "$ROOT/opensearch.env" >> "$ROOT/engines.env"
    cat "$ROOT/s3proxy.env" >> "$ROOT/engines.env"
    cat "$ROOT/neo4j.env" >> "$ROOT/engines.env"
    cat "$ROOT/engines.env"
    ;;
  stop)
    bin="$(pg_bin)"
    [ -d "$ROOT/pg" ] && as_pg "$bin/pg_ctl" -D "$ROOT/pg" -m fast stop >/dev/null 2>&1 || true
    redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
    scripts/questdb.sh stop || true
    scripts/opensearch.sh stop || true
    scripts/s3proxy.sh stop || true
    scripts/neo4j.sh stop || true
    ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
