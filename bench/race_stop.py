"""Benchmark: how often does a race stop on the wrong side of a mark's cut? A model of the
review's race for one runner (replay/race.py's stop rule, the standard budget's rounds): its
gain over the play made is normal, ``--sd`` points a deal (27 at one deck, 29 at two: the
gains measured in session 44), its mean ``mu``; the race is looked at after every round of
``confirm`` deals and stops when every mark's threshold is ``resolve`` standard errors below
the gain (``Budget.resolve_at``: at one deck ``small_resolve`` in every round, ``--small``;
at two decks ``early_resolve`` in the first ``extend`` rounds, ``--early``, and ``resolve``
after them, ``--late``), ``resolve_above`` above it, the error raised on the first deals as the race
raises it; ``--tail`` adds a rare large gain (a kitty changing hands), the error then read
from the deals as the race reads it. Prints, per mean and per stop, the
share of races that stop below the inaccuracy's cut (unmarked) and the mean deals a race takes
(issue 23: "never marked by chance").

    python bench/race_stop.py                          # one deck, stop 2.5 against 3
    python bench/race_stop.py --tail 80 0.03 --small 2 2.5 3 --mu 5.0 4.8 3.5   # a heavy tail
    python bench/race_stop.py --scale 1 --sd 29 --early 2 2.5 --late 2   # two decks, session 44
    python bench/race_stop.py --scale 1 --sd 29 --tail 120 0.02 --late 2   # and with --late 2.5
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from replay.marks import Budget, thresholds  # noqa: E402
from replay.race import _gain_error, _resolved  # noqa: E402


def binomial(n: int, p: float, rng: random.Random) -> int:
    """Successes in ``n`` trials of chance ``p`` (by geometric skips: ``p`` is small)."""
    if p <= 0:
        return 0
    count, at, log_q = 0, 0, math.log1p(-p)
    while True:
        at += int(math.log(1.0 - rng.random()) / log_q) + 1
        if at > n:
            return count
        count += 1


def race(mu: float, sd: float, budget: Budget, scale: float, rng: random.Random,
         tail: tuple[float, float] = (0.0, 0.0)) -> tuple[int, int]:
    """One race: (-1 stopped below the inaccuracy, 1 above it, 0 the budget spent; deals).
    ``tail`` (``size``, ``chance``): a deal's gain is ``size`` points more with this chance
    (a kitty changing hands), the rest normal, the mean and spread kept at ``mu`` and ``sd``;
    the error is read from the deals as the race reads it."""
    cut = dict(thresholds(scale))["inaccuracy"]
    rounds = budget.extend + budget.solo_rounds(scale) + 1
    size, chance = tail
    base = mu - size * chance
    sd_normal = math.sqrt(max(sd * sd - size * size * chance * (1 - chance), 1.0))
    total, squares, n = 0.0, 0.0, 0
    for round_ in range(rounds):
        k = budget.confirm
        hits = binomial(k, chance, rng)
        # the round's sum and sum of squares, normal part drawn as a sum (its mean and spread)
        noise = rng.gauss(0.0, sd_normal * k ** 0.5)  # the normal part's deviations, summed
        noise_squares = k * sd_normal ** 2 + rng.gauss(0.0, sd_normal ** 2 * (2 * k) ** 0.5)
        total += k * base + noise + hits * size
        squares += k * base * base + 2 * base * noise + noise_squares \
            + hits * (2 * size * base + size * size)
        n += k
        mean = total / n
        var = max(squares / n - mean * mean, 0.0)
        error = math.sqrt(var / n) if size else sd / n ** 0.5
        gain, error = _gain_error((mean, error), budget, scale, n)
        if _resolved([(gain, error)], budget, scale, n, round_):  # the race's own stop
            return (1 if gain > cut else -1), n
    return 0, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=0.5, choices=(0.5, 1.0),
                    help="0.5 one deck, 1 two decks")
    ap.add_argument("--sd", type=float, default=27.0, help="the gain's spread a deal")
    ap.add_argument("--mu", type=float, nargs="+", default=[4.8, 5.0, 5.5, 3.5, 2.5, 1.0])
    ap.add_argument("--early", type=float, nargs="+", default=[2.0, 2.5],
                    help="early_resolve values to compare")
    ap.add_argument("--late", type=float, default=Budget.resolve,
                    help="resolve: two decks' stop after the extend rounds")
    ap.add_argument("--tail", type=float, nargs=2, default=(0.0, 0.0), metavar=("SIZE", "CHANCE"),
                    help="a deal's gain SIZE points more with this CHANCE (a kitty changing "
                    "hands; the mean and spread kept): the error read from the deals")
    ap.add_argument("--small", type=float, nargs="+", default=[2.5, Budget.small_resolve],
                    help="small_resolve values to compare: the stop at one deck, every round "
                    "(--early and --late apply at two decks)")
    ap.add_argument("--races", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    base = Budget(resolve=args.late)
    cut = dict(thresholds(args.scale))["inaccuracy"]
    print(f"scale {args.scale}, inaccuracy {cut}, sd {args.sd} a deal, {args.races} races each")
    small = args.scale <= 0.5  # one deck stops at small_resolve in every round
    for stop in args.small if small else args.early:
        budget = dataclasses.replace(base, small_resolve=stop) if small \
            else dataclasses.replace(base, early_resolve=stop)
        name = f"{stop} throughout" if small else f"{stop} then {budget.resolve}"
        rng = random.Random(args.seed)
        for mu in args.mu:
            runs = [race(mu, args.sd, budget, args.scale, rng, tuple(args.tail))
                    for _ in range(args.races)]
            below = sum(o == -1 for o, _ in runs) / len(runs)
            deals = sum(n for _, n in runs) / len(runs)
            print(f"  stop {name}: gain {mu:4.1f}: stopped below the cut "
                  f"{100 * below:5.1f} %, {deals:7.0f} deals", flush=True)


if __name__ == "__main__":
    main()
