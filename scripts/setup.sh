#!/usr/bin/env bash
# Installs what is missing for the service (and, with --lab, the Python lab's venv).
# Idempotent: each step is skipped when its inputs have not changed.
set -euo pipefail
cd "$(dirname "$0")/.."

stamp() { sha256sum "$@" 2>/dev/null | sha256sum | cut -c1-16; }

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "setup: Node.js and npm are required (bun itself is installed from npm)" >&2; exit 1
fi

want="$(stamp package.json package-lock.json)"
if [ ! -x node_modules/.bin/bun ] || [ "$(cat node_modules/.cairn-stamp 2>/dev/null)" != "$want" ]; then
  echo "setup: installing npm dependencies" >&2
  # npm ci trips over optional platform packages missing from lock files (npm bug); install
  # honours the lock file all the same.
  npm install --no-audit --no-fund --prefer-offline --loglevel=error >&2
  echo "$want" > node_modules/.cairn-stamp
fi

if [ "${1:-}" = "--lab" ]; then
  extras="${2:-queue,dev}"
  want="$(stamp lab/pyproject.toml)-$extras"
  if [ ! -x lab/.venv/bin/python ] || [ "$(cat lab/.venv/.cairn-stamp 2>/dev/null)" != "$want" ]; then
    echo "setup: installing the lab's Python environment ($extras)" >&2
    python3 -m venv lab/.venv
    lab/.venv/bin/pip install --quiet --upgrade pip >&2
    lab/.venv/bin/pip install --quiet -e "lab[$extras]" >&2
    echo "$want" > lab/.venv/.cairn-stamp
  fi
fi
