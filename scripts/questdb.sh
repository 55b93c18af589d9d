#!/usr/bin/env bash
# QuestDB for the cluster-profile time-series tests: downloads the jar from Maven Central
# once (cached under ${XDG_CACHE_HOME:-$HOME/.cache}/cairn/), runs it on Java 17 bound to
# loopback test ports, with its data under .cairn-test/questdb.
#   scripts/questdb.sh start   -> waits until healthy, writes .cairn-test/questdb.env
#   scripts/questdb.sh stop
# Ports (env): CAIRN_TEST_QUESTDB_HTTP_PORT 59000 (REST /exec and ILP over HTTP),
# CAIRN_TEST_QUESTDB_PG_PORT 58812, CAIRN_TEST_QUESTDB_ILP_PORT 59009 (ILP over TCP),
# CAIRN_TEST_QUESTDB_HEALTH_PORT 59003 (min-http health). CAIRN_TEST_QUESTDB_HEAP (768m).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/engine.sh
. scripts/lib/engine.sh
ROOT="$PWD/.cairn-test"
# 9.3.x is the last line that runs on Java 17 (9.4+ needs Java 25); 9.3.4 is the newest 9.3
# release on Maven Central.
VERSION="${CAIRN_QUESTDB_VERSION:-9.3.4}"
HTTP_PORT="${CAIRN_TEST_QUESTDB_HTTP_PORT:-59000}"
PG_PORT="${CAIRN_TEST_QUESTDB_PG_PORT:-58812}"
ILP_PORT="${CAIRN_TEST_QUESTDB_ILP_PORT:-59009}"
HEALTH_PORT="${CAIRN_TEST_QUESTDB_HEALTH_PORT:-59003}"
HEAP="${CAIRN_TEST_QUESTDB_HEAP:-768m}"
DATA="$ROOT/questdb"
PIDFILE="$ROOT/questdb.pid"
LOG="$ROOT/questdb.log"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cairn"
JAR="$CACHE/questdb-$VERSION.jar"
URL="https://repo1.maven.org/maven2/org/questdb/questdb/$VERSION/questdb-$VERSION.jar"

healthy() {
  curl -sf -m 2 "http://127.0.0.1:$HEALTH_PORT/" >/dev/null 2>&1 &&
    curl -sf -m 2 "http://127.0.0.1:$HTTP_PORT/exec?query=SELECT%201" >/dev/null 2>&1
}

# The pid in the pid file, when that process is still our QuestDB on this data directory.
running_pid() { engine_running_pid "$PIDFILE" "-d $DATA"; }

ensure_java() {
  if ! command -v java >/dev/null 2>&1; then
    echo "questdb: installing openjdk-17-jre-headless from Debian" >&2
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >/dev/null
  fi
  local major
  major="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)"
  if [ -z "$major" ] || [ "$major" -lt 17 ]; then
    echo "questdb: QuestDB $VERSION needs Java 17 or newer (found: ${major:-none})" >&2
    exit 1
  fi
}

start() {
  mkdir -p "$DATA"
  if ! running_pid >/dev/null; then
    if healthy; then
      echo "questdb: ports $HTTP_PORT/$HEALTH_PORT already answer but not from $DATA; stop that server or choose other ports" >&2
      exit 1
    fi
    ensure_java
    engine_fetch_jar questdb "$URL" "$JAR"
    # Server settings as QDB_* environment overrides (QuestDB's server.conf keys, upper-cased).
    # ILP never creates tables or columns: tables come only from CREATE TABLE (docs/rtdb.md).
    QDB_HTTP_BIND_TO="127.0.0.1:$HTTP_PORT" \
      QDB_HTTP_MIN_NET_BIND_TO="127.0.0.1:$HEALTH_PORT" \
      QDB_PG_NET_BIND_TO="127.0.0.1:$PG_PORT" \
      QDB_LINE_TCP_NET_BIND_TO="127.0.0.1:$ILP_PORT" \
      QDB_TELEMETRY_ENABLED=false \
      QDB_LINE_AUTO_CREATE_NEW_COLUMNS=false \
      QDB_LINE_AUTO_CREATE_NEW_TABLES=false \
      setsid nohup java \
      --add-exports java.base/jdk.internal.math=io.questdb \
      -ea -Dnoebug -XX:+UseParallelGC -Xms128m "-Xmx$HEAP" \
      "-XX:ErrorFile=$ROOT/questdb-hs_err_%p.log" \
      -p "$JAR" -m io.questdb/io.questdb.ServerMain -d "$DATA" \
      >"$LOG" 2>&1 </dev/null &
    echo $! >"$PIDFILE"
  fi
  engine_wait questdb "$PIDFILE" "$LOG" 90 healthy
  cat >"$ROOT/questdb.env" <<ENV
export CAIRN_TEST_QUESTDB_URL=http://127.0.0.1:$HTTP_PORT
ENV
  cat "$ROOT/questdb.env"
}

stop() { engine_stop "$PIDFILE" "-d $DATA" 30; }

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
