#!/usr/bin/env bash
# The README's test command: installs what is missing, starts the real engines the suites
# need, runs lint, every TypeScript test and every Python test.
#
# A suite that crashes (a signal, a runtime panic, a hang past its time limit) or ends without
# its runner's summary is reported as a failure with its exit status and last output lines —
# never as "0 passed". Under CI a skipped test is a failure too: every engine and data set a
# suite may skip for locally is installed or present there.
#   --unit   the fast subset: pure code (domain/, actors/, config), no engines, no install
set -uo pipefail
cd "$(dirname "$0")/.."
export CI="${CI:-}"
BUN=node_modules/.bin/bun

if [ "${1:-}" = "--unit" ]; then
  [ -x "$BUN" ] || ./scripts/setup.sh || exit 1
  exec env CAIRN_LOG_LEVEL=silent "$BUN" test --timeout 30000 domain actors config config.test.ts config.news.test.ts
fi

# The lab with every extra the Python suites exercise, the jars its Spark engine loads, the
# embedding models; then the engines (PostgreSQL, Redis, QuestDB, OpenSearch, S3Proxy, Neo4j, and
# LibreOffice for the export checks). See the README for what a first run installs.
./scripts/setup.sh --lab "queue,dev,lakehouse,spark,ml" --spark-jars --models || { echo "test: set-up failed" >&2; exit 1; }
# MLServer's own venv for the serving suites (lab/.venv-serve; skipped when its pins are unchanged).
./scripts/serve-venv.sh || { echo "test: set-up of lab/.venv-serve failed" >&2; exit 1; }
if [ -n "$CI" ] && ! git diff --quiet -- package-lock.json 2>/dev/null; then
  echo "test: the install rewrote package-lock.json; commit the lock file a clean install writes" >&2
  git diff --stat -- package-lock.json >&2
  exit 1
fi
export CAIRN_SPARK_JARS="$PWD/lab/.jars"
./scripts/engines.sh start >/dev/null || { echo "test: engines failed to start" >&2; exit 1; }
trap './scripts/engines.sh stop' EXIT
# shellcheck disable=SC1091
source .cairn-test/engines.env

status=0
summary=()
total_pass=0
total_fail=0

# Names a process's exit status: "exit status N", or the signal that killed it.
describe_exit() {
  local rc=$1
  if [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; then
    echo "killed by signal SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128))) (exit status $rc)"
  elif [ "$rc" -eq 124 ]; then
    echo "stopped after its time limit (exit status 124)"
  else
    echo "exit status $rc"
  fi
}

# report NAME RC PASS FAIL SKIP COMPLETE LOG: one line per suite; a crash or a missing summary
# counts as one failure so the total never reads as clean.
report() {
  local name=$1 rc=$2 pass=$3 fail=$4 skip=$5 complete=$6 log=$7
  if [ "$complete" != 1 ]; then
    status=1
    total_pass=$((total_pass + pass))
    total_fail=$((total_fail + fail + 1))
    summary+=("$name: CRASHED — $(describe_exit "$rc"), no summary from the runner; $pass passed and $fail failed before it")
    echo "== $name crashed ($(describe_exit "$rc")); its last output lines:" >&2
    tail -n 40 "$log" >&2
    return
  fi
  [ "$rc" -eq 0 ] || status=1
  if [ -n "$CI" ] && [ "$skip" -gt 0 ]; then
    status=1
    summary+=("$name: $skip skipped under CI (every suite must run here; see the [skip] notes above)")
  fi
  total_pass=$((total_pass + pass))
  total_fail=$((total_fail + fail))
  summary+=("$name: $pass passed, $fail failed, $skip skipped ($(describe_exit "$rc"))")
}

echo "== lint"
node_modules/.bin/biome check . || status=1
node_modules/.bin/madge --circular --extensions ts --ts-config tsconfig.json --exclude 'node_modules|lab/' . || status=1
node_modules/.bin/tsc --noEmit -p . || status=1
(cd lab && .venv/bin/ruff check . && .venv/bin/ruff format --check .) || status=1

echo "== typescript tests"
ts_log="$(mktemp)"
CAIRN_LOG_LEVEL=silent timeout --kill-after=30 2400 "$BUN" test --timeout 30000 2>&1 | tee "$ts_log"
ts_rc=${PIPESTATUS[0]}
# Bun's closing lines: " N pass", " N skip", " N fail", "Ran N tests across M files."
ts_count() { grep -Eo "^ *[0-9]+ $1\$" "$ts_log" | tail -1 | grep -Eo '[0-9]+' || echo 0; }
ts_complete=0
grep -Eq '^Ran [0-9]+ tests? across [0-9]+ files?' "$ts_log" && ts_complete=1
report typescript "$ts_rc" "$(ts_count pass)" "$(ts_count fail)" "$(ts_count skip)" "$ts_complete" "$ts_log"

echo "== python tests"
py_log="$(mktemp)"
(cd lab && timeout --kill-after=30 1200 .venv/bin/python -m pytest -q -rs 2>&1) | tee "$py_log"
py_rc=${PIPESTATUS[0]}
py_count() { grep -E '^=*.* in [0-9.]+s' "$py_log" | tail -1 | grep -Eo "[0-9]+ $1" | grep -Eo '[0-9]+' || echo 0; }
py_complete=0
# pytest's closing line ("N passed, M skipped in 1.2s"); exit 5 (no tests collected) is a failure.
grep -Eq '^=*.* in [0-9.]+s' "$py_log" && [ "$py_rc" -ne 5 ] && [ "$py_rc" -lt 128 ] && py_complete=1
report python "$py_rc" "$(py_count passed)" "$(( $(py_count failed) + $(py_count error) ))" "$(py_count skipped)" "$py_complete" "$py_log"

echo
for line in "${summary[@]}"; do echo "$line"; done
echo "total: $total_pass passed, $total_fail failed"
[ "$status" -eq 0 ] || echo "test: FAILED (see the lines above)" >&2
exit $status
