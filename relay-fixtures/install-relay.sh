#!/usr/bin/env bash
# Prints the path of a nostr-rs-relay 0.8.12 binary, building it first if needed.
#
# Looks in $MEMSTR_RELAY_BIN, then $MEMSTR_CACHE_DIR/bin (default ~/.cache/memstr/bin),
# then PATH. `--find` stops there (exit 1 when none is installed). Otherwise builds the crate from the package registry into the cache:
# needs protoc (apt-get install -y protobuf-compiler; done here when running as root)
# and about 10 minutes on 2 cores.
#
# Why not `cargo install --locked nostr-rs-relay --version 0.8.12`: its lockfile pins
# the `time` crate at 0.3.25, which current Rust refuses to compile (type inference
# change in 1.80). The build below uses the same lockfile with `time` moved to 0.3.36,
# its first release that compiles again; nothing else changes.
set -euo pipefail

version=0.8.12
cache="${MEMSTR_CACHE_DIR:-$HOME/.cache/memstr}"
bin="$cache/bin/nostr-rs-relay"
log() { printf 'install-relay.sh: %s\n' "$*" >&2; }

works() { [ -x "$1" ] && "$1" --help >/dev/null 2>&1; }

if [ -n "${MEMSTR_RELAY_BIN:-}" ] && works "$MEMSTR_RELAY_BIN"; then echo "$MEMSTR_RELAY_BIN"; exit 0; fi
if works "$bin"; then echo "$bin"; exit 0; fi
if command -v nostr-rs-relay >/dev/null 2>&1 && nostr-rs-relay --version 2>/dev/null | grep -q "$version"; then
    command -v nostr-rs-relay; exit 0
fi
if [ "${1:-}" = --find ]; then exit 1; fi

mkdir -p "$cache/bin"
exec 9>"$cache/relay-install.lock"
flock 9
if works "$bin"; then echo "$bin"; exit 0; fi

if ! command -v protoc >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        log "installing protobuf-compiler"
        (apt-get update -qq && apt-get install -y -qq protobuf-compiler) >&2
    else
        log "protoc is missing: apt-get install -y protobuf-compiler"; exit 1
    fi
fi

work="$cache/relay-build"
mkdir -p "$work"
src="$work/nostr-rs-relay-$version"
if [ ! -f "$src/Cargo.toml" ]; then
    log "fetching nostr-rs-relay $version from the crate registry"
    probe="$work/fetch"
    mkdir -p "$probe/src"
    printf '[package]\nname = "fetch-relay"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\nnostr-rs-relay = "=%s"\n' "$version" >"$probe/Cargo.toml"
    echo 'fn main() {}' >"$probe/src/main.rs"
    (cd "$probe" && cargo fetch --quiet) >&2
    crate=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/nostr-rs-relay-"$version".crate | head -n 1)
    tar -xzf "$crate" -C "$work"
fi
log "building nostr-rs-relay $version (about 10 minutes on 2 cores)"
(
    cd "$src"
    cargo update --quiet -p time@0.3.25 --precise 0.3.36 2>/dev/null || true
    # Its own target directory, whatever the caller exported: .ci/run exports one for
    # memstr's build, and the binary is copied from this one.
    CARGO_TARGET_DIR="$PWD/target" cargo build --quiet --release --locked
) >&2
cp "$src/target/release/nostr-rs-relay" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$bin"
