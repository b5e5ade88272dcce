#!/usr/bin/env python3
"""Drive the published sense-memory 0.3.1 client against a real relay.

Usage:
  python relay_client.py --relay URL --secret-hex HEX remember KEY VALUE
  python relay_client.py --relay URL --secret-hex HEX recall KEY
  python relay_client.py --relay URL --secret-hex HEX recall-all
  python relay_client.py --relay URL --secret-hex HEX forget KEY
  python relay_client.py --relay URL --secret-hex HEX journal TEXT
  python relay_client.py --relay URL --secret-hex HEX recent [--limit N]

Every subcommand calls the REAL ``sense_memory.MemoryStore`` method of the same
name (``recall_all`` for ``recall-all``); nothing is reimplemented. Output is
one JSON value on stdout:

  remember / forget / journal  {"id": EVENT_ID}
  recall                       {"key", "value", "created_at"} or null
  recall-all                   [{"key", "value", "created_at"}, ...]
  recent                       [{"content", "created_at"}, ...] (newest first)

Exit status 0 on success, 1 on error (message on stderr).

Test harness only: the package refuses ``ws://`` and loopback relays (an SSRF
guard), and memstr's tests run nostr-rs-relay on ``ws://127.0.0.1:PORT``. The
guard is lifted inside this process for loopback ``ws://``/``wss://`` URLs
only; every other URL still goes through the package's own checks.

The package's reads swallow relay errors (``MemoryStore._query`` returns ``[]``
when every relay fails), which would make an unreachable relay look like an
empty one. Before every command, ``MemoryStore.check()`` must report the relay
reachable, or the command fails.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import sys
from urllib.parse import urlparse

import nostrkey.relay
import sense_memory.store
from nostrkey import Identity
from sense_memory import MemoryStore


def _is_loopback_test_relay(url: str) -> bool:
    """True for ws:// or wss:// URLs whose host is a literal loopback IP."""
    try:
        parsed = urlparse(url)
        if parsed.scheme not in ("ws", "wss") or not parsed.hostname:
            return False
        return ipaddress.ip_address(parsed.hostname).is_loopback
    except ValueError:
        return False


def allow_loopback_relays() -> None:
    """Lift the SSRF guard for loopback relays only (test harness for a local relay).

    Two checks stand in the way: ``sense_memory.store._validate_relay_url``
    (imported by name into the store module; wss:// only), called by
    ``MemoryStore.__init__``, and ``nostrkey.relay.validate_relay_url`` (no
    loopback/private addresses), called by ``RelayClient.__init__`` through
    the module global. Both are wrapped: loopback URLs pass, anything else is
    handed to the original check unchanged.
    """
    store_check = sense_memory.store._validate_relay_url
    relay_check = nostrkey.relay.validate_relay_url

    def store_validate(url: str) -> None:
        if not (isinstance(url, str) and _is_loopback_test_relay(url)):
            store_check(url)

    def relay_validate(url: str) -> None:
        if not _is_loopback_test_relay(url):
            relay_check(url)

    sense_memory.store._validate_relay_url = store_validate
    nostrkey.relay.validate_relay_url = relay_validate


def memory_json(m) -> dict | None:
    if m is None:
        return None
    return {"key": m.key, "value": m.value, "created_at": m.created_at}


def entry_json(e) -> dict:
    return {"content": e.content, "created_at": e.created_at}


async def run(args: argparse.Namespace) -> object:
    identity = Identity.from_hex(args.secret_hex.strip().lower())
    store = MemoryStore(identity, args.relay)
    reachable = await store.check()
    if not reachable.get(args.relay):
        raise ConnectionError(f"relay not reachable: {args.relay}")

    if args.command == "remember":
        return {"id": await store.remember(args.key, args.value)}
    if args.command == "recall":
        return memory_json(await store.recall(args.key))
    if args.command == "recall-all":
        return [memory_json(m) for m in await store.recall_all()]
    if args.command == "forget":
        return {"id": await store.forget(args.key)}
    if args.command == "journal":
        return {"id": await store.journal(args.text)}
    if args.command == "recent":
        return [entry_json(e) for e in await store.recent(args.limit)]
    raise ValueError(f"unknown command {args.command!r}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Drive the published sense-memory 0.3.1 MemoryStore against a relay.")
    parser.add_argument("--relay", required=True, help="relay URL (loopback ws:// allowed)")
    parser.add_argument("--secret-hex", required=True, help="hex secret key of the agent")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("remember", help="MemoryStore.remember(KEY, VALUE)")
    p.add_argument("key")
    p.add_argument("value")
    p = sub.add_parser("recall", help="MemoryStore.recall(KEY)")
    p.add_argument("key")
    sub.add_parser("recall-all", help="MemoryStore.recall_all()")
    p = sub.add_parser("forget", help="MemoryStore.forget(KEY)")
    p.add_argument("key")
    p = sub.add_parser("journal", help="MemoryStore.journal(TEXT)")
    p.add_argument("text")
    p = sub.add_parser("recent", help="MemoryStore.recent(limit)")
    p.add_argument("--limit", type=int, default=20)
    args = parser.parse_args()

    allow_loopback_relays()
    try:
        result = asyncio.run(run(args))
    except Exception as e:  # noqa: BLE001 - any failure is reported, not raised
        print(f"{sys.argv[0]} {args.command}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
