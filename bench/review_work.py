"""Benchmark: how much work a review budget asks for, counted (not timed): the deals drawn and
the playouts made (one per alternative and deal) over the same hands, for several budgets.
Deterministic for a seed, so two budgets compare exactly where CPU times on a shared machine
do not (docs/review-history.md, "Session 25").

    python bench/review_work.py                                   # the default budget
    python bench/review_work.py --hands 1-8 solo=0 solo=24 resolve_above=2
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import replay.review as review  # noqa: E402
from bench.review_stability import budget_fields, reviewed_hands  # noqa: E402
from replay.review import Budget  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("budgets", nargs="*", default=["default"],
                    help="budgets to count, each FIELD=VALUE[,FIELD=VALUE] or 'default'")
    ap.add_argument("--sample", default="tractor-2deck")
    ap.add_argument("--hands", default="1-8", help="hand numbers, N-M")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    low, _, high = args.hands.partition("-")
    lo, hi = int(low), int(high or low)
    counted = {"deals": 0, "playouts": 0}
    rollouts = review.rollout_samples

    def counting(state, seat, alternatives, samples, *rest, **named):  # type: ignore[no-untyped-def]
        counted["deals"] += samples
        counted["playouts"] += samples * len(alternatives)
        return rollouts(state, seat, alternatives, samples, *rest, **named)

    review.rollout_samples = counting  # replay.review is not compiled: its global is read
    for spec in args.budgets:
        try:
            fields = budget_fields([] if spec == "default" else spec.split(","))
        except ValueError as e:
            ap.error(str(e))
        counted.update(deals=0, playouts=0)
        started = time.process_time()
        reviewed_hands(args.sample, lo, hi, Budget(seed=args.seed, bury=False, **fields), 1)
        print(f"{spec}: {counted['deals']:,} deals, {counted['playouts']:,} playouts "
              f"({time.process_time() - started:.1f} s CPU, not comparable across runs)",
              flush=True)


if __name__ == "__main__":
    main()
