"""Benchmark: does the review mark a plainly bad play? (issue 23)

Simulated matches in which seat 1 is the heuristic agent except for one planted error per
hand: the first time it plays last to a trick an opponent has already won, holding both a
point card and a pointless card it may legally play, it throws the most points it can on
that trick (a 10 or a K given to the opponents). Every hand is reviewed; the benchmark prints
how many planted plays were marked, their swings, and the share of the heuristic seats'
decisions marked. Seeds are drawn fresh unless given, and printed.

    python bench/review_planted.py                       # one deck, 6 matches x 4 hands
    python bench/review_planted.py --decks 2 --seeds 11 12 13
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gamelog  # noqa: E402
import replay  # noqa: E402
from replay.agents import HeuristicAgent  # noqa: E402
from replay.engine import play_strength  # noqa: E402
from replay.review import Budget, review_hands  # noqa: E402
from replay.simulate import simulate_match  # noqa: E402


class Planter(HeuristicAgent):
    """The heuristic agent, with one planted error a hand (see the module's docstring)."""

    def __init__(self, rng: random.Random, planted: list[tuple[int, int]]) -> None:
        super().__init__(rng)
        self.planted = planted  # (trick, cards) of each planted play
        self.done = False
        self.seen = -1

    def follow(self, view, spec):  # type: ignore[no-untyped-def]
        if len(view.tricks) < self.seen:
            self.done = False  # a new hand
        self.seen = len(view.tricks)
        trick, order = view.trick, view.order
        if not self.done and trick is not None and len(trick.plays) == view.players - 1:
            kinds = [u.kind for u in trick.lead_units]
            best = max(trick.plays, key=lambda p: play_strength(order, trick.lead_class, kinds,
                                                                p.cards) or (-1, -1))
            pts = view.rules.points_table()
            if not view.partner_side(best.seat):
                cheap = spec.lowest(lambda c: (pts[c], order.power[c]))
                rich = spec.lowest(lambda c: (-pts[c], order.power[c]))
                beats = play_strength(order, trick.lead_class, kinds, rich)
                top = play_strength(order, trick.lead_class, kinds, best.cards)
                if sum(pts[c] for c in cheap) == 0 and sum(pts[c] for c in rich) >= 10 \
                        and (beats is None or top is None or beats <= top):
                    self.done = True
                    self.planted.append((len(view.tricks) + 1, sorted(rich)))
                    return rich
        return super().follow(view, spec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--decks", type=int, default=1)
    ap.add_argument("--seeds", type=int, nargs="*", help="match seeds (default: 6 fresh ones)")
    ap.add_argument("--hands", type=int, default=4)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    seeds = args.seeds or random.SystemRandom().sample(range(10_000, 10**7), 6)
    print(f"match seeds: {' '.join(map(str, seeds))}; review seed: {seeds[0]}", flush=True)
    rules = replay.get_ruleset("tractor", players=4, decks=args.decks)
    caught, swings, planted_n, others, others_marked = 0, [], 0, 0, 0
    for seed in seeds:
        planted: list[tuple[int, list[int]]] = []
        events = simulate_match(rules, f"planted-{seed}", seed, hands=args.hands,
                                agents=lambda seat, rng, planted=planted: Planter(rng, planted)
                                if seat == 1
                                else HeuristicAgent(rng))
        hands = [h for m in gamelog.loads(gamelog.dumps(events)) for h in m.hands]
        from gamelog.cards import CARD_TOKENS

        mine = []
        for r in review_hands(iter(hands), budget=Budget(seed=seeds[0]), jobs=args.jobs):
            for d in r.decisions:
                if d.seat == 1 and d.kind == "follow":
                    mine.append(d)
                elif d.seat != 1:
                    others += 1
                    others_marked += d.mark is not None
        for trick, cards in planted:  # each planted play, found by its trick and cards
            tokens = sorted(CARD_TOKENS[c] for c in cards)
            found = [d for d in mine if d.trick == trick and sorted(d.made) == tokens]
            if found:
                d = found[0]
                mine.remove(d)
                planted_n += 1
                caught += d.mark is not None
                swings.append(d.estimate)
    print(f"planted plays reviewed: {planted_n}; marked {caught} "
          f"({100 * caught / max(planted_n, 1):.0f} %); mean estimated swing "
          f"{statistics.mean(swings) if swings else 0:.1f} points", flush=True)
    print(f"heuristic seats' decisions marked: {others_marked} of {others} "
          f"({100 * others_marked / max(others, 1):.1f} %)", flush=True)


if __name__ == "__main__":
    main()
