"""How quick memstr is to start from Python: `import memstr`, then opening a store of N
memories with the embedding model and its first search.

    python python/examples/bench.py [--memories 10000] [--runs 5] [--store PATH]

The store is built once (persona memories from templates, every one embedded) at
$MEMSTR_CACHE_DIR/bench/python-{N}.db and reused. Each figure is the median of --runs fresh
interpreters, each measuring from its own start: the import, the open (ONNX Runtime and
the model loaded, the vector index read), and the first search (the query embedded,
both search passes). Needs the model (scripts/models/fetch.sh or `memstr model install`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

SECRET = "5c0c523f52a5b6fad39ed2403092df8cebc36318b39383bca6c00808626fab3a"  # the tests' public key

PEOPLE = ["Alice", "Bob", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Jun", "Kofi", "Lena"]
TOPICS = [
    ("prefers", ["dark mode", "green tea", "vim", "long walks", "jazz", "quiet mornings", "Rust", "spreadsheets"]),
    ("works on", ["the billing service", "the mobile app", "the data pipeline", "search ranking", "the relay"]),
    ("lives in", ["Warsaw", "Lisbon", "Osaka", "Nairobi", "Toronto", "Tallinn", "Lagos", "Seoul"]),
    ("is learning", ["Japanese", "the cello", "climbing", "statistics", "woodworking", "chess openings"]),
    ("dislikes", ["meetings before nine", "flaky tests", "cold coffee", "long emails", "open offices"]),
]
WHEN = ["since last spring", "these days", "on weekends", "at work", "for years", "lately"]


def memories(n: int):
    rng = random.Random(7)
    for i in range(n):
        who = rng.choice(PEOPLE)
        verb, objects = rng.choice(TOPICS)
        what = rng.choice(objects)
        # No themes: thousands of memories sharing two themes would make the consolidation
        # cycle link every pair of them, which is not what a store of 10k memories looks like.
        yield f"m{i:05d}", f"{who} {verb} {what} {rng.choice(WHEN)} (note {i})"


async def build(path: Path, n: int) -> None:
    import memstr

    start = time.perf_counter()
    store = await memstr.MemoryStore.open(path, SECRET, model="required")
    for key, value in memories(n):
        await store.persona_remember("people", "facts", key, value)
    wrote = time.perf_counter() - start
    report = await store.embed_pending()
    await store.close()
    print(f"built {path}: {n} memories written in {wrote:.1f} s, embedded in {time.perf_counter() - start - wrote:.1f} s ({report})")


CHILD = r"""
import time
t0 = time.perf_counter()
import memstr
t1 = time.perf_counter()
import asyncio, json, sys

async def main():
    store = await memstr.MemoryStore.open(sys.argv[1], sys.argv[2], model="required")
    t2 = time.perf_counter()
    hits = await store.search("which music does Alice enjoy?", limit=5)
    t3 = time.perf_counter()
    assert hits, "no hit"
    print(json.dumps({"import": t1 - t0, "open": t2 - t1, "search": t3 - t2, "open_search": t3 - t1, "hits": len(hits)}))

asyncio.run(main())
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--memories", type=int, default=10_000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--store", type=Path)
    args = p.parse_args()

    cache = Path(os.environ.get("MEMSTR_CACHE_DIR", Path.home() / ".cache" / "memstr"))
    path = args.store or cache / "bench" / f"python-{args.memories}.db"
    built = path.with_name(path.name + ".built")
    if args.store is None and not built.exists():
        # A build cut short leaves a partial store: start again from nothing.
        for stale in path.parent.glob(path.name + "*"):
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        asyncio.run(build(path, args.memories))
        built.touch()

    # A fresh interpreter per run: the import and the model load are what a new agent pays.
    subprocess.run([sys.executable, "-c", "import memstr"], check=True)  # compile the .pyc files once
    runs = []
    for _ in range(args.runs):
        out = subprocess.run([sys.executable, "-c", CHILD, str(path), SECRET], check=True, capture_output=True, text=True)
        runs.append(json.loads(out.stdout))
    med = {k: statistics.median(r[k] for r in runs) for k in ("import", "open", "search", "open_search")}
    worst = {k: max(r[k] for r in runs) for k in med}
    print(f"store: {path} ({args.memories} persona memories, embedded); {args.runs} fresh interpreters, median (worst)")
    print(f"import memstr:              {med['import'] * 1000:7.1f} ms ({worst['import'] * 1000:.1f})   target < 200 ms")
    print(f"open with the model:        {med['open'] * 1000:7.1f} ms ({worst['open'] * 1000:.1f})")
    print(f"first search:               {med['search'] * 1000:7.1f} ms ({worst['search'] * 1000:.1f})")
    print(f"open + first search:        {med['open_search'] * 1000:7.1f} ms ({worst['open_search'] * 1000:.1f})   target < 1000 ms")


if __name__ == "__main__":
    main()
