#!/usr/bin/env bash
# Neo4j 5.26 LTS Community for the graph tests, from Maven Central: scripts/neo4j/pom.xml
# resolves the test harness's dependency tree (the server, Bolt, Cypher) into a cache dir
# once; the server runs as `java -cp 'lib/*' org.neo4j.server.CommunityEntryPoint` on
# loopback, Bolt only, user neo4j with the password below. Data under .cairn-test/neo4j.
#   scripts/neo4j.sh start   -> waits until Bolt answers, writes .cairn-test/neo4j.env
#   scripts/neo4j.sh stop
# Env: CAIRN_TEST_NEO4J_PORT (57687), CAIRN_TEST_NEO4J_HEAP (384m).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/engine.sh
. scripts/lib/engine.sh
ROOT="$PWD/.cairn-test"
# 5.26 is the LTS line that runs on Java 17 (2025.x needs Java 21).
VERSION="${CAIRN_NEO4J_VERSION:-5.26.0}"
PORT="${CAIRN_TEST_NEO4J_PORT:-57687}"
HEAP="${CAIRN_TEST_NEO4J_HEAP:-384m}"
PASSWORD="cairn-test-neo4j"
HOME_DIR="$ROOT/neo4j"
CONF_DIR="$HOME_DIR/conf"
PIDFILE="$ROOT/neo4j.pid"
LOG="$ROOT/neo4j.log"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cairn"
LIB="$CACHE/neo4j-$VERSION/lib"

# The server logs "Started." to its own log once every database is online; then Bolt serves.
answers() { grep -q "INFO  Started\." "$HOME_DIR/logs/neo4j.log" 2>/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

running_pid() { engine_running_pid "$PIDFILE" "--home-dir=$HOME_DIR"; }

ensure_jars() {
  command -v java >/dev/null 2>&1 || { echo "neo4j: needs Java 17 (scripts/questdb.sh installs it)" >&2; exit 1; }
  [ -f "$LIB/.complete" ] && return 0
  command -v mvn >/dev/null 2>&1 || { echo "neo4j: needs Maven to resolve the jars from Maven Central" >&2; exit 1; }
  echo "neo4j: resolving Neo4j $VERSION from Maven Central into $LIB" >&2
  rm -rf "$LIB"
  mvn -q -B -f scripts/neo4j/pom.xml -Dneo4j.version="$VERSION" \
    dependency:copy-dependencies -DoutputDirectory="$LIB" >&2
  touch "$LIB/.complete"
}

start() {
  mkdir -p "$CONF_DIR" "$HOME_DIR/data" "$HOME_DIR/logs" "$HOME_DIR/plugins" "$HOME_DIR/import"
  if ! running_pid >/dev/null; then
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
      echo "neo4j: port $PORT already answers but not from $HOME_DIR; stop that server or set CAIRN_TEST_NEO4J_PORT" >&2
      exit 1
    fi
    ensure_jars
    cat >"$CONF_DIR/neo4j.conf" <<CONF
server.directories.data=$HOME_DIR/data
server.directories.logs=$HOME_DIR/logs
server.directories.plugins=$HOME_DIR/plugins
server.directories.import=$HOME_DIR/import
server.default_listen_address=127.0.0.1
server.bolt.enabled=true
server.bolt.listen_address=127.0.0.1:$PORT
server.bolt.advertised_address=127.0.0.1:$PORT
server.http.enabled=false
server.https.enabled=false
dbms.security.auth_enabled=true
dbms.usage_report.enabled=false
server.memory.pagecache.size=64m
db.tx_log.rotation.retention_policy=1 files
server.jvm.additional=-XX:+UseSerialGC
CONF
    # The password is set before the first start only (later starts keep the auth store).
    if [ ! -f "$HOME_DIR/data/dbms/auth.ini" ] && [ ! -d "$HOME_DIR/data/databases/system" ]; then
      NEO4J_HOME="$HOME_DIR" NEO4J_CONF="$CONF_DIR" java -Xmx128m -cp "$LIB/*" org.neo4j.cli.AdminTool \
        dbms set-initial-password "$PASSWORD" >>"$LOG" 2>&1
    fi
    : >"$HOME_DIR/logs/neo4j.log"
    setsid nohup java "-Xmx$HEAP" "-Xms$HEAP" -XX:+UseSerialGC -cp "$LIB/*" \
      org.neo4j.server.CommunityEntryPoint "--home-dir=$HOME_DIR" "--config-dir=$CONF_DIR" \
      >"$LOG" 2>&1 </dev/null &
    echo $! >"$PIDFILE"
  fi
  # The server writes its own log under logs/; stdout ($LOG) has only start-up failures.
  engine_wait neo4j "$PIDFILE" "$HOME_DIR/logs/neo4j.log" 120 answers
  cat >"$ROOT/neo4j.env" <<ENV
export CAIRN_TEST_NEO4J_URL=bolt://neo4j:$PASSWORD@127.0.0.1:$PORT
ENV
  cat "$ROOT/neo4j.env"
}

stop() { engine_stop "$PIDFILE" "--home-dir=$HOME_DIR" 30; }

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
