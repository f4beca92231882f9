"""A round of the review's deals drawn in C (``replay/_core_deal.h``): where the core is built,
``deals_drawn`` gives exactly the deals, draws and random state that ``deal`` and
``randrange`` give in Python from the same ``random.Random``."""

from __future__ import annotations

import random

import pytest

from replay.deals import SeatKnowledge, deal, deals_drawn, knowledge
from replay.search import to_play
from tests.test_native_playout import RULESETS, _positions, needs_core


def _python(state, told, rng, n):
    return [(deal(state, told, rng), rng.randrange(1 << 30)) for _ in range(n)]


@needs_core
@pytest.mark.parametrize(("name", "options"), RULESETS)
def test_the_core_deals_as_python_does_from_the_same_random_stream(name, options):
    states = _positions(name, options, 3, 11)
    assert any(any(knowledge(s, to_play(s)).voids.values()) for s in states), \
        "some positions should have voids shown"
    for i, state in enumerate(states):
        seat = to_play(state)
        told = knowledge(state, seat)
        ours, theirs = random.Random(i), random.Random(i)
        assert deals_drawn(state, told, ours, 7) == _python(state, told, theirs, 7)
        assert ours.getstate() == theirs.getstate()


@needs_core
def test_a_deal_whose_voids_cannot_be_kept_falls_back_as_in_python():
    """Every other seat void in every suit class and no kitty: the 20 tries fail, and the
    cards are dealt ignoring the voids, in both."""
    state = _positions("tractor", {"decks": 2}, 1, 3)[0]
    told = knowledge(state, to_play(state))
    stuck = SeatKnowledge(told.others, told.need, {o: set(range(5)) for o in told.others},
                          told.pinned, told.pool, 0, told.kitty_unknown, [0] * 5)
    ours, theirs = random.Random(5), random.Random(5)
    got = deals_drawn(state, stuck, ours, 3)
    assert got == _python(state, stuck, theirs, 3)
    assert ours.getstate() == theirs.getstate()
    hands, kitty = got[0][0]
    assert kitty == [] and all(len(hands[o]) == told.need[o] for o in told.others)


def test_another_random_source_is_dealt_by_python():
    """A ``random.Random`` subclass may draw otherwise: its own methods deal."""
    class Counting(random.Random):
        calls = 0

        def getrandbits(self, k):
            Counting.calls += 1
            return super().getrandbits(k)

    state = _positions("tractor", {"decks": 1}, 1, 4)[0]
    told = knowledge(state, to_play(state))
    got = deals_drawn(state, told, Counting(2), 2)
    assert Counting.calls > 0
    assert got == _python(state, told, random.Random(2), 2)
