#!/usr/bin/env bash
# The venv that builds and tests memstr's Python package: maturin, pytest and
# pytest-asyncio pinned (python/requirements-*.txt), at
# ${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}/py-memstr. Prints its python as the only line on
# stdout (scripts/venv.sh). The wheel itself is installed by scripts/python/test.sh.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../venv.sh"

imports_ok() {
    "$1" - <<'PY'
import importlib.metadata as md
import sys

want = {"maturin": "1.16.0", "pytest": "9.2.0", "pytest-asyncio": "1.5.0"}
sys.exit(0 if all(md.version(k) == v for k, v in want.items()) else 1)
PY
}

# venv_setup reads the requirements file with pip -r, which resolves the nested -r lines
# relative to it.
venv_setup py-memstr "$here/../../python/requirements-dev.txt" "maturin 1.16.0 / pytest 9.2.0 / pytest-asyncio 1.5.0"
