"""memstr.MemoryStore from Python: the full API on a local store (no relay)."""

from __future__ import annotations

import pytest

import memstr
from memstr import MemoryStore


@pytest.fixture
async def store(tmp_path, secret):
    # "auto": with the model when installed (CI installs it: scripts/models/fetch.sh).
    s = await MemoryStore.open(tmp_path / "agent.db", secret)
    yield s
    await s.close()


async def test_flat_memories_and_journal(store):
    event_id = await store.remember("favorite-editor", "helix")
    assert len(event_id) == 64
    m = await store.recall("favorite-editor")
    assert (m.key, m.value) == ("favorite-editor", "helix")
    assert [m.key for m in await store.recall_all()] == ["favorite-editor"]
    assert await store.recall("absent") is None

    await store.journal("Shipped the release.", at=1_000.0)
    await store.journal("Fixed the flaky test.", at=2_000.0)
    entries = await store.recent(10)
    assert [e.content for e in entries] == ["Fixed the flaky test.", "Shipped the release."]
    assert [e.content for e in await store.recent(10, since=1_500.0)] == ["Fixed the flaky test."]


async def test_persona_calls(store):
    w = await store.persona_remember(
        "people", "facts", "alice-dark-mode", "Alice prefers dark mode", themes=["ui"], confidence=0.9
    )
    assert w.decision == "write" and w.address == "people/facts/alice-dark-mode"
    await store.persona_remember("people", "facts", "alice-role", "Alice leads the platform team")
    await store.persona_remember("projects", "decisions", "storage", "We chose SQLite for the local store")

    [m] = await store.persona_recall("people", "facts", "alice-dark-mode")
    assert m.value == "Alice prefers dark mode"
    assert m.themes == ("ui",) and m.confidence == 0.9
    assert m.live_state == "active" and 0 < m.current_relevance <= 1.5
    assert len(await store.persona_recall("people")) == 2

    hits = await store.persona_search("dark mode", 5)
    assert hits[0].memory.key == "alice-dark-mode"
    assert hits[0].score > 0

    await store.persona_connect("alice-dark-mode", "alice-role")
    [m] = await store.persona_recall(key="alice-dark-mode", count_access=False)
    assert "alice-role" in m.connections

    await store.persona_remember("people", "facts", "alice-light-mode", "Alice now prefers light mode")
    await store.persona_contradict("alice-dark-mode", "alice-light-mode")
    [old] = await store.persona_recall(key="alice-dark-mode", count_access=False)
    assert old.superseded_by is not None

    assert await store.persona_domains() == ["people", "projects"]
    assert await store.persona_facets("people") == ["facts"]
    stats = await store.persona_stats()
    assert stats["total"] == 4

    await store.pin("alice-role")
    [m] = await store.persona_recall(key="alice-role", count_access=False)
    assert m.pinned

    text = await store.compress()
    assert "Alice leads the platform team" in text


async def test_gated_write_reinforces_a_repeat(store):
    await store.persona_remember("self", "facts", "tea", "I drink green tea every morning")
    w = await store.persona_remember("self", "facts", "tea-again", "I drink green tea every morning", gate=True)
    assert w.decision == "reinforce" and w.existing == "tea"
    assert len(await store.persona_recall("self")) == 1


async def test_search_explains_every_hit(store):
    await store.persona_remember("people", "facts", "alice-dark-mode", "Alice prefers dark mode", themes=["ui"])
    await store.remember("favorite-editor", "helix")
    await store.journal("Deployed the billing service on Friday.")

    hits = await store.search("which colour scheme does Alice like?", limit=5)
    assert hits, "no hit"
    top = hits[0]
    assert top.kind == "persona" and top.record.key == "alice-dark-mode"
    assert top.text == "Alice prefers dark mode"
    assert top.score > 0 and 0 < top.strength <= 1
    names = [s.name for s in top.signals]
    assert "matching" in names
    assert "matching" in top.explain()

    journal = await store.search("billing deploy", kinds=["journal"])
    assert journal and journal[0].kind == "journal"
    assert await store.search("quantum chromodynamics lattice gauge") == []
    with pytest.raises(ValueError, match="unknown kind"):
        await store.search("x", kinds=["nope"])


async def test_keyed_facts(store):
    await store.fact_set("self", "user", "city", "Warsaw", at=1_000.0)
    await store.fact_set("self", "user", "city", "Krakow", at=2_000.0)
    assert await store.fact_get("self", "user", "city") == "Krakow"
    history = await store.fact_history("self", "user", "city")
    assert [v.value for v in history] == ["Warsaw", "Krakow"]
    assert history[0].until == history[1].from_
    assert await store.fact_get("self", "user", "country") is None


async def test_forgetting_verbs(store):
    await store.remember("favorite-editor", "helix")
    assert await store.archive("favorite-editor") == "kv/favorite-editor"
    assert (await store.recall("favorite-editor")).archived_at is not None
    assert await store.restore("kv/favorite-editor") == "kv/favorite-editor"
    assert (await store.recall("favorite-editor")).archived_at is None

    await store.persona_remember("people", "facts", "bob-coffee", "Bob drinks coffee")
    deletion = await store.forget("people/facts/bob-coffee")
    assert len(deletion) == 64
    assert await store.persona_recall(key="bob-coffee") == []

    await store.remember("wifi-password", "hunter2")
    await store.purge("kv/wifi-password")
    assert await store.recall("wifi-password") is None
    hits = await store.search("wifi password hunter2", min_strength=0.0)
    assert all(getattr(h.record, "key", None) != "wifi-password" for h in hits)


async def test_introspect_and_consolidate(store):
    await store.persona_remember("self", "beliefs", "tabs", "Tabs are better than spaces", confidence=0.2)
    report = await store.introspect()
    assert report["total_memories"] == 1
    assert "orphaned" in report
    cycle = await store.consolidate()
    assert isinstance(cycle, dict)


async def test_errors_say_what_to_do_and_keep_the_key_secret(tmp_path, secret):
    store = await MemoryStore.open(tmp_path / "a.db", secret, model="none")
    with pytest.raises(memstr.InvalidInput) as e:
        await store.remember("a/b", "x")
    assert isinstance(e.value, ValueError)

    await store.remember("alice", "flat")
    await store.persona_remember("people", "facts", "alice", "persona")
    with pytest.raises(memstr.Ambiguous, match="kv/alice"):
        await store.archive("alice")
    with pytest.raises(memstr.NotFound):
        await store.archive("nobody")

    assert secret not in repr(store)
    await store.close()

    # Another key on the same file: said, with what to do, and no secret in it.
    other = "7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a"
    with pytest.raises(memstr.WrongKey) as e:
        await MemoryStore.open(tmp_path / "a.db", other, model="none")
    assert "key it was created with" in str(e.value)
    assert other not in str(e.value) and secret not in str(e.value)

    bad = "ab" * 31 + "zz"
    with pytest.raises(memstr.IdentityError) as e:
        await MemoryStore.open(tmp_path / "b.db", bad)
    assert bad not in str(e.value) and "nsec" in str(e.value)


async def test_model_modes(tmp_path, secret):
    store = await MemoryStore.open(tmp_path / "words.db", secret, model="none")
    assert not store.has_model
    await store.remember("k", "words only still find this")
    hits = await store.search("words only")
    assert hits and hits[0].record.key == "k"
    await store.close()
    with pytest.raises(ValueError, match="unknown model"):
        await MemoryStore.open(tmp_path / "x.db", secret, model="maybe")
