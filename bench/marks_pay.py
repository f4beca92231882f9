"""Benchmark: do the review's marks pay in play? (issue 23)

Duplicate play, as ``bench/agent_duel.py``: each deal is played twice, the **advised** seats in
seats 0 and 2 and then in 1 and 3, the simulator's agent (``replay.lookahead.LookaheadAgent``)
in the other seats. The advised seats play as the simulator's agent too, except that each of
their decisions of the chosen kind (``--kind``) where that agent plays its heuristic (more than
``--cards`` cards a seat: the early and middle tricks, where the review marks most of its
play) is first reviewed by the review's own decision machinery at the chosen level; where the
review marks the agent's play, the advised seat plays the review's best play instead.

If the marks were exact, the advised side would gain in play what the marks claim: the swings
of the marks it followed. The benchmark prints both, per hand of a side: the points gained in
play (half the difference of the two plays' side scores, with its standard error) against
the marks' swings (what each mark charges: its estimate less a standard error) and their
estimates. The review values a play by perfect-information playouts of sampled deals (every
seat in a playout sees every card: docs/review.md, "How a play is valued"), the other seats
here play from their own view; the two differ by what seeing the cards is worth (strategy
fusion, in the PIMC literature). Deal seeds are drawn fresh unless ``--first`` is given, and
printed.

    python bench/marks_pay.py --decks 2 --deals 300 -j 2                 # early leads
    python bench/marks_pay.py --decks 2 --deals 300 --kind follow -j 2
    python bench/marks_pay.py --decks 1 --deals 400 --kind both --cards 5 -j 2
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
from gamelog.cards import CARD_BY_TOKEN, CARD_TOKENS  # noqa: E402
from gamelog.model import Play  # noqa: E402
from replay.lookahead import LOOKAHEAD_CARDS, LookaheadAgent  # noqa: E402
from replay.review import budget_at, review_decision  # noqa: E402
from replay.rollouts import most_held  # noqa: E402

_settings: dict = {}
"""The run's settings in a worker: rules, budget, kind, cards (set by :func:`_start`)."""


class _Tally:
    """What the advised seats of one play asked and were told."""

    def __init__(self) -> None:
        self.reviewed = self.marked = 0
        self.swing = self.estimate = 0.0


class Advised(LookaheadAgent):
    """The simulator's agent, its heuristic plays of the chosen kind reviewed first and
    replaced by the review's best play where the review marks them."""

    tally = _Tally()

    def _advised(self, view, usual: list[int], kind: str) -> list[int]:  # type: ignore[no-untyped-def]
        state = view.state
        if kind not in _settings["kinds"] or state is None or state.order is None \
                or most_held(state) <= _settings["cards"]:
            return usual
        play = Play(match=state.hand.match, hand=state.hand.number, seq=0, seat=view.seat,
                    cards=[CARD_TOKENS[c] for c in usual])
        place = f"{state.hand.match}:{len(state.tricks)}:{view.seat}"
        decision = review_decision(state, play, budget=_settings["budget"], rng=random.Random(place))
        if decision is None:
            return usual
        Advised.tally.reviewed += 1
        if decision.mark is None:
            return usual
        Advised.tally.marked += 1
        Advised.tally.swing += decision.swing
        Advised.tally.estimate += decision.estimate
        return [CARD_BY_TOKEN[t] for t in decision.best]

    def lead(self, view):  # type: ignore[no-untyped-def]
        return self._advised(view, super().lead(view), "lead")

    def follow(self, view, spec):  # type: ignore[no-untyped-def]
        return self._advised(view, super().follow(view, spec), "follow")


def _start(settings: dict) -> None:
    _settings.update(settings)


def _side_points(deal: int, advised_even: bool) -> int:
    """Seats 0 and 2's points in the deal's first hand (+ as defenders, - as the declarer's
    side), the advised agent in the even seats or in the odd ones."""
    def agents(seat: int, rng: random.Random) -> LookaheadAgent:
        return Advised(rng) if (seat % 2 == 0) == advised_even else LookaheadAgent(rng)

    return side_points(first_hand(_settings["rules"], f"pay-{deal}", deal, agents), 0)


def _deal(deal: int) -> tuple[float, int, int, float, float]:
    """One deal played both ways: the advised side's gain in play (per play) and, summed over
    both plays, the decisions reviewed, marked, and the marks' swings and estimates."""
    Advised.tally = _Tally()
    gain = (_side_points(deal, True) - _side_points(deal, False)) / 2
    t = Advised.tally
    return gain, t.reviewed, t.marked, t.swing, t.estimate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--decks", type=int, default=2)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--kind", choices=("lead", "follow", "both"), default="lead")
    ap.add_argument("--cards", type=int, default=LOOKAHEAD_CARDS,
                    help="advise only where some seat holds more than this many cards "
                         f"(default {LOOKAHEAD_CARDS}: where the simulator's agent plays its "
                         "heuristic)")
    ap.add_argument("--level", default="standard", help="the review's named budget")
    ap.add_argument("--first", type=int, help="the first deal's seed (default: drawn fresh)")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    args = ap.parse_args()
    first = args.first if args.first is not None else random.SystemRandom().randrange(10**7)
    advised = "leads and follows" if args.kind == "both" else f"{args.kind}s"
    print(f"deals {first} to {first + args.deals - 1}; tractor, {args.decks} deck(s); "
          f"{advised} advised where a seat holds more than {args.cards} cards; "
          f"review level {args.level}", flush=True)
    settings = {"rules": replay.get_ruleset("tractor", players=4, decks=args.decks),
                "budget": budget_at(args.level, seed=first, declarations=False),
                "kinds": {"lead", "follow"} if args.kind == "both" else {args.kind},
                "cards": args.cards}
    rows = list(over_deals(_deal, range(first, first + args.deals), args.deals, args.jobs,
                           _start, settings, "deals played both ways"))
    gains = [r[0] for r in rows]
    reviewed, marked = sum(r[1] for r in rows), sum(r[2] for r in rows)
    plays = 2 * len(rows)  # the marks' figures are over both plays of a deal
    error = statistics.stdev(gains) / len(gains) ** 0.5 if len(gains) > 1 else 0.0
    print(f"advised decisions reviewed {reviewed}, marked {marked} "
          f"({100 * marked / max(reviewed, 1):.1f} %), {marked / plays:.2f} a hand of a side")
    print(f"points a hand of a side: gained in play {statistics.mean(gains):+.2f} ± {error:.2f}; "
          f"the marks followed claim {sum(r[3] for r in rows) / plays:.2f} "
          f"(estimated {sum(r[4] for r in rows) / plays:.2f})", flush=True)


if __name__ == "__main__":
    main()
