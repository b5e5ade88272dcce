#!/usr/bin/env bash
# Prepare the Python environment used by memstr's interop tests: a venv at
# ${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}/py-interop with the pinned reference client
# (requirements.txt). Prints the venv's python as the only line on stdout (scripts/venv.sh).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../venv.sh"

imports_ok() {
    "$1" - <<'PY'
import importlib.metadata as md
import sys

import sense_memory

ok = sense_memory.__version__ == "0.3.1" and md.version("nostrkey") == "0.3.5"
sys.exit(0 if ok else 1)
PY
}

venv_setup py-interop "$here/requirements.txt" "sense-memory 0.3.1 / nostrkey 0.3.5"
