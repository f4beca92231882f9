"""A stronger seat for the review's benchmarks: it plays as the review judges, the whole hand
(issue 23).

:func:`whole_hand` is the simulator's agent (:class:`replay.lookahead.LookaheadAgent`) looking
ahead from the first trick on: it leads and follows by the review's own machinery at a small
budget (every alternative the review would list, each played out on the same 48 deals of the
cards the seat has not seen, consistent with what it knows; the last tricks solved exactly),
and declares and buries as the heuristic agent does. A review of its plays measures what the
review marks when a seat plays well by the review's own standard: its noise and nothing else.
(The simulator's own agent looks ahead only in the last eight tricks: earlier, on few deals,
the lookahead loses points at two decks; before them it only checks the heuristic agent's play,
replacing it where another is clearly better.)
"""

from __future__ import annotations

import random

from replay.lookahead import LookaheadAgent

WHOLE_HAND = 1 << 10
"""More cards than any seat holds: the lookahead from the first trick on."""


def whole_hand(rng: random.Random, deals: int = 48) -> LookaheadAgent:
    """The lookahead agent for every trick of the hand, on ``deals`` deals a decision."""
    return LookaheadAgent(rng, cards=WHOLE_HAND, deals=deals)
