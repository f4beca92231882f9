"""The simulator's agent: the heuristic agent, its plays checked on sampled deals, and a
lookahead in the hand's last tricks.

:class:`LookaheadAgent` plays as :class:`replay.agents.HeuristicAgent` until every seat holds
at most ``cards`` cards (8 by default), each play checked (:meth:`LookaheadAgent.checked`,
since session 43): every alternative played out on 64 deals of what the seat could not see, the
best replacing the heuristic play only when it gains the review's inaccuracy there and again on
64 fresh deals, two standard errors clear (in packs of at most 200 points); from there it leads
and follows with the play worth most to its side over ``deals`` deals of the cards it has not
seen, each consistent with what it knows (its cards, the cards played, the voids shown, the
kitty if it buried it), as the review values a decision (:mod:`replay.rollouts`): every
alternative the review would list (:func:`replay.candidates.decision_choices`), played out on
the same deals by the rollout player, the last two tricks searched; once every seat holds at
most four cards each deal is solved exactly (five at one deck, since session 36), and every
consistent deal is enumerated when there are at most 256. It never reads a card the seat could
not see: the deals are drawn from the seat's knowledge alone, by a stream fixed by the
decision's place (so a seat's choice is the same whatever the true unseen cards are, and a hand
is the same on every run).

Against the plain heuristic agent in duplicate play the lookahead gains 1.1 points a hand at
one deck, 0.7 at two and 1.7 at three (``bench/agent_duel.py --against heuristic``) for 0.1-0.3
s CPU a hand. Early in a two-deck hand the same lookahead on few deals loses points (16 deals
from the first trick: -9 a hand; on 64, -0.6 ± 0.8), which is why it waits for the last tricks:
the best of many noisy values replaces good plays by lucky ones. The check replaces a play only
when another is clearly better, and gains 2.7 ± 0.4 points a hand at two decks against the
agent without it, for 0.8 s CPU a hand more (docs/review-history.md, "Session 43")."""

from __future__ import annotations

import random
import statistics

from replay.agents import HeuristicAgent, SeatView
from replay.candidates import decision_choices
from replay.engine import HandReplay
from replay.legal import FollowSpec
from replay.marks import Budget, point_scale, thresholds
from replay.rollouts import enumerated_deals, exact_values, most_held, rollout_samples
from replay.search import defends

LOOKAHEAD_CARDS = 8
"""The agent looks ahead once every seat holds at most this many cards."""
LOOKAHEAD_DEALS = 64
"""Deals of the unseen cards a decision is valued on."""
CHECK_DEALS = 64
"""Deals the heuristic agent's play is checked on before the last tricks (and as many fresh
ones to confirm a better play): :meth:`LookaheadAgent.checked`."""
CHECK_SCALE = 1.0
"""The check is made in packs of at most two decks' points (200: one and two decks, 标分);
in larger ones it would cost ten to twenty times the hand's play (three decks, four-deck,
打万分), and they are played as before."""
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
                 deals: int = LOOKAHEAD_DEALS, endgame: int = 2,
                 check: int = CHECK_DEALS) -> None:
        super().__init__(rng)
        self.cards = cards
        self.deals = deals
        self.endgame = endgame
        self.check = check

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
        place = _place(state, view.seat)
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

    def checked(self, view: SeatView, play: list[int]) -> list[int]:
        """Before the last tricks, the heuristic agent's ``play``, unless another is clearly
        better (a second opinion): every alternative is played out on ``check`` deals of the
        unseen cards, and the best of them replaces the play only if it gains at least the
        review's inaccuracy (4.5 points at one and two decks) on those deals and again on as
        many fresh ones, there two standard errors above nothing (the best of many noisy
        gains read on the deals that picked it is biased upwards; the fresh deals are not)."""
        state = view.state
        if (not self.check or state is None or state.order is None or not state.tricks
                or most_held(state) <= self.cards):
            return play
        scale = point_scale(state)
        if scale > CHECK_SCALE:  # before listing the alternatives: nothing is checked there
            return play
        options, _ = decision_choices(state, view.seat, made=play)
        key = sorted(play)
        made = next((i for i, o in enumerate(options) if sorted(o) == key), None)
        if made is None or len(options) <= 1:
            return play
        rng = random.Random(f"check:{_place(state, view.seat)}")
        exact_cards = EXACT.exact_at(scale)
        margin = thresholds(scale)[-1][1]
        sign = 1 if defends(state, view.seat) else -1
        rows = rollout_samples(state, view.seat, options, self.check, rng,
                               exact_cards=exact_cards, endgame=self.endgame)
        gains = [sign * sum(r[i] - r[made] for r in rows) / len(rows) for i in range(len(options))]
        best = max(range(len(options)), key=lambda i: (gains[i], -i))
        if best == made or gains[best] < margin:
            return play
        rows = rollout_samples(state, view.seat, [options[made], options[best]], self.check, rng,
                               exact_cards=exact_cards, endgame=self.endgame)
        fresh = [sign * (r[1] - r[0]) for r in rows]
        mean = statistics.fmean(fresh)
        if mean >= margin and mean > 2 * statistics.stdev(fresh) / len(fresh) ** 0.5:
            return options[best]
        return play

    def lead(self, view: SeatView) -> list[int]:
        return self.best(view) or self.checked(view, super().lead(view))

    def follow(self, view: SeatView, spec: FollowSpec) -> list[int]:
        return self.best(view) or self.checked(view, super().follow(view, spec))


def _place(state: HandReplay, seat: int) -> str:
    """A decision's place in its match (hand, trick, play, seat): what seeds its deals, so a
    seat's choice there is the same on every run and whatever the unseen cards are."""
    trick = state.trick
    return (f"{state.hand.match}:{state.hand.number}:{len(state.tricks)}:"
            f"{len(trick.plays) if trick is not None else 0}:{seat}")
