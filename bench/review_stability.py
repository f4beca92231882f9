"""Benchmark: is the review stable? The same hands reviewed with two seeds (and with the default
against 4x the budget): of the decisions marked in either run, how many get the same mark in
both, and the correlation of the swings over all decisions (issue 23).

    python bench/review_stability.py                        # 1 and 2 decks, two fresh seeds
    python bench/review_stability.py --hands 4 --budget 4   # also the default against 4x
    python bench/review_stability.py --sample tractor-2deck --hands 3-6 -j 2
    python bench/review_stability.py --hands 9-33 --sample tractor-1deck --seeds 11 22 --rules
    python bench/review_stability.py --sample tractor-2deck --hands 1-16 --runs 4   # six pairs
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gamelog  # noqa: E402
import replay  # noqa: E402
from replay.engine import HandReplay  # noqa: E402
from replay.marks import mark_for, point_scale, thresholds  # noqa: E402
from replay.review import Budget, review_hands  # noqa: E402


def budget_fields(items: list[str]) -> dict[str, object]:
    """Budget fields from ``FIELD=VALUE`` strings (``seed`` excluded: the benchmarks set it);
    ``ValueError`` naming the item for an unknown field or a value of the wrong type."""
    types = {f.name: str(f.type) for f in dataclasses.fields(Budget) if f.name != "seed"}
    read = {"int": int, "float": float, "bool": lambda v: {"true": True, "false": False}[v],
            "str": str}
    fields: dict[str, object] = {}
    for item in items:
        name, _, value = item.partition("=")
        if name not in types:
            raise ValueError(f"{item}: not a budget field (one of {', '.join(types)})")
        try:
            fields[name] = read[types[name]](value)
        except (KeyError, ValueError):
            raise ValueError(f"{item}: {name} takes a value of type {types[name]}") from None
    return fields


def reviewed_hands(sample: str, low: int, high: int, budget: Budget, jobs: int) -> list:
    """The reviews of a sample's hands ``low``-``high``, with a count of the hands reviewed
    on a terminal (stderr; quiet in a pipe)."""
    hands = list(gamelog.read_hands(ROOT / "samples" / "matches" / f"{sample}.jsonl"))
    keep = lambda h: low <= h.number <= high  # noqa: E731
    out = []
    for review in review_hands(iter(hands), keep=keep, budget=budget, jobs=jobs):
        out.append(review)
        if sys.stderr.isatty():
            print(f"\r  {sample}: {len(out)} of {high - low + 1} hands reviewed",
                  end="", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    return out


def decisions(sample: str, low: int, high: int, budget: Budget, jobs: int) -> list:
    return [d for r in reviewed_hands(sample, low, high, budget, jobs) for d in r.decisions]


def compare(name: str, a: list, b: list, verbose: bool = False) -> tuple[int, int]:
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
        cap_a, cap_b = max(d.deals for d in a), max(d.deals for d in b)
        capped = sum(x.deals >= cap_a or y.deals >= cap_b for x, y in differ)
        print(f"    the {len(differ)} that differ: {sum(x.best == y.best for x, y in differ)} "
              f"with the same best play, {sum(x.best != y.best for x, y in differ)} with "
              f"another; {capped} sampled to the budget's end ({cap_a} and {cap_b} deals) "
              "in one run or both; "
              f"{sum(min(x.estimate, y.estimate) > 0 for x, y in differ)} with a gain in both",
              flush=True)
        for x, y in differ if verbose else []:
            print(f"      trick {x.trick} seat {x.seat} {' '.join(x.made)}: {x.mark or '-'} "
                  f"({x.estimate:.1f} ± {x.error:.1f}, {x.deals} deals, best {' '.join(x.best)}) "
                  f"against {y.mark or '-'} ({y.estimate:.1f} ± {y.error:.1f}, {y.deals} deals"
                  f"{'' if y.best == x.best else ', best ' + ' '.join(y.best)})", flush=True)
    return same, len(marked)


def rules(runs: list[list], scale: float, label: str) -> None:
    """What the runs (``label`` names their seeds; every pair of them pooled) would
    agree on had the marks been read another way: the swing taken
    as the estimate less ``z`` standard errors for several ``z``, and the inaccuracy's
    threshold at its scaled value or at two decks' 7 points whatever the deck, or at several
    points (the runs' estimates and errors as they are; the races would have stopped a little
    differently); and how many sampled estimates lie in each tenth of a point from 3 to 6 (on
    the scale of two decks past them), to see where a cut would fall between clusters."""

    inaccuracy = dict(thresholds(scale))["inaccuracy"]

    def agreement(z: float, cut: float) -> str:
        """The marks both runs share, read with the swing as the estimate less ``z`` errors
        and the inaccuracy at ``cut`` points (the other marks as they are)."""
        def read(d) -> str | None:  # type: ignore[no-untyped-def]
            swing = d.estimate if d.exact else d.estimate - z * d.error
            found = mark_for(swing, scale)
            if found not in (None, "inaccuracy"):
                return found
            return "inaccuracy" if swing >= cut else None
        either = [(read(x), read(y)) for i, a in enumerate(runs) for b in runs[i + 1:]
                  for x, y in zip(a, b, strict=True)]
        either = [(p, q) for p, q in either if p or q]
        same = sum(p == q for p, q in either)
        return f"{same}/{len(either)} ({100 * same / max(len(either), 1):.0f} %)"

    for cut, name in ((inaccuracy, "scaled"), (max(inaccuracy, 7.0), "7 at least")):
        cells = [f"z {z:g}: {agreement(z, cut)}" for z in (0.0, 1.0, 2.0, 3.0)]
        print(f"    {label}, read another way, inaccuracy threshold {name}: " + "; ".join(cells),
              flush=True)
    # the inaccuracy elsewhere: points as they are up to two decks, scaled past
    cells = [f"{points:g}: {agreement(1.0, points * max(scale, 1.0))}"
             for points in (4.0, 4.25, 4.5, 4.6, 4.75, 4.9, 5.0, 5.5, 6.0, 7.0)]
    print(f"    {label}, read another way, the inaccuracy at (points{', scaled' if scale > 1 else ''}; "
          f"{inaccuracy:g} now): " + "; ".join(cells), flush=True)
    # where the sampled estimates lie near the inaccuracy's cut
    points = [d.estimate / max(scale, 1.0) for run in runs for d in run if not d.exact]
    tenths = Counter(round(p, 1) for p in points if 3.0 <= p < 6.0)
    print(f"    {label}, the sampled estimates per tenth of a point, every run: "
          + " ".join(f"{t:.1f}:{n}" for t, n in sorted(tenths.items())), flush=True)


def sample_scale(sample: str) -> float:
    """The marks' scale of a sample match (its pack's points over 200), read from its first
    hand as the review reads it."""
    hand = next(iter(gamelog.read_hands(ROOT / "samples" / "matches" / f"{sample}.jsonl")))
    return point_scale(HandReplay(replay.ruleset_for(hand.header), hand))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sample", action="append",
                    help="sample match names (default: tractor-1deck, tractor-2deck)")
    ap.add_argument("--hands", default="1-4", help="hand numbers, N-M (default 1-4)")
    ap.add_argument("--budget", type=int, default=0,
                    help="also compare the default budget against this many times it")
    ap.add_argument("--seeds", type=int, nargs="+", default=None,
                    help="the review seeds, two or more: every pair is compared (default: "
                         "--runs drawn fresh, printed)")
    ap.add_argument("--runs", type=int, default=2,
                    help="review seeds to draw fresh when --seeds is not given (default 2; "
                         "4 give six pairs)")
    ap.add_argument("--rules", action="store_true",
                    help="also print the agreement had the marks been read another way")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print each decision whose mark differs (estimates and deals)")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="a budget field for both runs (e.g. extend=48); repeatable")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    try:
        overrides = budget_fields(args.set)
    except ValueError as e:
        ap.error(f"--set {e}")
    low, _, high = args.hands.partition("-")
    lo, hi = int(low), int(high or low)
    import random

    seeds = args.seeds or random.SystemRandom().sample(range(1000, 10**6), max(args.runs, 2))
    if len(seeds) < 2:
        ap.error("--seeds takes two seeds or more")
    print(f"review seeds: {' '.join(map(str, seeds))}", flush=True)
    for sample in args.sample or ["tractor-1deck", "tractor-2deck"]:
        print(f"{sample}, hands {lo}-{hi}:", flush=True)
        started = time.process_time(), time.perf_counter()
        runs = [decisions(sample, lo, hi, Budget(seed=seed, **overrides), args.jobs)
                for seed in seeds]
        base = runs[0]
        pooled = [0, 0]
        for i in range(len(seeds)):
            for j in range(i + 1, len(seeds)):
                same, marked = compare(f"seed {seeds[i]} against seed {seeds[j]}", runs[i],
                                       runs[j], args.verbose)
                pooled[0] += same
                pooled[1] += marked
        if len(seeds) > 2:
            print(f"  every pair: marked in either {pooled[1]}, same mark {pooled[0]} "
                  f"({100 * pooled[0] / max(pooled[1], 1):.1f} %)", flush=True)
        if args.rules:
            rules(runs, sample_scale(sample),
                  f"seeds {' and '.join(map(str, seeds))}" if len(seeds) == 2
                  else f"every pair of seeds {', '.join(map(str, seeds))}")
        if args.budget:
            # the same budget (with --set) at args.budget times the deals
            deals = {f: overrides.get(f, getattr(Budget, f)) * args.budget
                     for f in ("samples", "confirm")}
            big = Budget(**{**overrides, **deals, "seed": seeds[1] + 1})
            compare(f"default against {args.budget}x the budget", base,
                    decisions(sample, lo, hi, big, args.jobs), args.verbose)
        print(f"  ({time.perf_counter() - started[1]:.0f} s wall)", flush=True)


if __name__ == "__main__":
    main()
