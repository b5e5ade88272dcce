#!/usr/bin/env bash
# Builds and installs memstr's Python package (`pip install ./python`, with the pinned
# maturin of scripts/python/setup.sh's venv), then runs:
#   1. python/tests: the full API, the drop-in, sync and the cross-client test through
#      nostr-rs-relay (relay-fixtures/run-relay.sh; the published client from
#      scripts/interop/setup.sh);
#   2. the sense-memory 0.3.1 sdist's own tests, unchanged, against memstr.compat (only
#      the import redirected: python/sdist/conftest.py).
# Prints each suite's count and, last, the sum as "python: N passed, N failed"; writes the
# sum to $1 when given ("PASSED FAILED"). Exits non-zero when a test failed.
set -euo pipefail
cd "$(dirname "$0")/../.."

cache="${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}"
py="$(bash scripts/python/setup.sh)"
# maturin's build backend runs the `maturin` of PATH: the venv's pinned one.
export PATH="$(dirname "$py"):$PATH"

echo "building and installing the wheel (pip install ./python)"
start=$SECONDS
"$py" -m pip install --quiet --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./python
echo "built and installed in $((SECONDS - start)) s"

# "N passed, M failed" from a pytest log's closing line (either count may be absent).
count() { awk '/ in [0-9.]+s/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p = $(i-1); if ($i ~ /^failed/ || $i ~ /^errors?/) f += $(i-1) } } END { print p + 0, f + 0 }' "$1"; }

status=0
log="$(mktemp)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch" "$log"' EXIT

# From the repository root, so python/memstr (the source, without the native module) is
# never imported in place of the installed package.
"$py" -m pytest -q -p no:cacheprovider python/tests 2>&1 | tee "$log" || status=1
read -r api_passed api_failed < <(count "$log")

sdist="$cache/sdist/sense_memory-0.3.1.tar.gz"
if [ ! -f "$sdist" ]; then
    mkdir -p "$cache/sdist"
    "$py" -m pip download --quiet --disable-pip-version-check --no-binary :all: --no-deps \
        sense-memory==0.3.1 -d "$cache/sdist"
fi
tar -xzf "$sdist" -C "$scratch"
cp python/sdist/conftest.py "$scratch/sense_memory-0.3.1/conftest.py"
(cd "$scratch/sense_memory-0.3.1" && "$py" -m pytest -q -p no:cacheprovider tests) 2>&1 | tee "$log" || status=1
read -r sdist_passed sdist_failed < <(count "$log")

echo "python/tests: ${api_passed} passed, ${api_failed} failed"
echo "sense-memory 0.3.1 sdist tests against memstr.compat: ${sdist_passed} passed, ${sdist_failed} failed"
passed=$((api_passed + sdist_passed))
failed=$((api_failed + sdist_failed))
echo "python: ${passed} passed, ${failed} failed"
if [ -n "${1:-}" ]; then
    echo "$passed $failed" >"$1"
fi
exit "$status"
