"""Two stores (two devices with one key) converge through nostr-rs-relay."""

from __future__ import annotations

from memstr import MemoryStore

# A third agent: the relay is shared by the session, and the other tests write as theirs.
THIRD_SECRET = "1f" * 32


async def test_two_stores_sync_through_a_relay(tmp_path, relay):
    secret = THIRD_SECRET
    a = await MemoryStore.open(tmp_path / "a.db", secret, relays=[relay], model="none")
    b = await MemoryStore.open(tmp_path / "b.db", secret, relays=[relay], model="none")
    try:
        await a.remember("favorite-editor", "helix")
        await a.persona_remember("people", "facts", "alice-dark-mode", "Alice prefers dark mode", themes=["ui"])
        await a.fact_set("self", "user", "city", "Warsaw")
        [report] = await a.sync()
        assert report.ok, report
        assert report.pushed >= 3

        [report] = await b.sync()
        assert report.ok, report
        assert (await b.recall("favorite-editor")).value == "helix"
        [m] = await b.persona_recall("people", "facts", "alice-dark-mode")
        assert m.themes == ("ui",)
        assert await b.fact_get("self", "user", "city") == "Warsaw"

        # Forgetting on one device reaches the other.
        await b.forget("favorite-editor")
        await b.archive("alice-dark-mode")
        await b.sync()
        await a.sync()
        assert await a.recall("favorite-editor") is None
        [m] = await a.persona_recall(key="alice-dark-mode", count_access=False)
        assert m.archived_at is not None
        assert [r["url"] for r in await a.relays()] == [report.url]
    finally:
        await a.close()
        await b.close()


async def test_sync_with_a_relay_that_is_down_reports_it(tmp_path, secret):
    store = await MemoryStore.open(tmp_path / "a.db", secret, relays=["ws://127.0.0.1:9"], model="none")
    await store.remember("k", "kept locally")
    [report] = await store.sync(timeout=5)
    assert not report.ok and report.error
    assert report.pending >= 1
    assert (await store.recall("k")).value == "kept locally"
    await store.close()
