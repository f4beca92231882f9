"""Regenerate every file under samples/ (or under --out DIR), deterministically.

    python samples/regenerate.py            # rewrite samples/
    python samples/regenerate.py --out /tmp/s  # write elsewhere (CI compares the two)
    python samples/regenerate.py -j 1          # one process (the same files)

- examples/: one annotated hand per seed ruleset (make_examples.py);
- violations/: hand-made hands breaking one rule each, with expected output (make_violations.py);
- matches/: a whole simulated match per ruleset variant, JSONL and Parquet, and a file with
  labelled injected violations (``shengji simulate``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "samples"))

import make_examples  # noqa: E402
import make_violations  # noqa: E402

from gamelog import files  # noqa: E402
from replay import get_ruleset  # noqa: E402
from replay.inject import inject_violations  # noqa: E402
from replay.parallel import in_order  # noqa: E402
from replay.simulate import simulate  # noqa: E402

MATCHES = [  # (file stem, ruleset, options, seed)
    ("tractor-1deck", "tractor", {"decks": 1}, 1),
    ("tractor-2deck", "tractor", {"decks": 2}, 2),
    ("tractor-3deck", "tractor", {"decks": 3}, 3),
    ("four-deck", "four-deck", {}, 4),
    ("biaofen-3p", "biaofen", {"players": 3}, 5),
    ("biaofen-4p", "biaofen", {"players": 4}, 6),
    ("wanfen", "wanfen", {}, 7),
]


def simulated(stem: str, name: str, options: dict, seed: int) -> tuple[list, list, list]:
    """One sample match: its events, the injected copy's events and their labels."""
    rules = get_ruleset(name, **options)
    events = list(simulate(rules, matches=1, seed=seed, prefix=stem))
    # The injected copy is the same match under its own id, so that reading both files
    # together counts every hand (the same id twice would be the same hands twice).
    twin = [msgspec.structs.replace(e, match=e.match.replace(stem, f"{stem}-injected", 1))
            for e in events]
    injected, labels = inject_violations(twin, rate=0.5, seed=seed, rules=rules)
    return events, list(injected), list(labels)


def matches(root: Path, jobs: int = 1) -> None:
    out = root / "matches"
    out.mkdir(parents=True, exist_ok=True)
    made = in_order(jobs, simulated, MATCHES) if jobs > 1 else (simulated(*m) for m in MATCHES)
    for (stem, _name, _options, _seed), (events, injected, labels) in zip(MATCHES, made,
                                                                           strict=True):
        files.dump(events, out / f"{stem}.jsonl")
        files.dump(events, out / f"{stem}.parquet")
        files.dump(injected, out / f"{stem}-injected.jsonl")
        files.jsonl.write_objects(labels, out / f"{stem}-injected.labels.jsonl")
        print(f"samples/matches/{stem}: {len(events)} events, {len(labels)} labels")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=ROOT / "samples")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="processes simulating the matches (default: every core; the files "
                         "are the same with any number)")
    args = ap.parse_args()
    make_examples.main(args.out)
    make_violations.main(args.out)
    matches(args.out, max(1, args.jobs))


if __name__ == "__main__":
    main()
