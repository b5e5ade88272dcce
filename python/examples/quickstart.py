"""memstr from Python: remember, search by meaning, facts, forgetting, and the drop-in.

    python python/examples/quickstart.py [RELAY_URL]

Uses $MEMSTR_NSEC when set (nsec or hex), else a new key, and a store in a temporary
directory. With a relay URL (ws:// on loopback, or wss://) it also syncs through it.
"""

import asyncio
import os
import sys
import tempfile
from pathlib import Path

import memstr
from memstr.compat import MemoryStore as SenseMemoryStore


async def main() -> None:
    secret = os.environ.get("MEMSTR_NSEC") or memstr.generate_secret()
    relays = sys.argv[1:2]
    with tempfile.TemporaryDirectory() as tmp:
        async with await memstr.MemoryStore.open(
            Path(tmp) / "agent.db", secret, relays=relays, d_tag_mode="compatible"
        ) as store:
            print(f"store {store!r}, searching {'by meaning' if store.has_model else 'by words only'}")
            await store.remember("favorite-editor", "helix")
            await store.journal("Shipped the release.")
            await store.persona_remember(
                "people", "facts", "alice-prefers-dark-mode", "Alice prefers dark mode", themes=["ui"]
            )
            for hit in await store.search("which colour scheme does Alice like?", limit=3):
                print(f"{hit.score:.3f}  {hit.text}")
                print(hit.explain())

            await store.fact_set("self", "user", "city", "Warsaw")
            await store.fact_set("self", "user", "city", "Krakow")
            print("city:", [v.value for v in await store.fact_history("self", "user", "city")])

            await store.archive("favorite-editor")
            await store.restore("favorite-editor")
            await store.forget("favorite-editor")
            assert await store.recall("favorite-editor") is None

            if relays:
                for report in await store.sync():
                    print(f"{report.url}: pulled {report.pulled['applied']} new, pushed {report.pushed}, error {report.error}")

        # The sense-memory 0.3.1 drop-in: the client's calls, on a local store synced with
        # the relays. It takes nostrkey's Identity, or (a memstr extra) the key itself.
        client = SenseMemoryStore(
            secret, relays or "wss://relay.example.com", path=Path(tmp) / "compat.db",
            sync=bool(relays), allow_loopback_relays=True,
        )
        await client.remember("user_tz", "America/Vancouver")
        print("drop-in recall:", await client.recall("user_tz"))
        await client.close()

if __name__ == "__main__":
    asyncio.run(main())
