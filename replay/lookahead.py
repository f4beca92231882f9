"""The simulator's agent: the heuristic agent, with a lookahead in the hand's last tricks.

:class:`LookaheadAgent` plays as :class:`replay.agents.HeuristicAgent` until every seat holds
at most ``cards`` cards (8 by default); from there it leads and follows with the play worth
most to its side over ``deals`` deals of the cards it has not seen, each consistent with what
it knows (its cards, the cards played, the voids shown, the kitty if it buried it), as the
review values a decision (:mod:`replay.rollouts`): every alternative the review would list
(:func:`replay.candidates.decision_choices`), played out on the same deals by the rollout
player, the last two tricks searched; once every seat holds at most four cards each deal is
solved exactly (five at one deck, since session 36), and every consistent deal is enumerated
when there are at most 256. It never
reads a card the seat could not see: the deals are drawn from the seat's knowledge alone, by a
stream fixed by the decision's place (so a seat's choice is the same whatever the true unseen
cards are, and a hand is the same on every run).

Against the plain heuristic agent in duplicate play it gains 1.1 points a hand at one deck,
0.7 at two and 1.7 at three (``bench/agent_duel.py --against heuristic``) for 0.1-0.3 s CPU a
hand. Early in a two-deck hand the same lookahead on few deals loses points (16 deals from the
first trick: -9 a hand), which is why it waits for the last tricks (docs/review.md, "Session
34")."""

from __future__ import annotations

import random

from replay.agents import HeuristicAgent, SeatView
from replay.candidates import decision_choices
from replay.legal import FollowSpec
from replay.marks import Budget, point_scale
from replay.rollouts import enumerated_deals, exact_values, most_held, rollout_samples
from replay.search import defends

LOOKAHEAD_CARDS = 8
"""The agent looks ahead once every seat holds at most this many cards."""
LOOKAHEAD_DEALS = 64
"""Deals of the unseen cards a decision is valued on."""
EXACT = Budget()
"""Each deal solved exactly once every seat holds at most :meth:`Budget.exact_at` cards, as
the review's default budget decides (five at one deck, four in larger packs)."""
EXACT_DEALS = Budget.exact_deals
"""Every consistent deal enumerated (with its weight) when there are at most this many."""


class LookaheadAgent(HeuristicAgent):
    """The heuristic agent, choosing its last ``cards`` tricks' plays by sampled deals (see
    the module's docstring). It needs the hand's state on its view (``SeatView.state``, as
    the simulator gives it); without it, it plays as the heuristic agent."""

    def __init__(self, rng: random.Random, cards: int = LOOKAHEAD_CARDS,
                 deals: int = LOOKAHEAD_DEALS, endgame: int = 2) -> None:
        super().__init__(rng)
        self.cards = cards
        self.deals = deals
        self.endgame = endgame

    def best(self, view: SeatView) -> list[int] | None:
        """The play worth most to the seat's side, or ``None`` where the heuristic agent
        plays (no state, the hand's first lead, more than ``cards`` cards a seat, one
        choice)."""
        state = view.state
        if state is None or state.order is None or most_held(state) > self.cards:
            return None
        options, _ = decision_choices(state, view.seat)
        if len(options) <= 1:
            return options[0] if options else None
        trick = state.trick
        place = (f"{state.hand.match}:{state.hand.number}:{len(state.tricks)}:"
                 f"{len(trick.plays) if trick is not None else 0}:{view.seat}")
        exact_cards = EXACT.exact_at(point_scale(state))
        deals = enumerated_deals(state, view.seat, exact_cards, EXACT_DEALS)
        if deals is not None:  # every deal the seat cannot tell apart, solved
            means = exact_values(deals, view.seat, options)
        else:
            rows = rollout_samples(state, view.seat, options, self.deals, random.Random(place),
                                   exact_cards=exact_cards, endgame=self.endgame)
            means = [sum(r[i] for r in rows) / len(rows) for i in range(len(options))]
        sign = 1 if defends(state, view.seat) else -1
        return options[max(range(len(options)), key=lambda i: (sign * means[i], -i))]

    def lead(self, view: SeatView) -> list[int]:
        return self.best(view) or super().lead(view)

    def follow(self, view: SeatView, spec: FollowSpec) -> list[int]:
        return self.best(view) or super().follow(view, spec)
