#!/usr/bin/env bash
# The README's run command: installs what is missing, seeds the demo tenant and users,
# prints working credentials and starts the service on the embedded profile.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUN=node_modules/.bin/bun
export PORT="${PORT:-8080}"
export CAIRN_DATA_DIR="${CAIRN_DATA_DIR:-.cairn-data}"

$BUN cli.ts seed >/dev/null
TOKEN="$($BUN cli.ts token --email demo@cairn.local)"
KEY="$($BUN cli.ts demo-key)"
ADMIN="$($BUN cli.ts admin-key)"
cat <<MSG

Cairn (embedded profile) -> http://localhost:$PORT   docs: http://localhost:$PORT/docs
Demo user:  demo@cairn.local (enterprise tier, tenant 'demo')
  JWT:      $TOKEN
  API key:  $KEY
Admin key:  $ADMIN
Try:        curl -H "Authorization: Bearer $TOKEN" http://localhost:$PORT/v1/user/me

MSG
exec $BUN main.ts
