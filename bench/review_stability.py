"""Benchmark: is the review stable? The same hands reviewed with two seeds (and with the default
against 4x the budget): of the decisions marked in either run, how many get the same mark in
both, and the correlation of the swings over all decisions (issue 23).

    python bench/review_stability.py                        # 1 and 2 decks, two fresh seeds
    python bench/review_stability.py --hands 4 --budget 4   # also the default against 4x
    python bench/review_stability.py --sample tractor-2deck --hands 3-6 -j 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gamelog  # noqa: E402
from replay.review import Budget, review_hands  # noqa: E402


def decisions(sample: str, low: int, high: int, budget: Budget, jobs: int) -> list:
    hands = list(gamelog.read_hands(ROOT / "samples" / "matches" / f"{sample}.jsonl"))
    keep = lambda h: low <= h.number <= high  # noqa: E731
    return [d for r in review_hands(iter(hands), keep=keep, budget=budget, jobs=jobs)
            for d in r.decisions]


def compare(name: str, a: list, b: list) -> None:
    assert [(d.trick, d.seat, d.kind) for d in a] == [(d.trick, d.seat, d.kind) for d in b]
    marked = [(x, y) for x, y in zip(a, b, strict=True) if x.mark or y.mark]
    same = sum(x.mark == y.mark for x, y in marked)
    corr = statistics.correlation([d.swing for d in a], [d.swing for d in b]) \
        if len(a) > 2 and statistics.pstdev([d.swing for d in a]) > 0 \
        and statistics.pstdev([d.swing for d in b]) > 0 else float("nan")
    print(f"  {name}: {len(a)} decisions; marked in either {len(marked)}, same mark "
          f"{same} ({100 * same / max(len(marked), 1):.0f} %); swing correlation {corr:.2f}",
          flush=True)
    differ = [(x, y) for x, y in marked if x.mark != y.mark]
    if differ:
        cap = max(d.deals for d in a + b)
        print(f"    the {len(differ)} that differ: {sum(x.best == y.best for x, y in differ)} "
              f"with the same best play, {sum(x.best != y.best for x, y in differ)} with "
              f"another; {sum(max(x.deals, y.deals) >= cap for x, y in differ)} sampled to "
              f"the budget's end ({cap} deals) in one run or both; "
              f"{sum(min(x.estimate, y.estimate) > 0 for x, y in differ)} with a gain in both",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sample", action="append",
                    help="sample match names (default: tractor-1deck, tractor-2deck)")
    ap.add_argument("--hands", default="1-4", help="hand numbers, N-M (default 1-4)")
    ap.add_argument("--budget", type=int, default=0,
                    help="also compare the default budget against this many times it")
    ap.add_argument("--seeds", type=int, nargs=2, default=None,
                    help="the two review seeds (default: two drawn fresh, printed)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    low, _, high = args.hands.partition("-")
    lo, hi = int(low), int(high or low)
    import random

    seeds = args.seeds or random.SystemRandom().sample(range(1000, 10**6), 2)
    print(f"review seeds: {seeds[0]} and {seeds[1]}", flush=True)
    for sample in args.sample or ["tractor-1deck", "tractor-2deck"]:
        print(f"{sample}, hands {lo}-{hi}:", flush=True)
        started = time.process_time(), time.perf_counter()
        base = decisions(sample, lo, hi, Budget(seed=seeds[0]), args.jobs)
        other = decisions(sample, lo, hi, Budget(seed=seeds[1]), args.jobs)
        compare(f"seed {seeds[0]} against seed {seeds[1]}", base, other)
        if args.budget:
            big = Budget(samples=8 * args.budget, confirm=24 * args.budget, seed=seeds[1] + 1)
            compare(f"default against {args.budget}x the budget", base,
                    decisions(sample, lo, hi, big, args.jobs))
        print(f"  ({time.perf_counter() - started[1]:.0f} s wall)", flush=True)


if __name__ == "__main__":
    main()
