"""Benchmark: CPU seconds of reviewing a few sample hands at the default budget, one core.

    python bench/review_cpu.py            # tractor-1deck hands 1-2, tractor-2deck hand 1
    python bench/review_cpu.py --out marks.json
    python bench/review_cpu.py --sample tractor-2deck --hands 1-2 --out after.json

Prints whether the engine runs compiled, then per sample the CPU seconds and decisions; with
``--out`` writes every decision's mark, swing and best play, so that two builds (compiled or
not, before or after a change) can be shown to give the same review (``cmp`` the files).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gamelog  # noqa: E402
import replay  # noqa: E402
from replay.review import Budget, review_hands  # noqa: E402

CASES = (("tractor-1deck", {1, 2}), ("tractor-2deck", {1}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, help="write the marks here (JSON)")
    ap.add_argument("--sample", help="one sample match file's name instead of the default cases")
    ap.add_argument("--hands", default="1-2", help="its hands, N-M (with --sample; default 1-2)")
    args = ap.parse_args()
    first, last = (int(x) for x in args.hands.split("-"))
    cases = ((args.sample, set(range(first, last + 1))),) if args.sample else CASES
    print(f"compiled engine: {'yes' if replay.NATIVE else 'no'}")
    marks = []
    for name, numbers in cases:
        path = ROOT / "samples" / "matches" / f"{name}.jsonl"
        t0 = time.process_time()
        reviews = list(review_hands(gamelog.read_hands(path), budget=Budget(),
                                    keep=lambda h, chosen=numbers: h.number in chosen))
        spent = time.process_time() - t0
        decisions = sum(len(r.decisions) for r in reviews)
        print(f"{name:<15} hands {sorted(numbers)}  {spent:6.1f} s CPU  {decisions} decisions")
        marks.append([[d.mark, round(d.swing, 3), d.best, d.alternatives] for r in reviews
                      for d in r.decisions])
    if args.out:
        args.out.write_text(json.dumps(marks))


if __name__ == "__main__":
    main()
