"""How quick memstr is to start from Python: `import memstr`, then opening a store of N
memories with the embedding model and its first search.

    python python/examples/bench.py [--memories 10000] [--runs 5] [--store PATH]

The store is built once (persona memories: varied sentences from templates and word lists,
every one embedded, then one consolidation cycle) at
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

# Varied text, as examples/search_bench.rs's corpus: templates with many slots filled from
# word lists, so no two memories say nearly the same thing (thousands of near-identical
# lines are a different workload: consolidation links each memory to its 16 most similar
# at most, see docs/lifecycle.md).
NAMES = "Alice Bob Chen Dana Emeka Farah Goran Hana Ivan Jun Kofi Lena Marta Nadia Omar Priya Quinn Rosa Sami Tomas Uma Viktor Wen Yusuf Zofia".split()
CITIES = "Warsaw Lisbon Osaka Nairobi Toronto Tallinn Lagos Seoul Denver Porto Kyoto Accra Quito Bergen Hanoi Lima".split()
FOODS = ["spicy ramen", "oat milk lattes", "dark chocolate", "lentil soup", "sushi", "black coffee", "falafel",
         "cheesecake", "kimchi", "peanut butter", "pho", "tacos al pastor", "croissants", "paella", "dumplings",
         "grilled salmon", "banana bread", "green tea"]
ALLERGENS = "peanuts shellfish gluten lactose cats pollen penicillin soy eggs".split()
HOBBIES = ["bouldering", "chess", "salsa dancing", "birdwatching", "pottery", "marathon training", "baking bread",
           "learning Japanese", "woodworking", "photography", "sailing", "knitting", "playing the cello", "beekeeping"]
PROJECTS = ["billing migration", "mobile app", "search service", "quarterly report", "data pipeline",
            "website redesign", "onboarding flow", "grant proposal", "kitchen renovation", "thesis draft",
            "podcast episode", "analytics dashboard", "fundraiser", "customer survey"]
TOOLS = ["vim", "emacs", "VS Code", "spreadsheets", "a paper notebook", "Rust", "Python", "Go", "Figma", "Postgres",
         "a standing desk", "noise-cancelling headphones", "dark mode", "a mechanical keyboard"]
MUSIC = ["jazz", "techno", "Bach cantatas", "k-pop", "bluegrass", "Afrobeat", "punk", "film scores", "bossa nova",
         "lo-fi beats", "opera", "Malian blues"]
BOOKS = ["The Overstory", "Dune", "Middlemarch", "Project Hail Mary", "Educated", "Piranesi", "Sapiens",
         "The Remains of the Day", "Klara and the Sun", "The Name of the Rose", "The Left Hand of Darkness"]
PETS = ["a grey cat", "two goldfish", "a rescue greyhound", "a parrot", "a tortoise", "a beagle puppy", "three hens"]
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
MONTHS = "January February March April May June July August September October November December".split()
TIMES = ["9 am", "10:30", "noon", "2 pm", "3:15 pm", "5 pm", "7 in the evening", "8:45"]
WHEN = ["since last spring", "these days", "on weekends", "at work", "for years", "lately", "since moving",
        "after the holidays", "every morning", "when travelling"]
TEMPLATES = [
    lambda r, n: f"{n} prefers {r.choice(FOODS)} over {r.choice(FOODS)} and is allergic to {r.choice(ALLERGENS)}",
    lambda r, n: f"{n} lives in {r.choice(CITIES)} but grew up in {r.choice(CITIES)} and visits family in {r.choice(MONTHS)}",
    lambda r, n: f"{n} took up {r.choice(HOBBIES)} {r.choice(WHEN)} and wants to try {r.choice(HOBBIES)} next",
    lambda r, n: f"{n} leads the {r.choice(PROJECTS)}, due in {r.choice(MONTHS)}, with {r.choice(NAMES)} reviewing",
    lambda r, n: f"{n} works in {r.choice(TOOLS)} and refuses to use {r.choice(TOOLS)} for the {r.choice(PROJECTS)}",
    lambda r, n: f"{n} listens to {r.choice(MUSIC)} while working and saw a {r.choice(MUSIC)} concert in {r.choice(CITIES)}",
    lambda r, n: f"{n} recommended {r.choice(BOOKS)} and is now reading {r.choice(BOOKS)} {r.choice(WHEN)}",
    lambda r, n: f"{n} has {r.choice(PETS)} named after a character in {r.choice(BOOKS)}",
    lambda r, n: f"{n} prefers meetings on {r.choice(DAYS)} at {r.choice(TIMES)}, never on {r.choice(DAYS)}",
    lambda r, n: f"{n}'s birthday is {r.choice(MONTHS)} {r.randint(1, 28)}; they like {r.choice(FOODS)} and {r.choice(MUSIC)}",
    lambda r, n: f"{n} is flying from {r.choice(CITIES)} to {r.choice(CITIES)} on {r.choice(DAYS)} for the {r.choice(PROJECTS)}",
    lambda r, n: f"{n} stopped {r.choice(HOBBIES)} after an injury and took up {r.choice(HOBBIES)} in {r.choice(CITIES)}",
]


def memories(n: int):
    rng = random.Random(7)
    seen = set()
    i = 0
    while i < n:
        text = rng.choice(TEMPLATES)(rng, rng.choice(NAMES))
        if text.lower() in seen:
            continue
        seen.add(text.lower())
        yield f"m{i:05d}", text
        i += 1


async def build(path: Path, n: int) -> None:
    import memstr

    start = time.perf_counter()
    store = await memstr.MemoryStore.open(path, SECRET, model="required")
    for key, value in memories(n):
        await store.persona_remember("people", "facts", key, value)
    wrote = time.perf_counter() - start
    report = await store.embed_pending()
    embedded = time.perf_counter() - start - wrote
    t = time.perf_counter()
    cycle = await store.consolidate()
    consolidated = time.perf_counter() - t
    t = time.perf_counter()
    await store.close()
    print(
        f"built {path}: {n} memories written in {wrote:.1f} s, embedded in {embedded:.1f} s ({report}); "
        f"a consolidation cycle {consolidated:.1f} s (linked {cycle.get('linked')}, edges {cycle.get('edges')}), "
        f"close {time.perf_counter() - t:.1f} s"
    )


CHILD = r"""
import time
t0 = time.perf_counter()
import memstr
t1 = time.perf_counter()
import asyncio, json, sys

async def main():
    store = await memstr.MemoryStore.open(sys.argv[1], sys.argv[2], model="required")
    t2 = time.perf_counter()
    hits = await store.search("what music does Alice listen to?", limit=5)
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
