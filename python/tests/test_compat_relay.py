"""Across clients, through nostr-rs-relay: the drop-in writes and the published
sense-memory 0.3.1 client reads, and the reverse."""

from __future__ import annotations

import memstr
from memstr.compat import MemoryStore

from conftest import OTHER_SECRET


class Identity:
    def __init__(self, secret: str) -> None:
        self.private_key_hex = secret
        self.public_key_hex = memstr.public_key_of(secret)


async def test_drop_in_writes_the_published_client_reads(tmp_path, relay, published_client):
    store = MemoryStore(Identity(OTHER_SECRET), relay, path=tmp_path / "d.db", allow_loopback_relays=True)
    assert await store.check() == {relay: True}
    await store.remember("user_tz", "America/Vancouver")
    await store.journal("written by memstr.compat")

    got = published_client(relay, OTHER_SECRET, "recall", "user_tz")
    assert got["value"] == "America/Vancouver"
    recent = published_client(relay, OTHER_SECRET, "recent", "--limit", "5")
    assert "written by memstr.compat" in [e["content"] for e in recent]

    await store.forget("user_tz")
    assert published_client(relay, OTHER_SECRET, "recall", "user_tz") is None
    await store.close()


async def test_published_client_writes_the_drop_in_reads(tmp_path, relay, published_client, secret):
    published_client(relay, secret, "remember", "editor", "helix")
    published_client(relay, secret, "journal", "written by sense-memory 0.3.1")

    store = MemoryStore(Identity(secret), relay, path=tmp_path / "e.db", allow_loopback_relays=True)
    m = await store.recall("editor")
    assert m is not None and m.value == "helix"
    assert "written by sense-memory 0.3.1" in [e.content for e in await store.recent()]

    published_client(relay, secret, "forget", "editor")
    assert await store.recall("editor") is None
    assert [m.key for m in await store.recall_all()] == []
    await store.close()
