#!/usr/bin/env python3
"""Generate FSRS-6 test vectors with the published ``fsrs`` package (py-fsrs).

Usage: python gen_fsrs_vectors.py [--out PATH]
(default: src/lifecycle/fsrs_vectors.json of the repo)

Every number comes from the package's own ``Scheduler.review_card`` and
``Scheduler.get_card_retrievability``. The scheduler is built with
``learning_steps=()`` and ``relearning_steps=()`` so that every review updates
the card by stability and difficulty alone (memstr has no learning steps), and
with ``enable_fuzzing=False`` (fuzz only moves due dates, but keeps runs
deterministic anyway).

memstr's default parameters (the FSRS-6 default vector of fsrs-rs, seed 001)
are passed explicitly. If the package's own defaults differ, a second set of
vectors is written with those too, so the Rust tests exercise both. A last set
uses a made-up vector, to exercise custom parameters.

Times are whole Unix seconds, so the package's ``timedelta.days`` (which floors
elapsed time to whole days) sees exactly what memstr's float seconds say.

Install: python3 -m venv /tmp/fsrs-venv && /tmp/fsrs-venv/bin/pip install fsrs
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

import fsrs
from fsrs import Card, Rating, Scheduler

# memstr's default: fsrs-rs FSRS6_DEFAULT_PARAMETERS (w20 = 0.1542, as in seed 001).
# Must equal FSRS6_DEFAULT_PARAMS in src/lifecycle/decay.rs.
MEMSTR_DEFAULT_PARAMETERS = [
    0.212,   # w0  S0(Again)
    1.2931,  # w1  S0(Hard)
    2.3065,  # w2  S0(Good)
    8.2956,  # w3  S0(Easy)
    6.4133,  # w4  D0 base
    0.8334,  # w5  D0 slope
    3.0194,  # w6  difficulty step
    0.001,   # w7  mean reversion
    1.8722,  # w8  recall stability scale
    0.1666,  # w9  recall stability saturation
    0.796,   # w10 recall stability vs retrievability
    1.4835,  # w11 lapse stability scale
    0.0614,  # w12 lapse vs difficulty
    0.2629,  # w13 lapse vs stability
    1.6483,  # w14 lapse vs retrievability
    0.6014,  # w15 hard penalty
    1.8729,  # w16 easy bonus
    0.5425,  # w17 short-term scale
    0.0912,  # w18 short-term offset
    0.0658,  # w19 short-term saturation
    0.1542,  # w20 decay
]

# A deliberately different vector (every weight moved, within the package's bounds) so the
# tests show Fsrs6::with_params uses every weight rather than a built-in default.
CUSTOM_PARAMETERS = [
    0.4, 0.9, 3.1, 12.0, 7.0, 0.6, 2.2, 0.05, 1.5, 0.2, 1.1, 1.9, 0.11, 0.31, 2.0, 0.3, 2.5, 0.7, 0.3,
    0.2, 0.35,
]

DAY = 86_400
T0 = 1_700_000_000  # whole seconds; any origin works

# (name, [(offset in seconds from T0, rating)]). The first review is the card's
# first (initial stability/difficulty); offsets cover same-day reviews (< 1 day,
# including 0 and just under a day), exact day boundaries, long gaps and lapses.
SEQUENCES: list[tuple[str, list[tuple[int, Rating]]]] = [
    ("good_expanding", [
        (0, Rating.Good), (1 * DAY, Rating.Good), (3 * DAY, Rating.Good), (8 * DAY, Rating.Good),
        (21 * DAY, Rating.Good), (60 * DAY, Rating.Good), (200 * DAY, Rating.Good),
    ]),
    ("first_again", [(0, Rating.Again), (1 * DAY, Rating.Good), (2 * DAY, Rating.Good), (5 * DAY, Rating.Hard)]),
    ("first_hard", [(0, Rating.Hard), (2 * DAY, Rating.Hard), (6 * DAY, Rating.Good), (30 * DAY, Rating.Easy)]),
    ("first_easy", [(0, Rating.Easy), (10 * DAY, Rating.Easy), (100 * DAY, Rating.Good), (1000 * DAY, Rating.Good)]),
    ("same_day_burst", [
        (0, Rating.Good), (60, Rating.Good), (600, Rating.Good), (3600, Rating.Hard), (43_200, Rating.Easy),
        (86_399, Rating.Again), (86_400 + 86_399, Rating.Good), (3 * DAY, Rating.Good),
    ]),
    ("agent_session", [
        (0, Rating.Good), *[(300 * i, Rating.Good) for i in range(1, 12)], (DAY + 1800, Rating.Good),
        (DAY + 3600, Rating.Good), (9 * DAY, Rating.Good),
    ]),
    ("lapses", [
        (0, Rating.Good), (4 * DAY, Rating.Good), (30 * DAY, Rating.Again), (30 * DAY + 7200, Rating.Good),
        (45 * DAY, Rating.Again), (400 * DAY, Rating.Again), (401 * DAY, Rating.Good), (402 * DAY, Rating.Hard),
    ]),
    ("long_gaps", [
        (0, Rating.Easy), (365 * DAY, Rating.Good), (3650 * DAY, Rating.Hard), (3650 * DAY + 43_200, Rating.Again),
        (7300 * DAY, Rating.Good),
    ]),
    ("hard_grind", [
        (0, Rating.Hard), (1 * DAY, Rating.Hard), (1 * DAY + 100, Rating.Hard), (2 * DAY, Rating.Hard),
        (4 * DAY, Rating.Hard), (9 * DAY, Rating.Again), (9 * DAY + 50, Rating.Again), (20 * DAY, Rating.Hard),
    ]),
    ("mixed_fractional", [
        (0, Rating.Good), (int(1.5 * DAY), Rating.Good), (int(2.9 * DAY), Rating.Easy), (int(7.2 * DAY), Rating.Hard),
        (int(7.9 * DAY), Rating.Good), (int(50.5 * DAY), Rating.Again), (int(51.01 * DAY), Rating.Easy),
    ]),
]

# Whole days after the last review at which the package's retrievability is sampled.
PROBE_DAYS = [0, 1, 2, 5, 10, 30, 100, 365, 1000, 10_000]


def at(offset: int) -> datetime:
    return datetime.fromtimestamp(T0 + offset, tz=timezone.utc)


def run(parameters: list[float]) -> list[dict]:
    scheduler = Scheduler(
        parameters=parameters,
        desired_retention=0.9,
        learning_steps=(),
        relearning_steps=(),
        enable_fuzzing=False,
    )
    out = []
    for name, reviews in SEQUENCES:
        card = Card()
        steps = []
        prev_offset = 0
        for offset, rating in reviews:
            when = at(offset)
            before = None
            if card.last_review is not None:
                before = scheduler.get_card_retrievability(card, current_datetime=when)
            card, _ = scheduler.review_card(card, rating, review_datetime=when)
            steps.append({
                "at": float(T0 + offset),
                "rating": int(rating),
                "elapsed_days": None if before is None else (when - at(prev_offset)).days,
                "retrievability_before": before,
                "stability": card.stability,
                "difficulty": card.difficulty,
            })
            prev_offset = offset
        probes = [
            {
                "at": float(T0 + prev_offset + d * DAY),
                "retrievability": scheduler.get_card_retrievability(card, current_datetime=at(prev_offset + d * DAY)),
            }
            for d in PROBE_DAYS
        ]
        out.append({"name": name, "steps": steps, "probes": probes})
    return out


def main() -> int:
    repo = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=repo / "src" / "lifecycle" / "fsrs_vectors.json")
    args = ap.parse_args()

    package_defaults = [float(x) for x in fsrs.scheduler.DEFAULT_PARAMETERS]
    sets = [{"label": "memstr-default", "parameters": MEMSTR_DEFAULT_PARAMETERS,
             "sequences": run(MEMSTR_DEFAULT_PARAMETERS)}]
    if package_defaults != MEMSTR_DEFAULT_PARAMETERS:
        sets.append({"label": "package-default", "parameters": package_defaults, "sequences": run(package_defaults)})
    sets.append({"label": "custom", "parameters": CUSTOM_PARAMETERS, "sequences": run(CUSTOM_PARAMETERS)})

    doc = {
        "generator": "scripts/lifecycle/gen_fsrs_vectors.py",
        "package": "fsrs",
        "package_version": version("fsrs"),
        "python": sys.version.split()[0],
        "scheduler": {"desired_retention": 0.9, "learning_steps": [], "relearning_steps": [],
                      "enable_fuzzing": False},
        "package_default_parameters": package_defaults,
        "package_defaults_equal_memstr": package_defaults == MEMSTR_DEFAULT_PARAMETERS,
        "notes": [
            "elapsed_days is the package's timedelta.days: elapsed time floored to whole days",
            "retrievability_before is the package's retrievability at the review (null on a first review)",
            "stability and difficulty are the card's after the review",
        ],
        "sets": sets,
    }
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out} ({len(sets)} parameter set(s), fsrs {doc['package_version']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
