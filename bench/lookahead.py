"""A stronger seat for the review's benchmarks: it plays as the review judges (issue 23).

:class:`LookaheadAgent` leads and follows by the review's own machinery at a small budget:
every alternative the review would list (:func:`replay.candidates.decision_choices`), each
played out on the same ``deals`` deals of the cards the seat has not seen, consistent with
what it knows (:func:`replay.rollouts.rollout_samples`: the rollout player, the last tricks
solved exactly), and the best on average is played. It declares and buries as the heuristic
agent does. A review of its plays measures what the review marks when a seat plays well by
the review's own standard: its noise and nothing else, whereas the heuristic agent's marks
are partly its own weaknesses (its leads above all).

The simulator hands agents a :class:`replay.agents.SeatView`; :func:`install` makes it carry
the simulation's state too, which only the sampling reads (it deals the unseen cards from the
seat's knowledge, as the review does). Bench-only: the library's simulator is unchanged.
"""

from __future__ import annotations

import random
from typing import Any

from replay import simulate
from replay.agents import HeuristicAgent
from replay.candidates import decision_choices
from replay.rollouts import rollout_samples
from replay.search import defends

_installed = False


def install() -> None:
    """Make the simulator's seat views carry the hand's state (for :class:`LookaheadAgent`)."""
    global _installed
    if _installed:
        return
    plain = simulate._view

    def view_with_state(st: Any, seat: int, order: Any) -> Any:
        view = plain(st, seat, order)
        view.state = st
        return view

    simulate._view = view_with_state
    _installed = True


class LookaheadAgent(HeuristicAgent):
    """Leads and follows with the play that scores best over ``deals`` sampled deals (see the
    module's docstring); the heuristic agent's choice where the state is not at hand (the
    hand's first lead, before the card order is fixed) or nothing is left to choose."""

    def __init__(self, rng: random.Random, deals: int = 48, endgame: int = 2) -> None:
        super().__init__(rng)
        self.deals = deals
        self.endgame = endgame
        self.sampler = random.Random(rng.randrange(1 << 30))

    def _best(self, view: Any) -> list[int] | None:
        state = getattr(view, "state", None)
        if state is None or state.order is None:
            return None
        options, _ = decision_choices(state, view.seat)
        if len(options) <= 1:
            return options[0] if options else None
        rows = rollout_samples(state, view.seat, options, self.deals, self.sampler,
                               exact_cards=4, endgame=self.endgame)
        sign = 1 if defends(state, view.seat) else -1
        means = [sum(r[i] for r in rows) / len(rows) for i in range(len(options))]
        return options[max(range(len(options)), key=lambda i: (sign * means[i], -i))]

    def lead(self, view: Any) -> list[int]:
        return self._best(view) or super().lead(view)

    def follow(self, view: Any, spec: Any) -> list[int]:
        return self._best(view) or super().follow(view, spec)
