#!/usr/bin/env bash
# Runs nostr-rs-relay 0.8.12 on a free loopback port with a throwaway database, in the
# foreground, printing its ws:// address first. Ctrl-C stops it and removes the data.
#   relay-fixtures/run-relay.sh [PORT]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$("$here/install-relay.sh")"
port="${1:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT
cat >"$data/config.toml" <<TOML
[info]
relay_url = "ws://127.0.0.1:$port/"
[database]
data_directory = "$data"
[network]
address = "127.0.0.1"
port = $port
TOML
echo "ws://127.0.0.1:$port"
"$bin" -c "$data/config.toml" -d "$data"
