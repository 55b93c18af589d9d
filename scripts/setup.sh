#!/usr/bin/env bash
# Installs what is missing for the service (and, with --lab [EXTRAS], the Python lab's venv;
# with --spark-jars, the jars the lab's Spark engine loads; with --models, the embedding models).
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
  # onnxruntime-node's postinstall would fetch GPU binaries; its CPU binding ships in the package.
  ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip \
    npm install --no-audit --no-fund --prefer-offline --loglevel=error >&2
  echo "$want" > node_modules/.cairn-stamp
fi

lab_extras=""
spark_jars=0
models=0
while [ $# -gt 0 ]; do
  case "$1" in
    --lab)
      lab_extras="queue,dev"
      if [ $# -gt 1 ] && [ "${2#--}" = "$2" ]; then lab_extras="$2"; shift; fi ;;
    --spark-jars) spark_jars=1 ;;
    --models) models=1 ;;
    *) echo "setup: unknown option $1 (use --lab [EXTRAS], --spark-jars and/or --models)" >&2; exit 2 ;;
  esac
  shift
done

if [ -n "$lab_extras" ]; then
  extras="$lab_extras"
  want="$(stamp lab/pyproject.toml)-$extras"
  if [ ! -x lab/.venv/bin/python ] || [ "$(cat lab/.venv/.cairn-stamp 2>/dev/null)" != "$want" ]; then
    echo "setup: installing the lab's Python environment ($extras)" >&2
    python3 -m venv lab/.venv
    lab/.venv/bin/pip install --quiet --upgrade pip >&2
    lab/.venv/bin/pip install --quiet -e "lab[$extras]" >&2
    echo "$want" > lab/.venv/.cairn-stamp
  fi
fi

# Spark's Iceberg runtime and SQLite JDBC driver, from Maven Central through Maven (cached in
# ~/.m2), into lab/.jars (gitignored); the lab finds them through CAIRN_SPARK_JARS.
# iceberg-spark-runtime-4.1_2.13 pairs with the lab's pinned pyspark 4.1.x.
SPARK_ARTIFACTS=(
  org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.12.0
  org.xerial:sqlite-jdbc:3.54.1.0
)
if [ "$spark_jars" = 1 ]; then
  jars=lab/.jars
  want="$(printf '%s\n' "${SPARK_ARTIFACTS[@]}" | sha256sum | cut -c1-16)"
  if [ "$(cat "$jars/.cairn-stamp" 2>/dev/null)" != "$want" ]; then
    missing=()
    command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
    command -v mvn >/dev/null || missing+=(maven)
    if [ ${#missing[@]} -gt 0 ]; then
      echo "setup: installing ${missing[*]} from Debian" >&2
      sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
      $sudo apt-get update -qq >/dev/null
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    echo "setup: fetching Spark jars from Maven Central into $jars" >&2
    rm -rf "$jars" && mkdir -p "$jars"
    for artifact in "${SPARK_ARTIFACTS[@]}"; do
      if ! out="$(mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$artifact" -DoutputDirectory="$jars" 2>&1)"; then
        echo "$out" >&2; echo "setup: could not fetch $artifact from Maven Central" >&2; exit 1
      fi
    done
    echo "$want" > "$jars/.cairn-stamp"
  fi
fi

# Sentence-embedding models (adapters/embeddings) from Maven Central into the model cache
# (CAIRN_MODELS_DIR); the service never downloads them at run time.
if [ "$models" = 1 ]; then scripts/install-models.sh; fi
