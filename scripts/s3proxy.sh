#!/usr/bin/env bash
# An S3-compatible object store for the object-storage tests: S3Proxy (Maven Central,
# org.gaul:s3proxy, jar with dependencies) serving the S3 API over a local directory,
# with SigV4 auth, bound to loopback. Downloaded once, cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/cairn/; data under .cairn-test/s3proxy.
#   scripts/s3proxy.sh start   -> waits until it answers, writes .cairn-test/s3proxy.env
#   scripts/s3proxy.sh stop
# Env: CAIRN_TEST_S3_PORT (59480), CAIRN_TEST_S3_HEAP (256m).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/engine.sh
. scripts/lib/engine.sh
ROOT="$PWD/.cairn-test"
# 2.x runs on Java 11+ (this machine kind has Java 17).
VERSION="${CAIRN_S3PROXY_VERSION:-2.6.0}"
PORT="${CAIRN_TEST_S3_PORT:-59480}"
HEAP="${CAIRN_TEST_S3_HEAP:-256m}"
BUCKET="cairn-test"
KEY_ID="cairn-test"
SECRET="cairn-test-secret"
DATA="$ROOT/s3proxy"
PIDFILE="$ROOT/s3proxy.pid"
LOG="$ROOT/s3proxy.log"
CONF="$ROOT/s3proxy.conf"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cairn"
JAR="$CACHE/s3proxy-$VERSION.jar"
URL="https://repo1.maven.org/maven2/org/gaul/s3proxy/$VERSION/s3proxy-$VERSION-jar-with-dependencies.jar"

# Any answer (403 without credentials) means the server is up.
answers() { [ "$(curl -s -m 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/" 2>/dev/null)" != "000" ]; }

running_pid() { engine_running_pid "$PIDFILE" "--properties $CONF"; }

ensure_jar() {
  command -v java >/dev/null 2>&1 || { echo "s3proxy: needs Java 11 or newer (scripts/questdb.sh installs it)" >&2; exit 1; }
  engine_fetch_jar s3proxy "$URL" "$JAR"
}

start() {
  # The filesystem backend maps a bucket to a directory under the base directory.
  mkdir -p "$DATA/$BUCKET"
  if ! running_pid >/dev/null; then
    if answers; then
      echo "s3proxy: port $PORT already answers but not from $CONF; stop that server or set CAIRN_TEST_S3_PORT" >&2
      exit 1
    fi
    ensure_jar
    cat >"$CONF" <<CONF
s3proxy.endpoint=http://127.0.0.1:$PORT
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$KEY_ID
s3proxy.credential=$SECRET
jclouds.provider=filesystem
jclouds.filesystem.basedir=$DATA
CONF
    setsid nohup java "-Xmx$HEAP" -XX:+UseSerialGC -jar "$JAR" --properties "$CONF" >"$LOG" 2>&1 </dev/null &
    echo $! >"$PIDFILE"
  fi
  engine_wait s3proxy "$PIDFILE" "$LOG" 60 answers
  cat >"$ROOT/s3proxy.env" <<ENV
export CAIRN_TEST_S3_URL=http://$KEY_ID:$SECRET@127.0.0.1:$PORT/$BUCKET
ENV
  cat "$ROOT/s3proxy.env"
}

stop() { engine_stop "$PIDFILE" "--properties $CONF" 10; }

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
