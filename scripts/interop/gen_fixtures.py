#!/usr/bin/env python3
"""Generate wire fixtures with the published sense-memory 0.3.1 client.

Every event is produced by the package's own code:

* kv memories, journal entries and the forget go through the real
  ``MemoryStore.remember`` / ``journal`` / ``forget``; only the instance's
  ``_publish_to_all`` is replaced so the signed event is captured instead of
  being sent to a relay;
* persona, introspection and embedding events have no store method in 0.3.1,
  so they are built the way ``remember`` builds kv events:
  ``to_dict()`` -> ``json.dumps`` -> ``nostrkey.crypto.encrypt`` ->
  ``Identity.sign_event(kind=30078, tags=[["d", ...]])``.

Outputs (in --out-dir, default tests/fixtures/sense-memory-0.3.1 of the repo):

* ``events.jsonl``  - one NIP-01 event object per line, in creation order;
* ``expected.json`` - what a reader must get back from those events.

Event ids, signatures and ciphertexts are random (BIP-340 aux randomness and
NIP-44 nonces), and kv/journal timestamps are wall-clock, so two runs never
produce identical files. Persona times are fixed, so the persona evaluations
in expected.json are stable across runs.

Usage: python gen_fixtures.py [--out-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import json
import sys
import time
from pathlib import Path

import sense_memory
from nostrkey import Identity
from nostrkey.crypto import encrypt
from sense_memory import IntrospectionReport, MemoryStore, PersonaMemory
from sense_memory.types import (
    D_TAG_PREFIX,
    INTROSPECTION_D_TAG_PREFIX,
    JOURNAL_D_TAG_PREFIX,
    KIND_APP_DATA,
)

SENSE_MEMORY_VERSION = "0.3.1"
NOSTRKEY_VERSION = "0.3.5"

# PUBLIC TEST KEY - committed on purpose, it protects nothing. Never use it
# (or anything derived from it) for a real identity.
TEST_SECRET_KEY_HEX = "5c0c523f52a5b6fad39ed2403092df8cebc36318b39383bca6c00808626fab3a"

# Fixed "now" values at which persona decay is evaluated. Persona times below
# lie in 1795000000..1799990000, i.e. days to weeks before these.
EVAL_TIMES = [1800000000.0, 1803000000.0, 1810000000.0]

# Not a constant of the package (0.3.1 only documents it in its design notes).
EMBED_D_TAG_PREFIX = "sense-memory/embed/"

DUMMY_RELAY = "wss://relay.invalid"

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT_DIR = REPO_ROOT / "tests" / "fixtures" / "sense-memory-0.3.1"

# (key, value) written through MemoryStore.remember, in this order.
# "favorite-color" is written twice (the later one replaces the earlier one)
# and finally forgotten.
KV_WRITES = [
    ("favorite-color", "green"),
    ("favorite-color", "blue"),
    ("ns:topic", "a key containing a colon"),
    ("café-☕", "unicode value: naïve façade, 日本語, emoji 😀 (astral plane)"),
    ("quotes-and-newlines",
     'line one\nline "two" with \'single\' quotes\n\ttabbed, back\\slash, {"json": [1]}\r\nend'),
    # exactly 256 characters: the package's maximum key length
    ("long-key-" + "0123456789abcdef" * 15 + "x" * 7,
     "value stored under the longest allowed key"),
    ("long-value",
     "".join(f"line {i:05d}: the quick brown fox jumps over the lazy dog\n" for i in range(180))[:10000]),
]
FORGET_KEY = "favorite-color"

JOURNAL_ENTRIES = [
    "First journal entry.",
    "Second entry, with a newline\nand unicode: ünïcödé ✓",
    "Third entry: \"quoted\" text and a tab\there.",
]

# Persona memories with explicit times so the expected decay values are stable.
PERSONA_SPECS = [
    dict(domain="self", facet="facts", key="name-is-ada", value="My name is Ada.",
         halflife_days=45.0, last_accessed=1799900000.0, last_reinforced=1799800000.0,
         access_count=12, connections=("likes-rust", "works-on-memstr"),
         themes=("identity",), source="onboarding", created_at=1795000000.0),
    dict(domain="people", facet="facts", key="alice-prefers-dark-mode",
         value="Alice prefers dark mode", halflife_days=14.0,
         last_accessed=1798500000.0, last_reinforced=1798400000.0, access_count=3,
         themes=("ui", "preferences"), source="conversation", confidence=0.9,
         created_at=1796000000.0),
    dict(domain="projects", facet="decisions", key="use-sqlite",
         value="Use SQLite for the local cache", last_accessed=1799500000.0,
         last_reinforced=1799500000.0, superseded_by="use-rust-native-store",
         connections=("deploy-steps",), created_at=1797000000.0),
    dict(domain="world", facet="beliefs", key="coffee-is-healthy",
         value="Moderate coffee consumption is fine", relevance=0.6,
         last_accessed=1799000000.0, last_reinforced=1798000000.0,
         contradicts=("coffee-is-harmful",), confidence=0.4, state="fading",
         themes=("health",), created_at=1796500000.0),
    dict(domain="skills", facet="procedures", key="deploy-steps",
         value="1. cargo build --release\n2. cargo test\n3. ship",
         halflife_days=90.0, last_accessed=1796000000.0, last_reinforced=1796000000.0,
         access_count=1, connections=("use-rust-native-store",),
         created_at=1795500000.0),
    dict(domain="self", facet="emotions", key="proud-of-release",
         value="Felt proud 🎉 after the release", relevance=0.5, halflife_days=10.0,
         last_accessed=1797000000.0, last_reinforced=1797000000.0, state="fading",
         themes=("work", "mood"), created_at=1797000000.0),
    dict(domain="people", facet="beliefs", key="bob-distrusts-relays",
         value="Bob thinks relays are unreliable", halflife_days=7.0,
         last_accessed=1795500000.0, last_reinforced=1795500000.0, access_count=2,
         connections=("relay-a", "relay-b", "relay-c"),
         contradicts=("bob-trusts-relays",), confidence=0.7, state="forgotten",
         created_at=1795100000.0),
    dict(domain="world", facet="facts", key="café-☕-opens-at-8",
         value="Le café ouvre à 8h — «toujours»", relevance=0.95, halflife_days=3.5,
         last_accessed=1799990000.0, last_reinforced=1799990000.0, access_count=7,
         themes=("food",), source="sign on the door", created_at=1799000000.0),
]

# A persona payload with only the required fields (plus type and created_at):
# readers must fill in every default. This is a raw dict, not a to_dict() output.
MINIMAL_PERSONA_PAYLOAD = {
    "type": "sense-memory:persona",
    "domain": "projects",
    "facet": "facts",
    "key": "minimal-fields",
    "value": "only the required fields are present",
    "created_at": 1797500000.0,
}

INTROSPECTION = IntrospectionReport(
    total_memories=9, active=5, fading=1, forgotten=2, dissolved=1,
    contradictions=(("coffee-is-healthy", "coffee-is-harmful"),),
    stale_beliefs=("coffee-is-healthy",),
    orphaned=("minimal-fields", "proud-of-release"),
    overloaded_facets=("people/facts",),
    suggested_connections=(("name-is-ada", "proud-of-release"),),
    suggested_revisions=("bob-distrusts-relays",),
    pruned_count=2,
    timestamp=1799990000.123456,
)

EMBED_PAYLOAD = {
    "key": "ns:topic",
    # A few formatting edge cases: Python writes 1e-05 and 1.5e-07 with an
    # exponent, -0.0 with a sign, whole numbers with ".0".
    "embedding": [0.1, -0.25, 0.3333333333333333, 1e-05, -0.0, 1.0, 1.5e-07, 12345.678],
    "model": "all-MiniLM-L6-v2",
    "created_at": 1799990000.25,
}


def wait_for_next_second() -> None:
    """Sleep until the integer Unix second changes.

    Event created_at has one-second resolution; separating writes keeps
    "newest wins" and created_at ordering unambiguous in the fixtures.
    """
    start = int(time.time())
    while int(time.time()) == start:
        time.sleep(0.05)


def sign_app_data(identity: Identity, d_tag: str, payload: dict):
    """Encrypt and sign a payload exactly the way MemoryStore.remember does."""
    encrypted = encrypt(identity.private_key_hex, identity.public_key_hex, json.dumps(payload))
    return identity.sign_event(kind=KIND_APP_DATA, content=encrypted, tags=[["d", d_tag]])


def check_versions() -> dict:
    versions = {
        "sense-memory": importlib.metadata.version("sense-memory"),
        "nostrkey": importlib.metadata.version("nostrkey"),
    }
    if (sense_memory.__version__ != SENSE_MEMORY_VERSION
            or versions["sense-memory"] != SENSE_MEMORY_VERSION
            or versions["nostrkey"] != NOSTRKEY_VERSION):
        sys.exit(f"gen_fixtures.py: need sense-memory {SENSE_MEMORY_VERSION} and "
                 f"nostrkey {NOSTRKEY_VERSION}, found {versions}")
    return versions


def persona_expectation(payload: dict, d_tag: str, event_id: str) -> dict:
    pm = PersonaMemory.from_dict(payload)
    return {
        "domain": pm.domain,
        "facet": pm.facet,
        "key": pm.key,
        "value": pm.value,
        "d_tag": d_tag,
        "event_id": event_id,
        "payload": payload,   # the JSON object that was encrypted
        "dict": pm.to_dict(),  # what the package reads it as (defaults filled in)
        "evaluations": [
            {"now": t, "current_relevance": pm.current_relevance(t), "state": pm.compute_state(t)}
            for t in EVAL_TIMES
        ],
    }


async def generate() -> tuple[list, dict]:
    identity = Identity.from_hex(TEST_SECRET_KEY_HEX)
    store = MemoryStore(identity, DUMMY_RELAY)

    captured = []

    async def capture(signed) -> None:
        captured.append(signed)

    store._publish_to_all = capture  # instance attribute shadows the method

    def last_payload() -> dict:
        # Decrypt what the store just wrote, to record its exact ts.
        return store._decrypt_content(captured[-1].content)

    # --- kv memories (real MemoryStore.remember) ---
    kv_records = []
    for i, (key, value) in enumerate(KV_WRITES):
        if i > 0 and KV_WRITES[i - 1][0] == key:
            wait_for_next_second()  # the replacement must be strictly newer
        event_id = await store.remember(key, value)
        kv_records.append({
            "key": key, "value": value, "ts": last_payload()["ts"],
            "d_tag": f"{D_TAG_PREFIX}{key}", "event_id": event_id,
        })

    # --- journal entries (real MemoryStore.journal) ---
    journal = []
    for content in JOURNAL_ENTRIES:
        wait_for_next_second()  # distinct ts and distinct event created_at
        event_id = await store.journal(content)
        ts = last_payload()["ts"]
        journal.append({"content": content, "ts": ts,
                        "d_tag": f"{JOURNAL_D_TAG_PREFIX}{ts}", "event_id": event_id})

    # --- forget (real MemoryStore.forget: kind 5 with an `a` tag only) ---
    wait_for_next_second()
    forget_id = await store.forget(FORGET_KEY)

    # --- persona memories (no store method in 0.3.1: built like remember) ---
    persona = []
    for spec in PERSONA_SPECS:
        pm = PersonaMemory(**spec)
        payload = pm.to_dict()
        signed = sign_app_data(identity, pm.d_tag, payload)
        captured.append(signed)
        persona.append(persona_expectation(payload, pm.d_tag, signed.id))

    minimal = PersonaMemory.from_dict(MINIMAL_PERSONA_PAYLOAD)
    signed = sign_app_data(identity, minimal.d_tag, MINIMAL_PERSONA_PAYLOAD)
    captured.append(signed)
    persona.append(persona_expectation(MINIMAL_PERSONA_PAYLOAD, minimal.d_tag, signed.id))

    # --- introspection log ---
    intro = INTROSPECTION.to_dict()
    intro_d_tag = f"{INTROSPECTION_D_TAG_PREFIX}{str(float(INTROSPECTION.timestamp))}"
    signed = sign_app_data(identity, intro_d_tag, intro)
    captured.append(signed)

    # --- embedding ---
    embed_d_tag = f"{EMBED_D_TAG_PREFIX}{EMBED_PAYLOAD['key']}"
    signed = sign_app_data(identity, embed_d_tag, EMBED_PAYLOAD)
    captured.append(signed)

    # --- expectations ---
    latest = {}
    for rec in kv_records:  # later writes replace earlier ones
        latest[rec["key"]] = rec["value"]
    kv_live = {k: v for k, v in latest.items() if k != FORGET_KEY}

    expected = {
        "_comment": "Generated by scripts/interop/gen_fixtures.py with the published "
                    "sense-memory client. secret_key_hex is a PUBLIC TEST KEY.",
        "versions": {},  # filled in by main()
        "secret_key_hex": TEST_SECRET_KEY_HEX,
        "pubkey_hex": identity.public_key_hex,
        # What a reader that honours the forget (`a`-tag deletion) sees.
        "kv": kv_live,
        "forgotten": [FORGET_KEY],
        "forget_event_id": forget_id,
        # Every remember() call in order, including the replaced "green" write.
        "kv_writes": kv_records,
        "journal": journal,
        "eval_times": EVAL_TIMES,
        "persona": persona,
        "introspection": intro,
        "introspection_d_tag": intro_d_tag,
        "embed": EMBED_PAYLOAD,
        "embed_d_tag": embed_d_tag,
        # What the package itself reads back through a relay that, like
        # nostr-rs-relay 0.8.12, ignores `a`-tag deletions: favorite-color is
        # still there. In the format of verify_events.py --expect, which uses
        # this object when present.
        "sense_memory_view": {
            "kv": latest,
            "recall": latest,
            "journal_contents": JOURNAL_ENTRIES,
            "persona_keys": [p["key"] for p in persona],
            "introspection": 1,
            "embed": 1,
            "tombstones": 0,
        },
    }
    return captured, expected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT_DIR)
    args = parser.parse_args()

    versions = check_versions()
    events, expected = asyncio.run(generate())
    expected["versions"] = versions

    args.out_dir.mkdir(parents=True, exist_ok=True)
    with open(args.out_dir / "events.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for event in events:
            f.write(json.dumps(event.to_dict(), ensure_ascii=False) + "\n")
    with open(args.out_dir / "expected.json", "w", encoding="utf-8", newline="\n") as f:
        json.dump(expected, f, ensure_ascii=False, indent=2)
        f.write("\n")
    print(f"wrote {len(events)} events to {args.out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
