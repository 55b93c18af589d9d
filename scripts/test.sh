#!/usr/bin/env bash
# The README's test command: installs what is missing, starts the real engines the
# suites need (Postgres, Redis), runs lint, every TypeScript test and every Python test.
set -uo pipefail
cd "$(dirname "$0")/.."
export CI="${CI:-}"

# The lab with every extra the Python suites exercise, and the jars its Spark engine loads.
./scripts/setup.sh --lab "queue,dev,lakehouse,spark" --spark-jars --models || exit 1
export CAIRN_SPARK_JARS="$PWD/lab/.jars"
./scripts/engines.sh start >/dev/null || { echo "test: engines failed to start" >&2; exit 1; }
trap './scripts/engines.sh stop' EXIT
# shellcheck disable=SC1091
source .cairn-test/engines.env

BUN=node_modules/.bin/bun
status=0

echo "== lint"
node_modules/.bin/biome check . || status=1
node_modules/.bin/madge --circular --extensions ts --ts-config tsconfig.json --exclude 'node_modules|lab/' . || status=1
node_modules/.bin/tsc --noEmit -p . || status=1
(cd lab && .venv/bin/ruff check . && .venv/bin/ruff format --check .) || status=1

echo "== typescript tests"
ts_log="$(mktemp)"
CAIRN_LOG_LEVEL=silent $BUN test --timeout 30000 2>&1 | tee "$ts_log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
ts_pass=$(grep -Eo '^ *[0-9]+ pass' "$ts_log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
ts_fail=$(grep -Eo '^ *[0-9]+ fail' "$ts_log" | tail -1 | grep -Eo '[0-9]+' || echo 0)

echo "== python tests"
py_log="$(mktemp)"
(cd lab && .venv/bin/python -m pytest -q 2>&1) | tee "$py_log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
py_pass=$(grep -Eo '[0-9]+ passed' "$py_log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
py_fail=$(grep -Eo '[0-9]+ failed' "$py_log" | tail -1 | grep -Eo '[0-9]+' || echo 0)

echo
echo "typescript: $ts_pass passed, $ts_fail failed"
echo "python: $py_pass passed, $py_fail failed"
echo "total: $((ts_pass + py_pass)) passed, $((ts_fail + py_fail)) failed"
exit $status
