#!/usr/bin/env bash
# The README's run command: installs what is missing, starts the lab's lakehouse gateway,
# seeds the demo tenant and users, prints working credentials and starts the service on
# the embedded profile (no servers to install).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --lab "queue,lakehouse" --models
BUN=node_modules/.bin/bun
export PORT="${PORT:-8080}"
export CAIRN_DATA_DIR="${CAIRN_DATA_DIR:-.cairn-data}"
mkdir -p "$CAIRN_DATA_DIR/lakehouse"
data="$(cd "$CAIRN_DATA_DIR" && pwd)"

# The lakehouse gateway (PyIceberg SQL catalog + DuckDB) on a free loopback port.
gateway_log="$data/lakehouse/gateway.log"
lab/.venv/bin/python -m lab.lakehouse.gateway --host 127.0.0.1 --port 0 \
  --warehouse "$data/lakehouse/warehouse" --catalog-uri "sqlite:///$data/lakehouse/catalog.db" \
  > "$gateway_log" 2>&1 &
gateway_pid=$!
trap 'kill "$gateway_pid" 2>/dev/null || true' EXIT INT TERM
port=""
for _ in $(seq 1 200); do
  port="$(grep -o '"port": *[0-9]*' "$gateway_log" 2>/dev/null | head -1 | grep -o '[0-9]*$' || true)"
  [ -n "$port" ] && break
  kill -0 "$gateway_pid" 2>/dev/null || { cat "$gateway_log" >&2; echo "run: the lakehouse gateway failed to start" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "run: the lakehouse gateway did not report its port" >&2; exit 1; }
export CAIRN_LAKEHOUSE_URL="http://127.0.0.1:$port"

$BUN cli.ts seed >/dev/null
# News history for the demo from the shared samples (idempotent: articles are keyed by URL).
# Demo data: the real public samples beside the repository, when present (each ingest is
# idempotent, so a restart re-reads nothing it already has). Without them the data
# endpoints start empty; `bun run cli ingest-sec --online ...` fetches from the SEC.
shared=../shared/data
if [ -d "$shared" ]; then
  echo "run: loading demo data from $shared (first start takes a little while)" >&2
  [ -d "$shared/sec" ] && $BUN cli.ts ingest-sec --dir "$shared/sec" >/dev/null
  [ -d "$shared/transcripts" ] && $BUN cli.ts ingest-transcripts --dir "$shared/transcripts" >/dev/null
  [ -d "$shared/sec/8k" ] && $BUN cli.ts ingest-filings --dir "$shared/sec/8k" >/dev/null
  $BUN cli.ts build-topics --data-dir "$shared" >/dev/null
  [ -d "$shared/news" ] && $BUN cli.ts ingest-news --dir "$shared/news" >/dev/null
fi
TOKEN="$($BUN cli.ts token --email demo@cairn.local)"
KEY="$($BUN cli.ts demo-key)"
ADMIN="$($BUN cli.ts admin-key)"
cat <<MSG

Cairn (embedded profile) -> http://localhost:$PORT   docs: http://localhost:$PORT/docs
Lakehouse gateway:  $CAIRN_LAKEHOUSE_URL
Demo user:  demo@cairn.local (enterprise tier, tenant 'demo')
  JWT:      $TOKEN
  API key:  $KEY
Admin key:  $ADMIN
Try:        curl -H "Authorization: Bearer $TOKEN" http://localhost:$PORT/v1/user/me

MSG
$BUN main.ts &
service_pid=$!
trap 'kill -TERM "$service_pid" 2>/dev/null; wait "$service_pid" 2>/dev/null; kill "$gateway_pid" 2>/dev/null || true' EXIT INT TERM
wait "$service_pid"
