#!/usr/bin/env python3
"""Evaluate persona-memory decay with sense-memory 0.3.1's own code.

Usage: python persona_eval.py EVENTS.jsonl --secret-hex HEX --now T

For every persona event (d tag "sense-memory/persona/...") that a relay would
serve - the newest version per d tag, not deleted by a kind-5 `e` tag, see
verify_events.FakeRelay - decrypts the payload and prints a JSON list, sorted
by (domain, facet, key), of
  {"domain", "facet", "key", "current_relevance", "state"}
computed by PersonaMemory.from_dict(payload).current_relevance(T) and
.compute_state(T). Tombstones ("type": "memstr:tombstone") are skipped.
Events that fail signature checks, decryption or parsing are reported on
stderr and make the exit status 1.
"""

from __future__ import annotations

import argparse
import json
import sys

from nostrkey.events import verify_event
from sense_memory import PersonaMemory
from sense_memory.types import KIND_APP_DATA, PERSONA_D_TAG_PREFIX

# Same directory: shares the event loader and the relay model.
from verify_events import (
    TOMBSTONE_TYPE,
    FakeRelay,
    Payloads,
    first_tag,
    identity_from_hex,
    load_events,
)


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Evaluate persona decay with sense-memory 0.3.1.")
    parser.add_argument("events", help="JSON Lines file, one NIP-01 event per line")
    parser.add_argument("--secret-hex", required=True, help="hex secret key of the author")
    parser.add_argument("--now", required=True, type=float, help="Unix time to evaluate at")
    args = parser.parse_args()

    errors: list[str] = []
    identity = identity_from_hex(args.secret_hex)
    events = []
    for ev in load_events(args.events, errors):
        if verify_event(ev):
            events.append(ev)
        else:
            errors.append(f"event {ev.id[:12]}: bad id or signature")

    relay = FakeRelay(events)
    payloads = Payloads(identity)
    out = []
    for ev in relay.query({"kinds": [KIND_APP_DATA], "authors": [identity.public_key_hex]}):
        d = first_tag(ev, "d") or ""
        if not d.startswith(PERSONA_D_TAG_PREFIX):
            continue
        try:
            data = payloads.decrypt(ev)
            if isinstance(data, dict) and data.get("type") == TOMBSTONE_TYPE:
                continue
            pm = PersonaMemory.from_dict(data)
        except Exception as e:
            errors.append(f"event {ev.id[:12]} (d={d!r}): {type(e).__name__}: {e}")
            continue
        out.append({
            "domain": pm.domain,
            "facet": pm.facet,
            "key": pm.key,
            "current_relevance": pm.current_relevance(args.now),
            "state": pm.compute_state(args.now),
        })

    out.sort(key=lambda p: (p["domain"], p["facet"], p["key"]))
    print(json.dumps(out, indent=2))
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
