#!/usr/bin/env bash
# Prepare the Python environment of memstr's MCP client test (tests/mcp.rs runs it): a venv
# at ${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}/py-mcp with the pinned MCP Python SDK
# (requirements.txt). Prints the venv's python as the only line on stdout (scripts/venv.sh).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../venv.sh"
pinned="$(sed -n 's/^mcp==\([0-9.]*\).*/\1/p' "$here/requirements.txt")"

imports_ok() {
    "$1" - "$pinned" <<'PY'
import importlib.metadata as md
import sys

import mcp.client.stdio  # noqa: F401
import mcp.client.streamable_http  # noqa: F401

sys.exit(0 if md.version("mcp") == sys.argv[1] else 1)
PY
}

venv_setup py-mcp "$here/requirements.txt" "mcp $pinned"
