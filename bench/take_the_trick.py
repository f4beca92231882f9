"""Benchmark: do the review's two evaluators agree on taking a trick? In simulated tractor
matches, every position where a seat is last to a side-suit single trick the other side is
winning with 10 points or more on it, holding a pointless card of the led suit that wins it and
one that does not; each valued both ways on the same deals of the cards the seat has not seen,
by the review's rollout player (sees every holding; the last two tricks searched) and by the
simulator's agent at every seat (each its own view, played to the end). Prints the points the
seat's side gains by taking the trick, by each, with their standard errors (issue 23).

    python bench/take_the_trick.py                       # one deck, 40 matches, 150 deals each
    python bench/take_the_trick.py --decks 2 --matches 20
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
from gamelog.cards import CARD_TOKENS, Card  # noqa: E402
from gamelog.model import Play  # noqa: E402
from replay.deals import determinize, knowledge  # noqa: E402
from replay.engine import HandReplay, play_strength  # noqa: E402
from replay.order import TRUMP  # noqa: E402
from replay.playout import greedy_value  # noqa: E402
from replay.review import clone  # noqa: E402
from replay.rollouts import play_value, rollout_agents  # noqa: E402
from replay.simulate import heuristic_agents, simulate_match  # noqa: E402


def positions(rules, matches: int):  # type: ignore[no-untyped-def]
    """(state, play event, the lowest winning card, the lowest card that does not win)."""
    for m in range(matches):
        events = simulate_match(rules, f"take-{m}", 9000 + m, hands=2, agents=heuristic_agents)
        for hand in gamelog.loads(gamelog.dumps(events))[0].hands:
            state = HandReplay(rules, hand)
            for ev in hand.events:
                trick = state.trick
                if isinstance(ev, Play) and trick is not None \
                        and len(trick.plays) == state.players - 1 and trick.lead_size == 1 \
                        and trick.lead_class != TRUMP and not trick.special:
                    order = state.order
                    kinds = [u.kind for u in trick.lead_units]

                    def strength(cards: list[int], order=order, trick=trick,  # type: ignore[no-untyped-def]
                                 kinds=kinds) -> tuple[int, int]:
                        return play_strength(order, trick.lead_class, kinds, cards) or (-1, -1)

                    best = max(trick.plays, key=lambda p: strength(p.cards))
                    on_table = sum(Card(c).points for p in trick.plays for c in p.cards)
                    if state.team_side(best.seat) != state.team_side(ev.seat) \
                            and on_table >= 10 * rules.decks:
                        top = strength(best.cards)
                        suit = [c for c in order.members[trick.lead_class]
                                if state.held[ev.seat][c] and not Card(c).points]
                        wins = [c for c in suit if strength([c]) > top]
                        ducks = [c for c in suit if strength([c]) < top]
                        if wins and ducks:
                            power = order.power.__getitem__
                            yield clone(state), ev, min(wins, key=power), min(ducks, key=power)
                state.apply(ev)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--decks", type=int, default=1)
    ap.add_argument("--matches", type=int, default=40)
    ap.add_argument("--deals", type=int, default=150)
    args = ap.parse_args()
    rules = replay.get_ruleset("tractor", players=4, decks=args.decks)
    rng = random.Random(1)
    gains: list[tuple[float, float]] = []
    for state, ev, win, duck in positions(rules, args.matches):
        seat = ev.seat
        known = knowledge(state, seat)
        by_rollout: list[float] = []
        by_agents: list[float] = []
        for _ in range(args.deals):
            world = determinize(state, seat, rng, known)
            draw = rng.randrange(1 << 30)
            values = []
            for card in (win, duck):
                for agents in (False, True):
                    trial = clone(world)
                    trial.apply(Play(match=ev.match, hand=ev.hand, seq=ev.seq, seat=seat,
                                     cards=[CARD_TOKENS[card]]))
                    values.append(play_value(trial, rollout_agents("heuristic", draw,
                                                                   state.players), 0)
                                  if agents else greedy_value(trial, 2))
            side = 1 if not state.team_side(seat) else -1  # values are the defenders' points
            by_rollout.append(side * (values[0] - values[2]))
            by_agents.append(side * (values[1] - values[3]))

        def shown(xs: list[float]) -> str:
            return f"{statistics.mean(xs):5.1f} ± {statistics.stdev(xs) / len(xs) ** 0.5:.1f}"

        gains.append((statistics.mean(by_rollout), statistics.mean(by_agents)))
        print(f"{ev.match} hand {ev.hand} seat {seat}: {CARD_TOKENS[win]} wins, "
              f"{CARD_TOKENS[duck]} does not; taking it gains {shown(by_rollout)} by the "
              f"review's rollout player, {shown(by_agents)} by own-view agents", flush=True)
    if gains:
        print(f"{len(gains)} positions; mean gain {statistics.mean(g for g, _ in gains):.1f} "
              f"(rollout player) and {statistics.mean(a for _, a in gains):.1f} (own-view agents)")
    else:
        print("no such position in these matches")


if __name__ == "__main__":
    main()
