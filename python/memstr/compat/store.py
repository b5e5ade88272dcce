"""MemoryStore, the sense-memory 0.3.1 client's, over memstr's local store.

The client talks to relays on every call: a write is published to each relay (and fails
when none takes it), a read asks the first relay that answers. This one keeps the same
signatures, validation and return values, but every call is answered by a local memstr
store first (offline-first: a write succeeds with no relay and waits in the outbox), and
a sync pass with the relays given (pull, then push) runs before each read and after each
write. The store is written in memstr's `compatible` d-tag mode, so the events are the
ones the client writes: either client reads what the other wrote, through any relay.

The reads keep the client's own logic (`recall` checks the decrypted key, `recent` filters
and sorts client-side) over the same seam the client has: `_query(filters)` returns
events, `_decrypt_content(content)` turns an event's content into its payload. Here
`_query` answers from the local store, whose records memstr decrypted and verified once
when they arrived, so `_decrypt_content` only parses the payload.

Differences from the client, all deliberate:
- a write never raises ConnectionError: with every relay down it is kept locally and
  pushed by a later call (the client raised and lost nothing only because nothing was
  stored);
- `check()` runs a sync pass with a 5 s bound per relay, and reports whether it went
  through;
- keyword-only extras: `path` (the store file), `sync` (False: no relay traffic at all),
  `allow_loopback_relays` (ws:// to 127.0.0.1 and ::1, for a local test relay; the
  client refuses it, as this one does by default), `model`.
"""

from __future__ import annotations

import ipaddress
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union
from urllib.parse import urlparse

from .types import (
    D_TAG_PREFIX,
    JOURNAL_D_TAG_PREFIX,
    KIND_APP_DATA,
    KIND_DELETION,
    MAX_QUERY_RESULTS,
    RELAY_TIMEOUT,
    JournalEntry,
    Memory,
    _validate_key,
    _validate_relay_url,
)

__all__ = ["MemoryStore", "KIND_APP_DATA", "KIND_DELETION"]

# How long check() waits for one relay, as the client's check() does.
CHECK_TIMEOUT = 5


@dataclass(frozen=True)
class LocalEvent:
    """A record of the local store in the shape of the relay event the client reads: its
    d tag, its own time, and its payload (already decrypted, see the module doc)."""

    content: str
    created_at: int
    tags: list = field(default_factory=list)
    kind: int = KIND_APP_DATA


def _loopback_ws(url: str) -> bool:
    try:
        parsed = urlparse(url)
        if parsed.scheme not in ("ws", "wss") or not parsed.hostname:
            return False
        return ipaddress.ip_address(parsed.hostname).is_loopback
    except ValueError:
        return False


def default_path(public_key_hex: str) -> Path:
    """`memstr/sense-memory/{public key}.db` in the platform's data directory (or under
    `$MEMSTR_DIR`): one store per identity, apart from the CLI's (which may be blinded)."""
    from .. import _native
    from .._errors import StoreError

    env = os.environ.get("MEMSTR_DIR")
    if env:
        base = Path(env)
    else:
        data = _native.data_dir()
        if data is None:
            raise StoreError("no platform data directory: pass path= or set MEMSTR_DIR")
        base = Path(data) / "memstr"
    return base / "sense-memory" / f"{public_key_hex}.db"


class MemoryStore:
    """Sovereign persistence for an OpenClaw agent, kept locally by memstr and synced
    with the relays given. Drop-in for `sense_memory.MemoryStore` 0.3.1."""

    def __init__(
        self,
        identity: Any,
        relay_url: Union[str, "list[str]"],
        *,
        path: Optional[Union[str, "os.PathLike[str]"]] = None,
        sync: bool = True,
        allow_loopback_relays: bool = False,
        model: str = "none",
    ) -> None:
        def check(url: Any) -> None:
            if allow_loopback_relays and isinstance(url, str) and _loopback_ws(url):
                return
            _validate_relay_url(url)

        # The client's rules and messages, word for word.
        if isinstance(relay_url, str):
            check(relay_url)
            self._relay_urls = [relay_url]
        elif isinstance(relay_url, list) and len(relay_url) > 0:
            for url in relay_url:
                check(url)
            self._relay_urls = list(relay_url)
        else:
            raise ValueError("relay_url must be a non-empty string or list of strings")

        self._identity = identity
        self._path = Path(path) if path is not None else None
        self._sync_on = sync
        self._allow_loopback = allow_loopback_relays
        self._model = model
        # Opened on first use: constructing the client touches nothing, and neither does this.
        self._native: Any = None
        self._relay_ids: dict = {}

    def __repr__(self) -> str:
        """Redacted repr — never expose identity secrets."""
        return f"MemoryStore(pubkey={self.pubkey[:8]}..., relay_url={self.relay_url!r})"

    @property
    def pubkey(self) -> str:
        """The agent's public key (hex): the identity's own, as the client reports it (an
        nsec or hex string identity, which memstr also takes, is derived)."""
        given = getattr(self._identity, "public_key_hex", None)
        return given if isinstance(given, str) else self._public_key()

    @property
    def relay_url(self) -> str:
        """The primary relay URL (first in list)."""
        return self._relay_urls[0]

    @property
    def relay_urls(self) -> list:
        """All relay URLs."""
        return list(self._relay_urls)

    @property
    def path(self) -> Path:
        """The local store file."""
        if self._path is not None:
            return self._path
        return default_path(self._public_key())

    # --- Key-value memories (replaceable) ---

    async def remember(self, key: str, value: str) -> str:
        """Store a key-value memory. Overwrites if the key already exists.

        Returns the event ID of the stored memory."""
        memory = Memory(key=key, value=value)
        store = await self._store()
        event_id = await store.remember(memory.key, memory.value, memory.created_at)
        await self._sync()
        return event_id

    async def recall(self, key: str) -> Optional[Memory]:
        """Recall a memory by key. Returns the Memory if found, None otherwise."""
        _validate_key(key)
        d_tag = f"{D_TAG_PREFIX}{key}"

        events = await self._query({
            "kinds": [KIND_APP_DATA],
            "authors": [self.pubkey],
            "#d": [d_tag],
            "limit": 1,
        })

        if not events:
            return None

        event = events[0]
        data = self._decrypt_content(event.content)

        decrypted_key = data.get("key", "")
        if decrypted_key != key:
            raise ValueError(
                f"Decrypted key {decrypted_key!r} does not match queried key {key!r}. "
                f"Event may be corrupted or tampered with."
            )

        return Memory(
            key=data["key"],
            value=data["value"],
            created_at=data.get("ts", event.created_at),
        )

    async def recall_all(self) -> list:
        """Recall all stored memories."""
        events = await self._query({
            "kinds": [KIND_APP_DATA],
            "authors": [self.pubkey],
        })

        memories = []
        for event in events:
            d_tags = [t[1] for t in event.tags if len(t) >= 2 and t[0] == "d"]
            if not d_tags or not d_tags[0].startswith(D_TAG_PREFIX):
                continue
            try:
                data = self._decrypt_content(event.content)
                if data.get("type") == "sense-memory:kv":
                    memories.append(Memory(
                        key=data["key"],
                        value=data["value"],
                        created_at=data.get("ts", event.created_at),
                    ))
            except (ValueError, KeyError, json.JSONDecodeError):
                continue

        return memories

    async def forget(self, key: str) -> str:
        """Delete a memory by key (a tombstone locally, a NIP-09 deletion on relays).

        Returns the event ID of the deletion event."""
        _validate_key(key)
        store = await self._store()
        # The flat memory at `key`, never a persona memory that shares the key.
        event_id = await store.forget(f"kv/{key}")
        await self._sync()
        return event_id

    # --- Journal entries (append-only) ---

    async def journal(self, content: str) -> str:
        """Write a journal entry. Append-only — cannot be overwritten.

        Returns the event ID of the journal entry."""
        entry = JournalEntry(content=content)
        store = await self._store()
        event_id = await store.journal(entry.content, entry.created_at)
        await self._sync()
        return event_id

    async def recent(self, limit: int = 20) -> list:
        """Recall recent journal entries (default 20, max 100), newest first."""
        if limit < 1:
            limit = 1
        if limit > 100:
            limit = 100

        events = await self._query({
            "kinds": [KIND_APP_DATA],
            "authors": [self.pubkey],
            "limit": MAX_QUERY_RESULTS,
        })

        entries = []
        for event in events:
            d_tags = [t[1] for t in event.tags if len(t) >= 2 and t[0] == "d"]
            if not d_tags or not d_tags[0].startswith(JOURNAL_D_TAG_PREFIX):
                continue
            try:
                data = self._decrypt_content(event.content)
                if data.get("type") == "sense-memory:journal":
                    entries.append(JournalEntry(
                        content=data["content"],
                        created_at=data.get("ts", event.created_at),
                    ))
            except (ValueError, KeyError, json.JSONDecodeError):
                continue

        entries.sort(key=lambda e: e.created_at, reverse=True)
        return entries[:limit]

    # --- Relay health check ---

    async def check(self) -> dict:
        """Check connectivity to all configured relays: {url: reachable}."""
        store = await self._store()
        reports = await store.sync(timeout=CHECK_TIMEOUT)
        ok = {r["url"]: r.get("error") is None and r.get("misbehaved") is None for r in reports}
        return {url: ok.get(self._relay_ids.get(url, url), False) for url in self._relay_urls}

    # --- Beyond the client ---

    async def sync(self) -> list:
        """One sync pass with every relay now; the reports, one per relay."""
        store = await self._store()
        return list(await store.sync(timeout=RELAY_TIMEOUT))

    async def close(self) -> None:
        """Signs pending accesses and lets go of the local store."""
        if self._native is not None:
            store, self._native = self._native, None
            await store.close()

    async def __aenter__(self) -> "MemoryStore":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- Internal helpers ---

    def _secret(self) -> str:
        from ..store import secret_of

        return secret_of(self._identity)

    def _public_key(self) -> str:
        from .. import _native

        return _native.public_key_of(self._secret())

    async def _store(self) -> Any:
        if self._native is None:
            from .. import _native

            path = self.path
            path.parent.mkdir(parents=True, exist_ok=True)
            native, _info = await _native.open(
                str(path), self._secret(), d_tag_mode="compatible", model=self._model
            )
            for url in self._relay_urls:
                insecure = self._allow_loopback and url.startswith("ws://")
                self._relay_ids[url] = await native.add_relay(url, insecure)
            if self._native is None:
                self._native = native
        return self._native

    async def _sync(self) -> None:
        """One pass with the relays, best-effort: a relay that is down changes nothing
        here (its report says so; the outbox keeps what it did not take)."""
        if self._sync_on:
            store = await self._store()
            await store.sync(timeout=RELAY_TIMEOUT)

    async def _query(self, filters: dict) -> list:
        """The local store's events matching `filters` (the three shapes the client's
        reads send: one d tag, every record, the newest N), newest first, after a sync."""
        await self._sync()
        store = await self._store()
        limit = min(int(filters.get("limit", MAX_QUERY_RESULTS)), MAX_QUERY_RESULTS)
        events = []
        wanted = filters.get("#d")
        if wanted is not None:
            for d_tag in wanted:
                if d_tag.startswith(D_TAG_PREFIX) and "/" not in d_tag[len(D_TAG_PREFIX):]:
                    m = await store.recall(d_tag[len(D_TAG_PREFIX):])
                    if m is not None:
                        events.append(_kv_event(m))
        else:
            for m in await store.recall_all():
                events.append(_kv_event(m))
            for j in await store.recent(MAX_QUERY_RESULTS, None, None):
                events.append(_journal_event(j))
        events.sort(key=lambda e: e.created_at, reverse=True)
        return events[:limit]

    def _decrypt_content(self, encrypted_content: str) -> dict:
        """The payload of a local event (decrypted by memstr when it arrived)."""
        return json.loads(encrypted_content)


def _kv_event(m: dict) -> LocalEvent:
    payload = json.dumps({"type": "sense-memory:kv", "key": m["key"], "value": m["value"], "ts": m["created_at"]})
    return LocalEvent(payload, int(m["created_at"]), [["d", f"{D_TAG_PREFIX}{m['key']}"]])


def _journal_event(j: dict) -> LocalEvent:
    payload = json.dumps({"type": "sense-memory:journal", "content": j["content"], "ts": j["created_at"]})
    return LocalEvent(payload, int(j["created_at"]), [["d", f"{JOURNAL_D_TAG_PREFIX}{j['created_at']}"]])

