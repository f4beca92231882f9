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



def _arrangements(slots: list[tuple[int, int]]):
    """Every way to give each place its number of cards (``slots``: (place, room)), as the
    place of each card in turn."""
    if not slots:
        yield ()
        return
    total = sum(room for _, room in slots)
    if not total:
        yield ()
        return
    for i, (place, room) in enumerate(slots):
        if room:
            rest = [*slots[:i], (place, room - 1), *slots[i + 1:]]
            for tail in _arrangements(rest):
                yield (place, *tail)


def _marginals(told: SeatKnowledge, klass) -> dict[tuple[int, int], float]:
    """Each card's chance to lie in each place (a seat, or -1: the kitty), over every deal
    consistent with ``told``'s voids, all alike (brute force over the places' rooms)."""
    rooms = [(o, told.need[o] - len(told.pinned[o])) for o in told.others] + [(-1, told.kitty_size)]
    counts: dict[tuple[int, int], int] = {}
    deals = 0
    for places in _arrangements(rooms):
        if all(p == -1 or klass[c] not in told.voids[p] for c, p in zip(told.pool, places, strict=True)):
            deals += 1
            for c, p in zip(told.pool, places, strict=True):
                counts[(p, c)] = counts.get((p, c), 0) + 1
    return {key: n / deals for key, n in counts.items()}


def _drawn(state, told: SeatKnowledge, n: int) -> dict[tuple[int, int], float]:
    seen: dict[tuple[int, int], float] = {}
    for (hands, kitty), _ in deals_drawn(state, told, random.Random(3), n):
        for place, cards in [*hands.items(), (-1, kitty)]:
            for c in cards:
                seen[(place, c)] = seen.get((place, c), 0) + 1 / n
    return seen


@pytest.mark.parametrize("voids", [{0: {0}}, {0: {0}, 3: {0}}, {2: {3}}, {0: {0}, 2: {1}},
                                   {0: {0, 1}, 3: {3}}, {0: {0}, 2: {1}, 3: {3}}])
def test_the_deals_drawn_are_uniform_over_the_deals_consistent_with_the_voids(voids):
    """Each unseen card lies in each other seat's hand and in the kitty as often as over every
    consistent deal alike: exactly so with voids shown in one suit class (dealt in proportion
    to the room left, the cards fewest seats may take first), and mixed towards it by swaps
    with voids in several (``deals._mix``). Until session 52 a card went to the kitty only
    when no seat could take it: the void suit's cards, dealt first, were then never in the
    kitty here (a chance of 0.43 each with seat 0 void in spades)."""
    state = _positions("tractor", {"decks": 1}, 1, 3)[0]
    klass = state.order.klass
    by_class = [[c for c in range(54) if klass[c] == k] for k in range(5)]
    pool = [c for cards in by_class if cards for c in cards[:3]][:9]  # three of each class held
    assert len(pool) == 9
    others = [0, 2, 3]
    told = SeatKnowledge(others, {0: 2, 2: 2, 3: 2}, {o: voids.get(o, set()) for o in others},
                         {o: [] for o in others}, pool, 3, True,
                         [sum(1 for o in others if k not in voids.get(o, set())) for k in range(5)])
    expected = _marginals(told, klass)
    seen = _drawn(state, told, 6000)
    worst = max(abs(seen.get(key, 0.0) - p) for key, p in expected.items())
    assert worst < 0.03, worst
    assert all(key in expected for key in seen), "a card dealt to a seat void in its suit"
