"""Benchmark: what does each planted bad play cost in play? (issue 23)

The planted-error benchmark (``bench/review_planted.py``) plants one bad play a hand of five
kinds and asks whether the review marks it. This one asks what each kind costs where nothing
is estimated: every deal is played twice among the simulator's agents, once with seat 1 as
the :class:`~bench.review_planted.Planter` (the plant at its first chance in the hand) and
once without, the same deal, declarations and draws; the difference of seat 1's side's final
points is what the plant cost in that play (its later play, and everyone's, the simulator's
agent's own, reacting to it). Over many deals the mean is the kind's cost among these agents,
to set beside the review's estimates of the same kind (which value it by perfect-information
playouts: docs/review.md, "What a mark's swing is"). Deals where the kind found no chance are
not counted. Deal seeds are drawn fresh unless ``--first`` is given, and printed.

    python bench/plant_cost.py --decks 1 --deals 2000 --kinds ace -j 2
    python bench/plant_cost.py --decks 2 --deals 600 -j 2
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import replay  # noqa: E402
from bench.duplicate import first_hand, over_deals, side_points  # noqa: E402
from bench.review_planted import EVERY_KIND, KINDS, Planter  # noqa: E402
from gamelog.model import Hand  # noqa: E402
from replay.lookahead import LookaheadAgent  # noqa: E402
from replay.marks import thresholds  # noqa: E402

_settings: dict = {}
"""The run's settings in a worker: rules and kinds (set by :func:`_start`)."""


def _start(settings: dict) -> None:
    _settings.update(settings)


def play(deal: int, planted: list | None) -> Hand:
    """The deal's first hand among the simulator's agents, seat 1 planting (``planted``
    collects its plant) or not (``None``)."""
    def agents(seat: int, rng: random.Random) -> LookaheadAgent:
        if seat == 1 and planted is not None:
            return Planter(rng, planted, _settings["kinds"], LookaheadAgent(rng))
        return LookaheadAgent(rng)

    return first_hand(_settings["rules"], f"cost-{deal}", deal, agents)


def _deal(deal: int) -> tuple[str, float] | None:
    """The kind planted in the deal and its cost to seat 1's side; ``None`` with no plant."""
    planted: list = []
    with_plant = side_points(play(deal, planted), 1)
    if not planted:
        return None
    return planted[0].kind, side_points(play(deal, None), 1) - with_plant


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--decks", type=int, default=1)
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--kinds", nargs="+", choices=sorted(EVERY_KIND), default=sorted(KINDS))
    ap.add_argument("--first", type=int, help="the first deal's seed (default: drawn fresh)")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    args = ap.parse_args()
    first = args.first if args.first is not None else random.SystemRandom().randrange(10**7)
    rules = replay.get_ruleset("tractor", players=4, decks=args.decks)
    print(f"deals {first} to {first + args.deals - 1}; tractor, {args.decks} deck(s); kinds "
          f"{' '.join(sorted(args.kinds))}", flush=True)
    settings = {"rules": rules, "kinds": frozenset(args.kinds)}
    rows: list[tuple[str, float]] = []
    for row in over_deals(_deal, range(first, first + args.deals), args.deals, args.jobs,
                          _start, settings, note=lambda: f"{len(rows)} plants"):
        if row is not None:
            rows.append(row)
    cut = dict(thresholds(args.decks / 2))["inaccuracy"]
    print(f"cost in play to the planting seat's side, points (an inaccuracy is {cut:g}):")
    for kind in sorted({k for k, _ in rows}):
        costs = [c for k, c in rows if k == kind]
        error = statistics.stdev(costs) / len(costs) ** 0.5 if len(costs) > 1 else 0.0
        print(f"  {kind}: {len(costs)} planted, mean {statistics.mean(costs):+.2f} ± {error:.2f}; "
              f"no change in {sum(c == 0 for c in costs)}, a loss in {sum(c > 0 for c in costs)},"
              f" a gain in {sum(c < 0 for c in costs)}", flush=True)


if __name__ == "__main__":
    main()
