"""Issue 27: the rollouts' and the search's plays are applied as known legal
(:func:`replay.phases.tricks.play_legal`), skipping the checks; played with every check, the same
plays must give the same tricks and points and break no rule."""

from __future__ import annotations

import random

import pytest

import replay
from gamelog.model import Hand
from replay.engine import HandReplay
from replay.playout import greedy_play
from replay.review import apply_play, clone, to_play
from replay.simulate import heuristic_agents, simulate_match
from tests.test_review import RULESETS, small_position


def _tricks(state: HandReplay) -> list[tuple]:
    """What a replay decides of each trick, and the hand's points."""
    out: list[tuple] = [
        (t.number, t.leader, t.winner, t.points, t.trumped, t.throw, t.failed_throw, t.forced,
         t.special, [(p.seat, p.cards, p.role) for p in t.plays])
        for t in state.tricks]
    out.append((state.defender_points, state.finished, state.leader,
                [sorted(v) for v in state.void], [list(h) for h in state.held],
                None if state.outcome is None else
                (state.outcome.defender_points, state.outcome.level_change,
                 state.outcome.kitty_award)))
    return out


def _play_out(state: HandReplay, checked: bool) -> HandReplay:
    trial = clone(state)
    while not trial.finished:
        seat = to_play(trial)
        assert seat is not None
        apply_play(trial, seat, greedy_play(trial, seat), checked=checked)
    return trial


def _starts(name: str, options: dict, count: int, seed: int) -> list[HandReplay]:
    """Positions before the first lead of simulated hands (a real deal, kitty and trump)."""
    from gamelog.model import Play

    rules = replay.get_ruleset(name, **options)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        events = simulate_match(rules, f"t{len(out)}", rng.randrange(1 << 30), hands=1,
                                agents=heuristic_agents)
        hand_events = [e for e in events if e.hand == 1]
        hand = Hand(match=events[0].match, number=1, events=hand_events, header=events[0])
        state = HandReplay(rules, hand)
        for ev in hand_events:
            if isinstance(ev, Play):
                break
            state.apply(ev)
        if state.start_play():
            out.append(state)
    return out


@pytest.mark.parametrize("name,options", [
    ("tractor", {"decks": 1}), ("tractor", {"decks": 2}), ("tractor", {"decks": 3}),
    ("four-deck", {}), ("wanfen", {}), ("biaofen", {"players": 3}),
    ("biaofen", {"players": 4})])
def test_plays_applied_as_legal_give_the_tricks_every_check_gives(name, options):
    for state in _starts(name, options, 4, seed=27):
        fast, checked = _play_out(state, False), _play_out(state, True)
        assert not checked.log.items, checked.log.items  # the rollout player plays legally
        assert _tricks(fast) == _tricks(checked)


def test_small_positions_applied_as_legal_give_the_same_tricks():
    rng = random.Random(16)
    for name, players, decks in RULESETS:
        for _ in range(15):
            state = small_position(rng, name, players, decks, cards=rng.randrange(2, 9))
            fast, checked = _play_out(state, False), _play_out(state, True)
            assert not checked.log.items, checked.log.items
            assert _tricks(fast) == _tricks(checked)


@pytest.mark.parametrize("name,options", [
    ("tractor", {"decks": 1}), ("tractor", {"decks": 2}), ("four-deck", {}), ("wanfen", {}),
    ("biaofen", {"players": 3})])
def test_a_playout_with_the_holdings_cache_plays_as_one_without(name, options):
    """greedy_play_out keeps each seat's holding per suit while it plays (dropped when the seat
    plays): the same tricks and points as the plays made one by one without it, and no cache
    left on the state."""
    from replay.playout import greedy_play_out
    from replay.search import final_points

    for state in _starts(name, options, 3, seed=19):
        cached = clone(state)
        points = greedy_play_out(cached)
        plain = _play_out(state, False)
        assert _tricks(cached) == _tricks(plain) and points == final_points(plain)
        assert cached.holding_cache is None


def test_the_holdings_cache_forgets_a_seat_that_plays():
    state = _starts("tractor", {"decks": 2}, 1, seed=5)[0]
    state.holding_cache = [None] * (state.players * 5)
    seat = to_play(state)
    cards = greedy_play(state, seat)
    klass = state.order.klass[cards[0]]
    before = dict(state.class_holding(seat, klass))
    assert state.class_holding(seat, klass) is state.class_holding(seat, klass)  # kept
    apply_play(state, seat, cards)
    after = state.class_holding(seat, klass)
    for c in set(cards):
        assert after.get(c, 0) == before[c] - cards.count(c)
