# shellcheck shell=bash
# Helpers shared by the scripts that run a test engine as a local Java process
# (scripts/questdb.sh, scripts/s3proxy.sh, scripts/opensearch.sh). Sourced, not run.
# Each takes the engine's name first, for its messages.

# engine_fetch_jar NAME URL JAR: downloads URL to JAR once, checked against Maven Central's
# .sha1 next to it; a mismatch leaves nothing behind and exits.
engine_fetch_jar() {
  local name="$1" url="$2" jar="$3"
  [ -s "$jar" ] && return 0
  mkdir -p "$(dirname "$jar")"
  echo "$name: downloading $url" >&2
  curl -sSfL --retry 3 -o "$jar.part" "$url"
  local want got
  want="$(curl -sSfL --retry 3 "$url.sha1" | cut -c1-40)"
  got="$(sha1sum "$jar.part" | cut -c1-40)"
  if [ "$want" != "$got" ]; then
    rm -f "$jar.part"
    echo "$name: checksum mismatch for $url (expected $want, got $got)" >&2
    exit 1
  fi
  mv "$jar.part" "$jar"
}

# engine_running_pid PIDFILE MARKER: prints the pid in PIDFILE when that process is still
# ours (its command line contains MARKER, e.g. its data directory); fails otherwise.
engine_running_pid() {
  local pidfile="$1" marker="$2"
  [ -f "$pidfile" ] || return 1
  local pid; pid="$(cat "$pidfile")"
  [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$marker" && echo "$pid"
}

# engine_wait NAME PIDFILE LOG SECONDS CHECK...: runs CHECK every half second until it
# succeeds; exits with the log's tail when the process in PIDFILE dies first, or after SECONDS.
engine_wait() {
  local name="$1" pidfile="$2" log="$3" seconds="$4"
  shift 4
  local _
  for _ in $(seq 1 $((seconds * 2))); do
    "$@" && return 0
    # kill -0, not the command line: right after the fork the child may not have exec'd java yet.
    if ! kill -0 "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null; then
      echo "$name: the server exited during start-up (see $log)" >&2
      tail -n 20 "$log" >&2 || true
      exit 1
    fi
    sleep 0.5
  done
  "$@" || { echo "$name: not ready after $seconds s (see $log)" >&2; exit 1; }
}

# engine_stop PIDFILE MARKER SECONDS: stops our process (see engine_running_pid) with TERM,
# then KILL after SECONDS; removes PIDFILE either way.
engine_stop() {
  local pidfile="$1" marker="$2" seconds="$3"
  local pid _
  pid="$(engine_running_pid "$pidfile" "$marker")" || { rm -f "$pidfile"; return 0; }
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((seconds * 4))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}
