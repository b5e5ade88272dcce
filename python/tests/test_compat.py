"""memstr.compat, the sense-memory 0.3.1 drop-in, on a local store (no relay traffic)."""

from __future__ import annotations

import pytest

import memstr
import memstr.compat as sense_memory
from memstr.compat.store import MemoryStore
from memstr.compat.types import MAX_KEY_LENGTH


class Identity:
    """The two attributes the client reads of nostrkey's Identity."""

    def __init__(self, secret: str) -> None:
        self.private_key_hex = secret
        self.public_key_hex = memstr.public_key_of(secret)


@pytest.fixture
def store(tmp_path, secret):
    return MemoryStore(Identity(secret), "wss://relay.example.com", path=tmp_path / "c.db", sync=False)


def test_module_layout_matches_the_client():
    for name in sense_memory.__all__:
        assert hasattr(sense_memory, name), name
    assert sense_memory.__version__ == "0.3.1"
    assert MAX_KEY_LENGTH == 256


async def test_the_clients_calls(store):
    event_id = await store.remember("user_tz", "America/Vancouver")
    assert len(event_id) == 64
    m = await store.recall("user_tz")
    assert isinstance(m, sense_memory.Memory)
    assert (m.key, m.value) == ("user_tz", "America/Vancouver")
    await store.remember("user_lang", "en")
    assert sorted(m.key for m in await store.recall_all()) == ["user_lang", "user_tz"]

    await store.journal("first")
    await store.journal("second")
    entries = await store.recent(limit=1)
    assert [e.content for e in entries] == ["second"]
    assert isinstance(entries[0], sense_memory.JournalEntry)

    assert len(await store.forget("user_tz")) == 64
    assert await store.recall("user_tz") is None
    with pytest.raises(ValueError, match="invalid characters"):
        await store.recall("a/b")
    with pytest.raises(ValueError, match="too long"):
        await store.remember("k", "x" * 65001)


async def test_forget_is_the_flat_memory_even_when_a_persona_key_matches(store, tmp_path, secret):
    await store.remember("alice", "flat")
    await store.close()
    full = await memstr.MemoryStore.open(tmp_path / "c.db", secret, model="none")
    await full.persona_remember("people", "facts", "alice", "persona")
    assert full.d_tag_mode == "compatible"
    await full.close()
    await store.forget("alice")
    assert await store.recall("alice") is None


def test_repr_never_shows_the_secret(secret):
    s = MemoryStore(Identity(secret), ["wss://a.example.com", "wss://b.example.com"])
    assert secret not in repr(s) and "wss://a.example.com" in repr(s)


def test_loopback_relays_only_when_asked(secret):
    with pytest.raises(ValueError, match="wss://"):
        MemoryStore(Identity(secret), "ws://127.0.0.1:7777")
    MemoryStore(Identity(secret), "ws://127.0.0.1:7777", allow_loopback_relays=True)
    with pytest.raises(ValueError, match="wss://"):
        MemoryStore(Identity(secret), "ws://10.0.0.1:7777", allow_loopback_relays=True)


async def test_offline_write_is_kept_and_pushed_later(tmp_path, secret):
    s = MemoryStore(Identity(secret), "ws://127.0.0.1:9", path=tmp_path / "o.db", allow_loopback_relays=True)
    # The client raised ConnectionError here; the drop-in keeps the write.
    await s.remember("k", "v")
    assert (await s.recall("k")).value == "v"
    assert await s.check() == {"ws://127.0.0.1:9": False}
    await s.close()
