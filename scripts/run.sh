#!/usr/bin/env bash
# The README's run command: installs what is missing, starts the lab's lakehouse gateway,
# seeds the demo tenant and users, prints working credentials and starts the service on
# the embedded profile (no servers to install).
#
# Every process it starts lives and dies with it (issue 13):
#  - the gateway, the lab worker (Foundry model training) and the service each run in their own
#    process group (setsid), so one signal also reaches what they start themselves (the
#    service's embedding host, the worker's algorithm processes);
#  - Ctrl-C, SIGTERM, a normal exit, or any of the three exiting: the trap stops the service
#    (SIGTERM, so it flushes usage and closes cleanly), then the worker and the gateway, SIGKILL
#    after a grace;
#  - SIGKILL of this script runs no trap: the kernel sends SIGTERM to the gateway, the service
#    and the CLI steps (setpriv --pdeathsig), and a watchdog per group stops the whole group.
# CAIRN_RUN_SKIP_DEMO_DATA=1 skips loading ../shared/data (the slow part of a first start).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --lab "queue,lakehouse,ml" --models
./scripts/serve-venv.sh
BUN=node_modules/.bin/bun
export PORT="${PORT:-8080}"
export CAIRN_DATA_DIR="${CAIRN_DATA_DIR:-.cairn-data}"
mkdir -p "$CAIRN_DATA_DIR/lakehouse"
data="$(cd "$CAIRN_DATA_DIR" && pwd)"

# A CLI step that dies with this script even if it is SIGKILLed. It runs in the background
# and is waited for, because bash defers a trap until a foreground command ends (an ingest
# takes minutes); the trap stops it.
step_pid=""
bound() {
  setpriv --pdeathsig TERM -- "$@" &
  step_pid=$!
  local rc=0
  wait "$step_pid" || rc=$?
  step_pid=""
  return "$rc"
}

# SIGTERM to a process group, SIGKILL to what is left of it after `grace` seconds.
stop_group() { # pgid grace
  kill -TERM -- "-$1" 2>/dev/null || return 0
  for _ in $(seq 1 $(($2 * 10))); do
    kill -0 -- "-$1" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL -- "-$1" 2>/dev/null || true
}

stop_pid() { # pid: SIGTERM, SIGKILL after 5 seconds
  kill -TERM "$1" 2>/dev/null || return 0
  for _ in $(seq 1 50); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$1" 2>/dev/null || true
}

groups=() # pgids, stopped in reverse start order
watchdogs=()
# Starts a long-lived child in its own process group (its pid is the group id) plus a
# watchdog that stops the group once this script is gone. setsid does not fork here: a
# background job of a non-interactive shell is never a group leader, so $! is the child.
start_group() { # grace cmd...
  local grace=$1
  shift
  setsid setpriv --pdeathsig TERM -- "$@" &
  local pgid=$!
  groups+=("$pgid")
  (
    trap - EXIT INT TERM
    while kill -0 "$$" 2>/dev/null; do sleep 0.5; done
    stop_group "$pgid" "$grace"
  ) </dev/null >/dev/null 2>&1 &
  watchdogs+=($!)
}

cleanup() {
  trap - EXIT INT TERM
  local i
  if [ -n "$step_pid" ]; then stop_pid "$step_pid"; fi
  for ((i = ${#groups[@]} - 1; i >= 0; i--)); do stop_group "${groups[i]}" 15; done
  for i in "${watchdogs[@]}"; do kill "$i" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The lakehouse gateway (PyIceberg SQL catalog + DuckDB) on a free loopback port.
gateway_log="$data/lakehouse/gateway.log"
start_group 5 lab/.venv/bin/python -m lab.lakehouse.gateway --host 127.0.0.1 --port 0 \
  --warehouse "$data/lakehouse/warehouse" --catalog-uri "sqlite:///$data/lakehouse/catalog.db" \
  > "$gateway_log" 2>&1
gateway_pid="${groups[0]}"
port=""
for _ in $(seq 1 200); do
  port="$(grep -o '"port": *[0-9]*' "$gateway_log" 2>/dev/null | head -1 | grep -o '[0-9]*$' || true)"
  [ -n "$port" ] && break
  kill -0 "$gateway_pid" 2>/dev/null || { cat "$gateway_log" >&2; echo "run: the lakehouse gateway failed to start" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "run: the lakehouse gateway did not report its port" >&2; exit 1; }
export CAIRN_LAKEHOUSE_URL="http://127.0.0.1:$port"
# The catalog the gateway serves, as the lab worker opens it for model training (the job carries both).
export CAIRN_LAKEHOUSE_CATALOG_URI="sqlite:///$data/lakehouse/catalog.db"
export CAIRN_LAKEHOUSE_WAREHOUSE="$data/lakehouse/warehouse"

# MLServer (the inference server of deployed Foundry models, docs/foundry-serving.md) on a free
# loopback port, its model repository in the data directory: deployed models load again at start.
mlserver_log="$data/inference.log"
start_group 10 lab/.venv-serve/bin/python -m lab.serving.serve --repository "$data/inference" > "$mlserver_log" 2>&1
mlserver_pid="${groups[-1]}"
mlserver_port=""
for _ in $(seq 1 200); do
  mlserver_port="$(grep -o '"port": *[0-9]*' "$mlserver_log" 2>/dev/null | head -1 | grep -o '[0-9]*$' || true)"
  [ -n "$mlserver_port" ] && break
  kill -0 "$mlserver_pid" 2>/dev/null || { cat "$mlserver_log" >&2; echo "run: MLServer failed to start" >&2; exit 1; }
  sleep 0.1
done
[ -n "$mlserver_port" ] || { echo "run: MLServer did not report its port" >&2; exit 1; }
export CAIRN_FOUNDRY_INFERENCE_URL="http://127.0.0.1:$mlserver_port"
export CAIRN_FOUNDRY_INFERENCE_REPOSITORY="$data/inference"

bound $BUN cli/index.ts seed >/dev/null
# Demo data: the real public samples beside the repository, when present (each ingest is
# idempotent, so a restart re-reads nothing it already has). Without them the data
# endpoints start empty; `bun run cli ingest-sec --online ...` fetches from the SEC.
shared=../shared/data
if [ -d "$shared" ] && [ "${CAIRN_RUN_SKIP_DEMO_DATA:-0}" != 1 ]; then
  echo "run: loading demo data from $shared (first start takes a little while)" >&2
  [ -d "$shared/sec" ] && bound $BUN cli/index.ts ingest-sec --dir "$shared/sec" >/dev/null
  [ -d "$shared/transcripts" ] && bound $BUN cli/index.ts ingest-transcripts --dir "$shared/transcripts" >/dev/null
  [ -d "$shared/sec/8k" ] && bound $BUN cli/index.ts ingest-filings --dir "$shared/sec/8k" >/dev/null
  bound $BUN cli/index.ts build-topics --data-dir "$shared" >/dev/null
  [ -d "$shared/news" ] && bound $BUN cli/index.ts ingest-news --dir "$shared/news" >/dev/null
  # Market bars for the demo tenant's real-time tables (Foundry time-series features read them).
  [ -d "$shared/market" ] && bound $BUN cli/index.ts ingest-market --tenant demo --dir "$shared/market" >/dev/null
fi
# The demo tenant's ML sets as custom lakehouse tables (replace mode: a restart changes nothing).
# german_credit always (from fixtures/ml/ without the shared data); the rest unless
# CAIRN_RUN_SKIP_DEMO_DATA=1, which the command reads itself.
bound $BUN cli/index.ts load-demo-tables --tenant demo --dir "$shared/ml" >/dev/null
# The financial data the service holds (companies, statements, ratios, segments, filings, news,
# daily bars) as the demo tenant's lakehouse tables; empty tables when no demo data was loaded.
bound $BUN cli/index.ts foundry-sync --tenant demo >/dev/null
TOKEN="$(bound $BUN cli/index.ts token --email demo@cairn.local)"
# The same key on every start (kept in the data directory, mode 0600), so printed keys keep working.
KEY="$(bound $BUN cli/index.ts demo-key)"
ADMIN="$(bound $BUN cli/index.ts admin-key)"
cat <<MSG

Cairn (embedded profile) -> http://localhost:$PORT   docs: http://localhost:$PORT/docs
Lakehouse gateway:  $CAIRN_LAKEHOUSE_URL
Inference server:   $CAIRN_FOUNDRY_INFERENCE_URL (MLServer, deployed Foundry models)
Demo user:  demo@cairn.local (enterprise tier, tenant 'demo')
  JWT:      $TOKEN
  API key:  $KEY
Admin key:  $ADMIN
Try:        curl -H "Authorization: Bearer $TOKEN" http://localhost:$PORT/v1/user/me

MSG
# The lab worker that trains Foundry models (queue foundry-train on the embedded queue in the
# control-plane file the seed step migrated), in its own group like the gateway: its algorithm
# processes die with it.
worker_log="$data/lakehouse/lab-worker.log"
start_group 15 lab/.venv/bin/python -m lab.worker --queue foundry-train --sqlite "$data/control-plane.sqlite" \
  > "$worker_log" 2>&1
worker_pid="${groups[-1]}"
# Bun's own header limit is raised past ours (16 KiB, http/app.ts), so an oversized header
# gets our 431 problem document instead of Bun's empty one.
start_group 15 $BUN --max-http-header-size=65536 main.ts
service_pid="${groups[-1]}"
# Whichever of the three ends first ends the run (the trap stops the others); its status is ours.
status=0
wait -n "$service_pid" "$gateway_pid" "$worker_pid" "$mlserver_pid" || status=$?
if ! kill -0 "$gateway_pid" 2>/dev/null; then echo "run: the lakehouse gateway exited (see $gateway_log)" >&2; fi
if ! kill -0 "$worker_pid" 2>/dev/null; then echo "run: the lab worker exited (see $worker_log)" >&2; fi
if ! kill -0 "$mlserver_pid" 2>/dev/null; then echo "run: MLServer exited (see $mlserver_log)" >&2; fi
exit "$status"
