# Sourced by scripts/interop/setup.sh and scripts/mcp/setup.sh: a Python venv under
# ${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}, created or repaired, with a pinned requirements
# file installed into it.
#
# venv_setup NAME REQUIREMENTS WHAT: the caller defines `imports_ok PYTHON`, true when that
# interpreter imports the pinned versions. Prints the absolute path of the venv's python as
# the last (and only) line on stdout; all diagnostics go to stderr. Idempotent: when the
# venv already passes `imports_ok`, pip is skipped. Honours $PYTHON to pick the interpreter
# that creates the venv (>= 3.10).

log() { printf 'setup.sh: %s\n' "$*" >&2; }

venv_setup() {
    local name="$1" requirements="$2" what="$3"
    local cache="${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}"
    mkdir -p "$cache"
    cache="$(cd "$cache" && pwd)" # absolute even if MEMSTR_CACHE_DIR is relative
    local venv="$cache/$name"
    local py="$venv/bin/python"
    ready() { [ -x "$py" ] && imports_ok "$py" >/dev/null 2>&1; }

    # Fast path: nothing to do.
    if ready; then
        printf '%s\n' "$py"
        return 0
    fi

    # Serialise concurrent first-time setups (parallel test binaries).
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$cache/$name.lock"
        flock 9
        if ready; then # another process finished the job while this one waited
            printf '%s\n' "$py"
            return 0
        fi
    fi

    # A venv whose interpreter no longer runs (the base python was upgraded or removed)
    # cannot be repaired by pip: recreate it.
    if [ -e "$venv" ] && ! { [ -x "$py" ] && "$py" -c 'import sys' >/dev/null 2>&1; }; then
        log "venv at $venv is broken; recreating"
        rm -rf -- "$venv"
    fi

    if [ ! -x "$py" ]; then
        local base="${PYTHON:-python3}"
        if ! "$base" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' >/dev/null 2>&1; then
            log "need Python >= 3.10 to create the venv (tried '$base'; set \$PYTHON)"
            return 1
        fi
        log "creating venv at $venv"
        "$base" -m venv "$venv" >&2
    fi

    log "installing $(grep -v '^#' "$requirements" | xargs)"
    "$py" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2

    if ! ready; then
        log "venv at $venv still does not import $what"
        return 1
    fi
    printf '%s\n' "$py"
}
