"""Property: the legal-play generator and the validator agree, on random states of real hands.

Random states come from simulated hands, stopped at a random play. Each generated lead and
sampled follow must pass the validator; each random set of cards must get the same verdict
from the generator (``FollowSpec.contains``) as from the validator.
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamelog.cards import Card
from gamelog.model import Play
from replay import get_ruleset
from replay.engine import HandReplay
from replay.legal import follow_spec, legal_leads
from replay.simulate import (
    HandBuilder,  # noqa: F401 - the simulator builds the states
    heuristic_agents,
    simulate_match,
)


def states(decks: int, seed: int, stop: int) -> tuple[HandReplay, int] | None:
    """A hand of a simulated match replayed up to its ``stop``-th play: (state, seq)."""
    rules = get_ruleset("tractor", decks=decks)
    events = simulate_match(rules, f"p{seed}", seed, hands=1, agents=heuristic_agents)
    hand_events = [e for e in events if e.hand == 1]
    from gamelog.model import Hand

    hand = Hand(match=events[0].match, number=1, events=hand_events, header=events[0])
    state = HandReplay(rules, hand)
    total = sum(1 for e in hand_events if isinstance(e, Play))
    stop %= total
    plays = 0
    for ev in hand_events:
        if isinstance(ev, Play):
            if plays >= stop and state.pending_forced is None:  # not between a failed throw
                return state, ev.seq                           # and its forced play
            plays += 1
        state.apply(ev)
    return None


def verdict(state: HandReplay, seat: int, cards: list[int], seq: int) -> list[str]:
    trial = copy.deepcopy(state)
    before = len(trial.log.items)
    trial.apply(Play(match=trial.hand.match, hand=1, seq=seq, seat=seat,
                     cards=[str(Card(c)) for c in cards]))
    return [v.rule for v in trial.log.items[before:]]


def on_turn(state: HandReplay) -> int:
    if state.trick is None or not state.trick.plays:
        return state.leader if state.leader is not None else state.declarer
    return (state.trick.plays[-1].seat + 1) % state.players


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decks=st.sampled_from([1, 2, 3]), seed=st.integers(0, 10_000), stop=st.integers(0, 150),
       salt=st.integers(0, 2**16))
def test_generator_and_validator_agree(decks, seed, stop, salt):
    found = states(decks, seed, stop)
    if found is None:  # the stop fell on the last forced play of the hand
        return
    state, seq = found
    seat = on_turn(state)
    rng = random.Random(salt)
    held = [c for c in range(54) for _ in range(state.held[seat][c])]
    if state.trick is None or not state.trick.plays:
        state.start_play()
        leads = legal_leads(state, seat, max_throw_units=2)
        assert leads
        for lead in rng.sample(leads, min(12, len(leads))):
            rules = verdict(state, seat, list(lead.cards), seq)
            assert rules == ([] if lead.stands else ["throw.beatable"]), (lead, rules)
        return
    spec = follow_spec(state, seat)
    for _ in range(4):
        cards = spec.sample(rng)
        assert spec.contains(cards)
        assert verdict(state, seat, cards, seq) == [], cards
    for _ in range(12):
        cards = rng.sample(held, spec.n) if len(held) >= spec.n else held
        legal = spec.contains(cards)
        rules = verdict(state, seat, cards, seq)
        assert legal == (rules == []), (cards, rules, spec.required)


@pytest.mark.parametrize("decks", [1, 2, 3])
def test_lowest_follow_is_legal(decks):
    for seed in range(5):
        found = states(decks, seed, 9)
        if found is None:
            continue
        state, seq = found
        seat = on_turn(state)
        if state.trick is None or not state.trick.plays:
            continue
        spec = follow_spec(state, seat)
        cards = spec.lowest(state.order.power.__getitem__)
        assert spec.contains(cards) and verdict(state, seat, cards, seq) == []


@pytest.mark.parametrize("decks", [1, 2, 3])
def test_small_follows_are_enumerated_exactly(decks):
    """Where the space is small the generator lists every legal follow: each passes the
    validator, and every candidate it leaves out is rejected by the validator."""
    import itertools

    checked = 0
    for seed in range(40):
        found = states(decks, seed, 40 + seed)
        if found is None:
            continue
        state, seq = found
        seat = on_turn(state)
        if state.trick is None or not state.trick.plays:
            continue
        spec = follow_spec(state, seat)
        if spec.candidates() > 400:
            continue
        legal = spec.enumerate(limit=400)
        assert legal is not None and legal
        legal_set = {tuple(sorted(x)) for x in legal}
        held = [c for c in range(54) for _ in range(state.held[seat][c])]
        for combo in {tuple(sorted(x)) for x in itertools.combinations(held, spec.n)}:
            rules = verdict(state, seat, list(combo), seq)
            assert (combo in legal_set) == (rules == []), (combo, rules)
        checked += 1
    assert checked >= 3


def test_follows_are_the_enumerated_follows():
    """FollowSpec.follows (the rollout player's: the led suit's part searched alone) lists the
    same follows as FollowSpec.enumerate, on random positions of every ruleset."""
    import random

    from replay.legal import follow_spec
    from replay.review import apply_play, choices, to_play
    from tests.test_review import RULESETS, small_position

    rng = random.Random(1)
    compared = 0
    for i in range(600):
        name, players, decks = RULESETS[i % len(RULESETS)]
        state = small_position(rng, name, players, decks, cards=2 + i % 7)
        seat = to_play(state)
        apply_play(state, seat, rng.choice(choices(state, seat)))
        seat = to_play(state)
        if state.finished or state.trick is None or not state.trick.plays:
            continue
        spec = follow_spec(state, seat)
        a, b = spec.enumerate(limit=100_000), spec.follows(limit=100_000)
        if a is None or b is None:
            continue
        compared += 1
        assert sorted(map(sorted, a)) == sorted(map(sorted, b)), (name, i)
    assert compared > 300


def test_multisets_lists_every_sub_multiset_in_the_order_of_the_plain_recursion():
    """replay.legal._multisets (issue 27: a walk that skips branches it cannot fill) gives
    the same lists in the same order as the plain recursion, on random holdings."""
    from replay.legal import _multisets

    def plain(items, n):
        if n == 0:
            yield []
            return
        if not items:
            return
        (card, k), tail = items[0], items[1:]
        for take in range(min(k, n), -1, -1):
            for more in plain(tail, n - take):
                yield [card] * take + more

    rng = random.Random(27)
    for _ in range(3000):
        items = [(c, rng.randint(1, 4))
                 for c in sorted(rng.sample(range(54), rng.randint(0, 8)))]
        n = rng.randint(0, 10)
        assert _multisets(items, n) == list(plain(items, n)), (items, n)
