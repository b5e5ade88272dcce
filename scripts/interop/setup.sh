#!/usr/bin/env bash
# Prepare the Python environment used by memstr's interop tests.
#
# Creates (or repairs) a venv at ${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}/py-interop,
# installs the pinned reference client from requirements.txt into it and checks
# that the expected versions import. The absolute path of the venv's python is
# printed as the last (and only) line on stdout; all diagnostics go to stderr.
#
# Idempotent: when the venv already imports the right versions, pip is skipped.
# Honours $PYTHON to pick the interpreter used to create the venv (>= 3.10).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
requirements="$here/requirements.txt"

cache="${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"  # make absolute even if MEMSTR_CACHE_DIR is relative
venv="$cache/py-interop"
py="$venv/bin/python"

log() { printf 'setup.sh: %s\n' "$*" >&2; }

# True when the venv's python runs and imports the pinned versions.
check() {
    [ -x "$py" ] || return 1
    "$py" - <<'PY' >/dev/null 2>&1
import importlib.metadata as md
import sys

import sense_memory

ok = sense_memory.__version__ == "0.3.1" and md.version("nostrkey") == "0.3.5"
sys.exit(0 if ok else 1)
PY
}

# Fast path: nothing to do.
if check; then
    printf '%s\n' "$py"
    exit 0
fi

# Serialise concurrent first-time setups (e.g. parallel test binaries).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$cache/py-interop.lock"
    flock 9
    if check; then  # another process finished the job while we waited
        printf '%s\n' "$py"
        exit 0
    fi
fi

# A venv whose interpreter no longer runs (e.g. the base python was upgraded
# or removed) cannot be repaired by pip: recreate it.
if [ -e "$venv" ] && ! { [ -x "$py" ] && "$py" -c 'import sys' >/dev/null 2>&1; }; then
    log "venv at $venv is broken; recreating"
    rm -rf -- "$venv"
fi

if [ ! -x "$py" ]; then
    base="${PYTHON:-python3}"
    if ! "$base" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' >/dev/null 2>&1; then
        log "need Python >= 3.10 to create the venv (tried '$base'; set \$PYTHON)"
        exit 1
    fi
    log "creating venv at $venv"
    "$base" -m venv "$venv" >&2
fi

log "installing $(xargs <"$requirements")"
"$py" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2

if ! check; then
    log "venv at $venv still does not import sense-memory 0.3.1 / nostrkey 0.3.5"
    exit 1
fi

printf '%s\n' "$py"
