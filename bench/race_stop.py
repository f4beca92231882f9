"""Benchmark: how often does a race stop on the wrong side of a mark's cut? A model of the
review's race for one runner (replay/race.py's stop rule, the standard budget's rounds): its
gain over the play made is normal, ``--sd`` points a deal (27 at one deck, 29 at two: the
gains measured in session 44), its mean ``mu``; the race is looked at after every round of
``confirm`` deals and stops when every mark's threshold is ``resolve`` standard errors below
the gain (``Budget.resolve_at``: ``early_resolve`` in the first ``extend`` rounds; ``--late``
sets it after them too, to model one stop throughout), ``resolve_above`` above it, the error
raised on the first deals as the race raises it. Prints, per mean and per early stop, the
share of races that stop below the inaccuracy's cut (unmarked) and the mean deals a race takes
(issue 23: "never marked by chance").

    python bench/race_stop.py                          # one deck, early stop 2 against 2.5
    python bench/race_stop.py --scale 1 --sd 29 --early 2 2.5 --late 2.5   # 2.5 throughout
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from replay.marks import Budget, thresholds  # noqa: E402
from replay.race import _gain_error, _resolved  # noqa: E402


def race(mu: float, sd: float, budget: Budget, scale: float, rng: random.Random
         ) -> tuple[int, int]:
    """One race: (-1 stopped below the inaccuracy, 1 above it, 0 the budget spent; deals)."""
    cut = dict(thresholds(scale))["inaccuracy"]
    rounds = budget.extend + budget.solo_rounds(scale) + 1
    total, n = 0.0, 0
    for round_ in range(rounds):
        total += rng.gauss(mu * budget.confirm, sd * budget.confirm ** 0.5)
        n += budget.confirm
        gain, error = _gain_error((total / n, sd / n ** 0.5), budget, scale, n)
        if _resolved([(gain, error)], budget, scale, n, round_):  # the race's own stop
            return (1 if gain > cut else -1), n
    return 0, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=0.5, help="0.5 one deck, 1 two decks")
    ap.add_argument("--sd", type=float, default=27.0, help="the gain's spread a deal")
    ap.add_argument("--mu", type=float, nargs="+", default=[4.8, 5.0, 5.5, 3.5, 2.5, 1.0])
    ap.add_argument("--early", type=float, nargs="+", default=[2.0, 2.5],
                    help="early_resolve values to compare")
    ap.add_argument("--late", type=float, default=None,
                    help="resolve (after the extend rounds; default the budget's)")
    ap.add_argument("--races", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    base = Budget() if args.late is None else Budget(resolve=args.late)
    cut = dict(thresholds(args.scale))["inaccuracy"]
    print(f"scale {args.scale}, inaccuracy {cut}, sd {args.sd} a deal, {args.races} races each")
    for early in args.early:
        budget = dataclasses.replace(base, early_resolve=early)
        rng = random.Random(args.seed)
        for mu in args.mu:
            runs = [race(mu, args.sd, budget, args.scale, rng) for _ in range(args.races)]
            below = sum(o == -1 for o, _ in runs) / len(runs)
            deals = sum(n for _, n in runs) / len(runs)
            print(f"  stop {early} then {budget.resolve}: gain {mu:4.1f}: stopped below the cut "
                  f"{100 * below:5.1f} %, {deals:7.0f} deals", flush=True)


if __name__ == "__main__":
    main()
