#!/usr/bin/env bash
# Prepare the Python environment of memstr's MCP client test (tests/mcp.rs runs it).
#
# Creates (or repairs) a venv at ${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}/py-mcp, installs
# the pinned MCP Python SDK from requirements.txt into it and checks that it imports. The
# absolute path of the venv's python is printed as the last (and only) line on stdout;
# all diagnostics go to stderr.
#
# Idempotent: when the venv already imports the pinned version, pip is skipped.
# Honours $PYTHON to pick the interpreter used to create the venv (>= 3.10).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
requirements="$here/requirements.txt"
pinned="$(sed -n 's/^mcp==\([0-9.]*\).*/\1/p' "$requirements")"

cache="${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
venv="$cache/py-mcp"
py="$venv/bin/python"

log() { printf 'setup.sh: %s\n' "$*" >&2; }

check() {
    [ -x "$py" ] || return 1
    "$py" - "$pinned" <<'PY' >/dev/null 2>&1
import importlib.metadata as md
import sys

import mcp.client.stdio  # noqa: F401
import mcp.client.streamable_http  # noqa: F401

sys.exit(0 if md.version("mcp") == sys.argv[1] else 1)
PY
}

if check; then
    printf '%s\n' "$py"
    exit 0
fi

# Serialise concurrent first-time setups (parallel test binaries).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$cache/py-mcp.lock"
    flock 9
    if check; then
        printf '%s\n' "$py"
        exit 0
    fi
fi

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

log "installing mcp==$pinned"
"$py" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2

if ! check; then
    log "venv at $venv still does not import mcp $pinned"
    exit 1
fi

printf '%s\n' "$py"
