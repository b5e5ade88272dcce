#!/usr/bin/env python3
"""Check that a set of Nostr events is readable by sense-memory 0.3.1.

Usage: python verify_events.py EVENTS.jsonl --secret-hex HEX [--expect EXPECT.json]

EVENTS.jsonl holds one NIP-01 event object per line (blank lines ignored).

1. Every event is rebuilt as a ``nostrkey.events.NostrEvent`` and checked with
   ``nostrkey.events.verify_event`` (id and BIP-340 signature).
2. The events are served to the REAL ``MemoryStore`` read methods through a
   fake relay (the instance's ``_query`` is replaced) that behaves like
   nostr-rs-relay 0.8.12: filters on ids/authors/kinds/#tags/since/until/
   limit, keeps only the newest version of each parameterized-replaceable
   event, hides events deleted by a kind-5 ``e`` tag from the same author,
   and ignores kind-5 ``a`` tags. ``recall_all()``, ``recall(key)`` for every
   kv key found in a d tag, and ``recent(100)`` are called.
3. Every kind-30078 event is decrypted with ``nostrkey.crypto.decrypt`` and its
   payload checked by d-tag namespace (kv, journal, persona, introspection,
   embed). Payloads of type "memstr:tombstone" are memstr's deletion markers:
   they are counted, not rejected.

Prints one JSON object on stdout:
  {"events", "kv", "recall", "journal", "persona", "introspection", "embed",
   "tombstones", "errors", "warnings"}
where persona/introspection/embed describe what the relay would serve (newest
version, not deleted) and tombstones counts every tombstone in the file.
Exit status 1 if errors is non-empty or an expectation fails.

--expect FILE: a JSON object with any of the keys
  kv               {key: value}   must equal the recall_all() result
  recall           {key: value|null}  recall(key) for each listed key
  journal_contents [str]          contents returned by recent(100), any order
  persona_keys     [str]          persona `key`s served, any order
  introspection    int            number of introspection events served
  embed            int            number of embed events served
  tombstones       int            number of tombstone payloads in the file
Keys starting with "_" are ignored. If the object has a "sense_memory_view"
member (as the committed fixtures' expected.json does) that member is used.
Differences are printed to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from nostrkey.crypto import decrypt
from nostrkey.events import NostrEvent, verify_event
from nostrkey.identity import Identity
from sense_memory import JournalEntry, Memory, MemoryStore, PersonaMemory
from sense_memory.types import (
    D_TAG_PREFIX,
    INTROSPECTION_D_TAG_PREFIX,
    JOURNAL_D_TAG_PREFIX,
    KIND_APP_DATA,
    KIND_DELETION,
    MAX_QUERY_RESULTS,
    PERSONA_D_TAG_PREFIX,
)

EMBED_D_TAG_PREFIX = "sense-memory/embed/"
TOMBSTONE_TYPE = "memstr:tombstone"
DUMMY_RELAY = "wss://relay.invalid"

EVENT_FIELDS = {"id": str, "pubkey": str, "created_at": int, "kind": int,
                "tags": list, "content": str, "sig": str}

EXPECT_KEYS = ("kv", "recall", "journal_contents", "persona_keys",
               "introspection", "embed", "tombstones")


def identity_from_hex(secret_hex: str) -> Identity:
    try:
        return Identity.from_hex(secret_hex.strip().lower())
    except ValueError as e:
        sys.exit(f"{sys.argv[0]}: bad --secret-hex: {e}")


# --------------------------------------------------------------------------
# Loading and signature checks
# --------------------------------------------------------------------------

def load_events(path: str, errors: list[str]) -> list[NostrEvent]:
    """Parse a JSON Lines file into NostrEvents; structural problems go to errors."""
    events = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"line {lineno}: not JSON: {e}")
                continue
            if not isinstance(obj, dict):
                errors.append(f"line {lineno}: not a JSON object")
                continue
            bad = [k for k, t in EVENT_FIELDS.items()
                   # bool is an int subclass in Python; JSON true is not a number
                   if not isinstance(obj.get(k), t) or isinstance(obj.get(k), bool)]
            if bad:
                errors.append(f"line {lineno}: missing or mistyped field(s) {bad}")
                continue
            if not all(isinstance(t, list) and all(isinstance(x, str) for x in t)
                       for t in obj["tags"]):
                errors.append(f"line {lineno}: tags must be arrays of strings")
                continue
            extra = set(obj) - set(EVENT_FIELDS)
            if extra:
                errors.append(f"line {lineno}: unexpected field(s) {sorted(extra)}")
            events.append(NostrEvent(**{k: obj[k] for k in EVENT_FIELDS}))
    return events


def first_tag(event: NostrEvent, name: str) -> str | None:
    for tag in event.tags:
        if len(tag) >= 2 and tag[0] == name:
            return tag[1]
    return None


# --------------------------------------------------------------------------
# Fake relay
# --------------------------------------------------------------------------

def is_param_replaceable(kind: int) -> bool:
    return 30000 <= kind < 40000


def is_replaceable(kind: int) -> bool:
    return kind in (0, 3) or 10000 <= kind < 20000


class FakeRelay:
    """An in-memory relay with nostr-rs-relay 0.8.12 semantics.

    The result does not depend on the order of the input events:
    * replaceable events: only the newest version per (pubkey, kind[, d]) is
      kept (higher created_at wins, then the lowest id). Older versions are
      gone for good, as on a relay that deletes them when the newer arrives;
    * kind-5 deletions hide the events named in their `e` tags when both are
      by the same author (deletions cannot delete deletions). `a` tags are
      ignored: nostr-rs-relay 0.8.12 does not act on them.
    """

    def __init__(self, events: list[NostrEvent]) -> None:
        by_id: dict[str, NostrEvent] = {}
        for ev in events:
            by_id.setdefault(ev.id, ev)

        newest: dict[tuple, NostrEvent] = {}
        stored: list[NostrEvent] = []
        for ev in by_id.values():
            if is_param_replaceable(ev.kind):
                slot = (ev.pubkey, ev.kind, first_tag(ev, "d") or "")
            elif is_replaceable(ev.kind):
                slot = (ev.pubkey, ev.kind)
            else:
                stored.append(ev)
                continue
            cur = newest.get(slot)
            if cur is None or _is_newer(ev, cur):
                newest[slot] = ev
        stored.extend(newest.values())

        hidden = set()
        for ev in by_id.values():
            if ev.kind != KIND_DELETION:
                continue
            for tag in ev.tags:
                if len(tag) >= 2 and tag[0] == "e":
                    target = by_id.get(tag[1])
                    if target and target.pubkey == ev.pubkey and target.kind != KIND_DELETION:
                        hidden.add(target.id)

        self.events = [ev for ev in stored if ev.id not in hidden]
        # Newest first, like a relay answering a REQ.
        self.events.sort(key=lambda ev: (-ev.created_at, ev.id))

    def query(self, flt: dict[str, Any]) -> list[NostrEvent]:
        out = []
        for ev in self.events:
            if "ids" in flt and ev.id not in flt["ids"]:
                continue
            if "authors" in flt and ev.pubkey not in flt["authors"]:
                continue
            if "kinds" in flt and ev.kind not in flt["kinds"]:
                continue
            if "since" in flt and ev.created_at < flt["since"]:
                continue
            if "until" in flt and ev.created_at > flt["until"]:
                continue
            if not all(_has_tag(ev, name[1:], values)
                       for name, values in flt.items() if name.startswith("#")):
                continue
            out.append(ev)
        if "limit" in flt:
            out = out[: flt["limit"]]
        return out


def _is_newer(a: NostrEvent, b: NostrEvent) -> bool:
    """NIP-01 replacement order: higher created_at wins, then the lowest id."""
    return a.created_at > b.created_at or (a.created_at == b.created_at and a.id < b.id)


def _has_tag(ev: NostrEvent, name: str, values: list[str]) -> bool:
    return any(len(t) >= 2 and t[0] == name and t[1] in values for t in ev.tags)


def attach_fake_relay(store: MemoryStore, relay: FakeRelay) -> None:
    async def fake_query(filters: dict) -> list[NostrEvent]:
        # The real _query stops reading after MAX_QUERY_RESULTS events.
        return relay.query(filters)[:MAX_QUERY_RESULTS]

    async def no_publish(signed) -> None:
        raise RuntimeError("verify_events.py must not publish")

    store._query = fake_query  # instance attributes shadow the methods
    store._publish_to_all = no_publish


# --------------------------------------------------------------------------
# Payload checks
# --------------------------------------------------------------------------

class Payloads:
    """Decrypts and classifies kind-30078 payloads."""

    def __init__(self, identity: Identity) -> None:
        self.identity = identity
        self.cache: dict[str, Any] = {}

    def decrypt(self, ev: NostrEvent) -> Any:
        """Decrypted JSON payload; raises on failure. Cached by event id."""
        if ev.id not in self.cache:
            plaintext = decrypt(self.identity.private_key_hex,
                                self.identity.public_key_hex, ev.content)
            self.cache[ev.id] = json.loads(plaintext)
        return self.cache[ev.id]

    def is_tombstone(self, ev: NostrEvent) -> bool:
        try:
            data = self.decrypt(ev)
        except Exception:
            return False
        return isinstance(data, dict) and data.get("type") == TOMBSTONE_TYPE


def check_payload(ev: NostrEvent, data: Any, errors: list[str], warnings: list[str]) -> str:
    """Validate one decrypted payload; returns its category."""
    d = first_tag(ev, "d")
    where = f"event {ev.id[:12]} (d={d!r})"
    if not isinstance(data, dict):
        errors.append(f"{where}: payload is not a JSON object")
        return "invalid"
    if data.get("type") == TOMBSTONE_TYPE:
        return "tombstone"
    if d is None:
        errors.append(f"{where}: kind 30078 without a d tag")
        return "invalid"

    try:
        if d.startswith(PERSONA_D_TAG_PREFIX):
            if data.get("type") != "sense-memory:persona":
                errors.append(f"{where}: persona type is {data.get('type')!r}")
            pm = PersonaMemory.from_dict(data)
            if pm.d_tag != d:
                errors.append(f"{where}: persona payload belongs at d={pm.d_tag!r}")
            return "persona"

        if d.startswith(INTROSPECTION_D_TAG_PREFIX):
            if data.get("type") != "sense-memory:introspection":
                errors.append(f"{where}: introspection type is {data.get('type')!r}")
            ts = data.get("timestamp")
            if isinstance(ts, (int, float)) and d != f"{INTROSPECTION_D_TAG_PREFIX}{float(ts)}":
                warnings.append(f"{where}: d tag suffix is not str(float(timestamp))")
            return "introspection"

        if d.startswith(EMBED_D_TAG_PREFIX):
            key = data.get("key")
            emb = data.get("embedding")
            if not isinstance(key, str) or d != f"{EMBED_D_TAG_PREFIX}{key}":
                errors.append(f"{where}: embed key {key!r} does not match the d tag")
            if not (isinstance(emb, list) and all(
                    isinstance(x, (int, float)) and not isinstance(x, bool) for x in emb)):
                errors.append(f"{where}: embed embedding is not a list of numbers")
            if not isinstance(data.get("model"), str):
                errors.append(f"{where}: embed model missing")
            if "created_at" not in data:
                warnings.append(f"{where}: embed created_at missing")
            return "embed"

        if d.startswith(JOURNAL_D_TAG_PREFIX):
            if data.get("type") != "sense-memory:journal":
                errors.append(f"{where}: journal type is {data.get('type')!r}")
            entry = JournalEntry(content=data["content"], created_at=data.get("ts", ev.created_at))
            if "ts" not in data:
                warnings.append(f"{where}: journal ts missing (readers use event created_at)")
            elif d != f"{JOURNAL_D_TAG_PREFIX}{entry.created_at}":
                warnings.append(f"{where}: d tag suffix is not str(ts)")
            return "journal"

        if d.startswith(D_TAG_PREFIX):
            key = d[len(D_TAG_PREFIX):]
            if "/" in key:
                warnings.append(f"{where}: unknown sense-memory namespace")
                return "unknown"
            if data.get("type") != "sense-memory:kv":
                errors.append(f"{where}: kv type is {data.get('type')!r}")
            if data.get("key") != key:
                errors.append(f"{where}: payload key {data.get('key')!r} does not match the d tag")
            Memory(key=data["key"], value=data["value"], created_at=data.get("ts", ev.created_at))
            if not isinstance(data.get("ts"), (int, float)):
                warnings.append(f"{where}: kv ts missing or not a number")
            return "kv"
    except (KeyError, ValueError, TypeError) as e:
        errors.append(f"{where}: package rejected payload: {type(e).__name__}: {e}")
        return "invalid"

    warnings.append(f"{where}: d tag outside the sense-memory namespaces")
    return "unknown"


# --------------------------------------------------------------------------
# Main check
# --------------------------------------------------------------------------

async def run(events_path: str, secret_hex: str, extra_recall_keys: list[str]) -> dict:
    errors: list[str] = []
    warnings: list[str] = []

    identity = identity_from_hex(secret_hex)
    pubkey = identity.public_key_hex
    events = load_events(events_path, errors)

    # 1. ids and signatures; a relay would refuse the bad ones
    valid = []
    for ev in events:
        if verify_event(ev):
            valid.append(ev)
        else:
            errors.append(f"event {ev.id[:12]}: bad id or signature")
        if ev.pubkey != pubkey:
            errors.append(f"event {ev.id[:12]}: author {ev.pubkey[:12]} is not the test key")
        if ev.kind not in (KIND_APP_DATA, KIND_DELETION):
            warnings.append(f"event {ev.id[:12]}: unexpected kind {ev.kind}")

    # 2. decrypt and check every kind-30078 payload
    payloads = Payloads(identity)
    tombstones = 0
    kv_keys: list[str] = []
    for ev in events:
        if ev.kind != KIND_APP_DATA:
            continue
        d = first_tag(ev, "d") or ""
        if d.startswith(D_TAG_PREFIX) and "/" not in d[len(D_TAG_PREFIX):]:
            key = d[len(D_TAG_PREFIX):]
            if key not in kv_keys:
                kv_keys.append(key)
        try:
            data = payloads.decrypt(ev)
        except Exception as e:
            errors.append(f"event {ev.id[:12]} (d={d!r}): cannot decrypt/parse: {type(e).__name__}: {e}")
            continue
        if check_payload(ev, data, errors, warnings) == "tombstone":
            tombstones += 1

    # 3. the package's own read path, through the fake relay
    relay = FakeRelay(valid)
    store = MemoryStore(identity, DUMMY_RELAY)
    attach_fake_relay(store, relay)

    kv: dict[str, str] = {}
    for mem in await store.recall_all():
        if mem.key in kv:
            errors.append(f"recall_all returned key {mem.key!r} twice")
        kv[mem.key] = mem.value

    recall: dict[str, str | None] = {}
    for key in kv_keys + [k for k in extra_recall_keys if k not in kv_keys]:
        try:
            mem = await store.recall(key)
            recall[key] = None if mem is None else mem.value
        except Exception as e:
            recall[key] = None
            msg = f"recall({key!r}) raised {type(e).__name__}: {e}"
            served = relay.query({"kinds": [KIND_APP_DATA], "authors": [pubkey],
                                  "#d": [f"{D_TAG_PREFIX}{key}"], "limit": 1})
            if served and payloads.is_tombstone(served[0]):
                # The client has no notion of tombstones: recall() on a key
                # whose newest event is one raises instead of returning None.
                warnings.append(msg + " (newest event is a memstr tombstone)")
            else:
                errors.append(msg)
            continue
        if key in kv and recall[key] != kv[key]:
            errors.append(f"recall({key!r}) = {recall[key]!r} but recall_all has {kv[key]!r}")

    journal = [{"content": e.content, "ts": e.created_at} for e in await store.recent(100)]

    # 4. persona / introspection / embed as the relay serves them
    persona = []
    introspection = embed = 0
    now = time.time()
    for ev in relay.query({"kinds": [KIND_APP_DATA], "authors": [pubkey]}):
        d = first_tag(ev, "d") or ""
        try:
            data = payloads.decrypt(ev)
        except Exception:
            continue  # already reported
        if not isinstance(data, dict) or data.get("type") == TOMBSTONE_TYPE:
            continue
        if d.startswith(PERSONA_D_TAG_PREFIX):
            try:
                pm = PersonaMemory.from_dict(data)
            except Exception:
                continue  # already reported
            persona.append({"domain": pm.domain, "facet": pm.facet, "key": pm.key,
                            "value": pm.value,
                            "current_relevance_now": pm.current_relevance(now)})
        elif d.startswith(INTROSPECTION_D_TAG_PREFIX):
            introspection += 1
        elif d.startswith(EMBED_D_TAG_PREFIX):
            embed += 1
    persona.sort(key=lambda p: (p["domain"], p["facet"], p["key"]))

    return {
        "events": len(events),
        "kv": kv,
        "recall": recall,
        "journal": journal,
        "persona": persona,
        "introspection": introspection,
        "embed": embed,
        "tombstones": tombstones,
        "errors": errors,
        "warnings": warnings,
    }


def load_expect(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        expect = json.load(f)
    if not isinstance(expect, dict):
        sys.exit(f"verify_events.py: {path} is not a JSON object")
    if isinstance(expect.get("sense_memory_view"), dict):
        expect = expect["sense_memory_view"]
    unknown = [k for k in expect if k not in EXPECT_KEYS and not k.startswith("_")]
    if unknown:
        sys.exit(f"verify_events.py: unknown key(s) in {path}: {unknown}")
    return expect


def compare(expect: dict, result: dict) -> list[str]:
    diffs = []
    if "kv" in expect:
        want, got = expect["kv"], result["kv"]
        for k in sorted(set(want) | set(got)):
            if k not in got:
                diffs.append(f"kv: missing {k!r}")
            elif k not in want:
                diffs.append(f"kv: unexpected {k!r} = {_short(got[k])}")
            elif want[k] != got[k]:
                diffs.append(f"kv[{k!r}]: want {_short(want[k])}, got {_short(got[k])}")
    for k, v in expect.get("recall", {}).items():
        if result["recall"].get(k) != v:
            diffs.append(f"recall({k!r}): want {_short(v)}, got {_short(result['recall'].get(k))}")
    if "journal_contents" in expect:
        want = sorted(expect["journal_contents"])
        got = sorted(e["content"] for e in result["journal"])
        if want != got:
            diffs.append(f"journal_contents: want {want}, got {got}")
    if "persona_keys" in expect:
        want = sorted(expect["persona_keys"])
        got = sorted(p["key"] for p in result["persona"])
        if want != got:
            diffs.append(f"persona_keys: want {want}, got {got}")
    for name in ("introspection", "embed", "tombstones"):
        if name in expect and expect[name] != result[name]:
            diffs.append(f"{name}: want {expect[name]}, got {result[name]}")
    return diffs


def _short(v: Any, limit: int = 80) -> str:
    s = repr(v)
    return s if len(s) <= limit else s[:limit] + f"...({len(s)} chars)"


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Check that events are readable by sense-memory 0.3.1.")
    parser.add_argument("events", help="JSON Lines file, one NIP-01 event per line")
    parser.add_argument("--secret-hex", required=True, help="hex secret key of the author")
    parser.add_argument("--expect", help="JSON file with expectations (see module doc)")
    args = parser.parse_args()

    expect = load_expect(args.expect) if args.expect else {}
    result = asyncio.run(run(args.events, args.secret_hex, list(expect.get("recall", {}))))
    print(json.dumps(result, indent=2))

    status = 0
    for e in result["errors"]:
        print(f"error: {e}", file=sys.stderr)
        status = 1
    for w in result["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    for diff in compare(expect, result):
        print(f"expectation failed: {diff}", file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
