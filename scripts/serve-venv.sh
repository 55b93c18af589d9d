#!/usr/bin/env bash
# The inference server's Python environment, lab/.venv-serve (docs/foundry-serving.md): the lab
# package with its `ml` and `serve` extras (MLServer 1.7.1, tritonclient). Its own venv because
# MLServer pins fastapi -> starlette 0.46 and the lab's lakehouse extra pins starlette 1.10.
# Skipped when the venv exists and lab/pyproject.toml (its pins) is unchanged since the last
# install; the ml wheels come from pip's cache, filled by the first venv's install.
set -euo pipefail
cd "$(dirname "$0")/.."
want="$(sha256sum lab/pyproject.toml | cut -c1-16)-ml,serve"
if [ ! -x lab/.venv-serve/bin/mlserver ] || [ "$(cat lab/.venv-serve/.cairn-stamp 2>/dev/null)" != "$want" ]; then
  echo "setup: installing the inference server's Python environment (lab/.venv-serve)" >&2
  python3 -m venv lab/.venv-serve
  lab/.venv-serve/bin/pip install --quiet --upgrade pip >&2
  lab/.venv-serve/bin/pip install --quiet -e "lab[ml,serve]" >&2
  echo "$want" > lab/.venv-serve/.cairn-stamp
fi
