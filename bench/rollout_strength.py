"""Benchmark: the review's rollout player against the exact search, on the same deals (issue 23:
"else with a rollout player you show to be strong against that search").

Every recorded play of a sample match made where the most cards a seat holds lies in
``--cards FROM TO`` is valued both ways on the same ``--deals`` deals of the cards the
deciding seat has not seen (drawn from what it knows, as the review draws them): by the
review's rollout player (the last ``--endgame`` tricks searched) and by the exact search of
each whole deal (both sides playing perfectly on it: the double-dummy value). Each
alternative's gain over the play made is read both ways. Printed per card count: the
decisions; how often the play the rollouts rank best loses points by the search (half a
point or more, and the inaccuracy or more), with the mean loss; the correlation of the best
gain found each way; and how many decisions the two would mark differently (the mark of the
best gain, no error charged). Slow from seven cards a seat (the search's cost grows about
tenfold a card). The rollouts here solve each deal from ``Budget.exact_cards`` (four) cards a
seat, as the review does past one deck; at one deck the review solves each deal from five
(``Budget.small_exact_cards``, since session 36: this benchmark's five-card figures are why).

    python bench/rollout_strength.py                                  # one deck, 5-6 cards
    python bench/rollout_strength.py --sample tractor-2deck --hands 1-8
    python bench/rollout_strength.py --endgame 3                      # a longer searched end
    python bench/rollout_strength.py --sample tractor-2deck --hands 1-8 --cards 5 5 --endgame 4
                                  # searched after one trick: Budget.deep_cards (session 40)
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gamelog  # noqa: E402
from gamelog.cards import CARD_TOKENS, Card  # noqa: E402
from gamelog.model import Play  # noqa: E402
from replay.candidates import decision_choices  # noqa: E402
from replay.marks import Budget, mark_for, point_scale, thresholds  # noqa: E402
from replay.review import positions  # noqa: E402
from replay.rollouts import most_held, rollout_samples  # noqa: E402
from replay.search import defends, to_play  # noqa: E402

EVERY = 99
"""``exact_cards`` that solves every deal exactly."""


def decisions(path: Path, first: int, last: int, low: int, high: int):  # type: ignore[no-untyped-def]
    """(hand number, trick, seat, state, alternatives with the play made first) for each
    recorded play of hands ``first``-``last`` made with ``low``-``high`` cards a seat."""
    for hand, state, ev in positions(gamelog.read_hands(path),
                                     keep=lambda h: first <= h.number <= last):
        if isinstance(ev, Play) and state.order is not None and not state.finished \
                and not state.log.items and to_play(state) == ev.seat \
                and state.pending_forced is None and low <= most_held(state) <= high:
            made = sorted(int(Card.parse(t)) for t in ev.cards)
            options, _ = decision_choices(state, ev.seat, made)
            others = [o for o in (sorted(o) for o in options) if o != made]
            if others:
                yield hand.number, len(state.tricks) + 1, ev.seat, state, [made, *others]


def gains(rows: list[list[float]], sign: int) -> list[float]:
    """Each alternative's mean gain over the play made (index 0), from the seat's side."""
    means = [statistics.fmean(r[i] for r in rows) for i in range(len(rows[0]))]
    return [sign * (m - means[0]) for m in means]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sample", default="tractor-1deck")
    ap.add_argument("--hands", default="1-16", help="FIRST-LAST (default 1-16)")
    ap.add_argument("--cards", type=int, nargs=2, default=(5, 6), metavar=("FROM", "TO"),
                    help="the most cards a seat holds at the decision (default 5 6)")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--endgame", type=int, default=Budget.endgame,
                    help=f"the rollouts' searched last tricks (default {Budget.endgame})")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every decision")
    args = ap.parse_args()
    first, last = (int(x) for x in args.hands.split("-"))
    path = ROOT / "samples" / "matches" / f"{args.sample}.jsonl"
    found: dict[int, list[tuple[float, float, float, float]]] = {}  # loss, gains, scale
    took = [0.0, 0.0]
    for number, trick, seat, state, alternatives in decisions(path, first, last, *args.cards):
        sign = 1 if defends(state, seat) else -1
        started = time.process_time()
        rolled = gains(rollout_samples(state, seat, alternatives, args.deals,
                                       random.Random(args.seed), exact_cards=Budget.exact_cards,
                                       endgame=args.endgame), sign)
        took[0] += time.process_time() - started
        started = time.process_time()
        solved = gains(rollout_samples(state, seat, alternatives, args.deals,
                                       random.Random(args.seed), exact_cards=EVERY), sign)
        took[1] += time.process_time() - started
        if sys.stderr.isatty():  # progress on a terminal, quiet in a pipe
            print(f"  hand {number} trick {trick}: {sum(map(len, found.values())) + 1} decisions "
                  f"valued, {sum(took):.0f} s", file=sys.stderr, flush=True)
        pick = max(range(len(alternatives)), key=lambda i: (rolled[i], -i))
        loss = max(solved) - solved[pick]
        scale = point_scale(state)
        found.setdefault(most_held(state), []).append((loss, max(rolled), max(solved), scale))
        if args.verbose:
            best = max(range(len(alternatives)), key=lambda i: (solved[i], -i))
            print(f"  hand {number} trick {trick} seat {seat}, {most_held(state)} cards, "
                  f"{len(alternatives)} plays: made {' '.join(CARD_TOKENS[c] for c in alternatives[0])}; "
                  f"best gain {max(rolled):.1f} by the rollouts, {max(solved):.1f} by the search "
                  f"({' '.join(CARD_TOKENS[c] for c in alternatives[best])}); the rollouts' pick "
                  f"loses {loss:.1f}" + ("; marked differently" if mark_for(max(rolled), scale)
                                           != mark_for(max(solved), scale) else ""), flush=True)
    cut = dict(thresholds(point_scale(state)))["inaccuracy"] if found else 0.0
    print(f"{args.sample}, hands {args.hands}, {args.deals} deals a decision, the rollouts' last "
          f"{args.endgame} tricks searched ({took[0]:.1f} s CPU; the search {took[1]:.1f} s)")
    for cards, rows in [*sorted(found.items()), ("all", [r for v in found.values() for r in v])]:
        if not rows:
            continue
        n = len(rows)
        try:
            r = f"{statistics.correlation([x[1] for x in rows], [x[2] for x in rows]):.2f}"
        except statistics.StatisticsError:
            r = "-"
        lost = sum(x[0] >= 0.5 for x in rows)
        print(f"  {cards} cards: {n} decisions; the rollouts' best loses 0.5 or more by the "
              f"search in {lost} ({100 * lost / n:.0f} %), "
              f"{cut:g} or more in {sum(x[0] >= cut for x in rows)}; mean loss "
              f"{statistics.fmean(x[0] for x in rows):.2f}; best gains correlate {r}; "
              f"marked differently {sum(mark_for(x[1], x[3]) != mark_for(x[2], x[3]) for x in rows)}"
              f" (the rollouts mark {sum(mark_for(x[1], x[3]) is not None for x in rows)}, "
              f"the search {sum(mark_for(x[2], x[3]) is not None for x in rows)})",
              flush=True)


if __name__ == "__main__":
    main()
