"""The exact search on the C core (``replay/_core_search.h``): where it is built, ``solve`` gives the
value of the Python search (``solve_python``) on every position, takes almost all of them
itself, and shares a deal's table between searches without changing a value."""

from __future__ import annotations

import os
import random

import pytest

import gamelog
import replay
from gamelog.model import Hand, Play
from replay._native import greedy_core
from replay.engine import HandReplay
from replay.search import _native_solve, apply_play, choices, clone, solve, solve_python, table_size, to_play
from tests.test_review import set_position, small_position

NATIVE = greedy_core() is not None
needs_core = pytest.mark.skipif(not NATIVE, reason="the C core is not built")
POSITIONS = int(os.environ.get("SHENGJI_NATIVE_SEARCH_POSITIONS", "120"))
RULESETS = [("tractor", 4, 1), ("tractor", 4, 2), ("tractor", 4, 3), ("four-deck", 4, 4),
            ("biaofen", 3, 2), ("biaofen", 4, 2), ("wanfen", 4, 2)]


def _mid_trick(state: HandReplay, rng: random.Random) -> HandReplay:
    """``state`` with 0-2 plays of the first trick made (random legal choices)."""
    for _ in range(rng.randrange(3)):
        seat = to_play(state)
        assert seat is not None
        apply_play(state, seat, rng.choice(choices(state, seat)))
    return state


@needs_core
@pytest.mark.parametrize("name,players,decks", RULESETS)
def test_c_search_gives_the_python_searchs_value(name, players, decks):
    """Random positions of 1-4 cards a seat (so throws of three and four units), at a lead
    and in the middle of a trick: the C value is the Python one, and the C core takes them."""
    rng = random.Random(f"native-search:{name}:{players}:{decks}")
    taken = 0
    for i in range(POSITIONS):
        state = _mid_trick(small_position(rng, name, players, decks, cards=1 + i % 4), rng)
        found = _native_solve(clone(state), {})
        expected = solve_python(clone(state), {})
        if found is not None:
            taken += 1
            assert found == expected, (name, decks, i)
        assert solve(clone(state)) == expected
    assert taken >= 0.95 * POSITIONS


@needs_core
def test_c_search_of_real_endgames():
    """The last three tricks of simulated hands of every ruleset: the same value both ways."""
    from replay.simulate import heuristic_agents, simulate_match

    checked = 0
    for name, options in [("tractor", {"decks": 2}), ("tractor", {"decks": 1}),
                          ("four-deck", {}), ("wanfen", {}), ("biaofen", {"players": 4})]:
        rules = replay.get_ruleset(name, **options)
        for k in range(6):
            events = simulate_match(rules, f"e{k}", 1000 + k, hands=1, agents=heuristic_agents)
            hand = Hand(match=events[0].match, number=1, header=events[0],
                        events=[e for e in events if e.hand == 1])
            state = HandReplay(rules, hand)
            for ev in hand.events:
                if isinstance(ev, Play) and state.order is not None and \
                        max(sum(h) for h in state.held) <= 3 and not state.stopped:
                    assert _native_solve(clone(state), {}) == solve_python(clone(state), {})
                    checked += 1
                    break
                state.apply(ev)
    assert checked >= 25


@needs_core
def test_a_deals_table_is_shared_without_changing_a_value():
    """The alternatives of one decision searched on one table (as the review does) get the
    values they get alone; the table counts its positions."""
    rng = random.Random(5)
    for _ in range(60):
        state = small_position(rng, "tractor", 4, 2, cards=3)
        seat = to_play(state)
        assert seat is not None
        table: dict = {}
        for cards in choices(state, seat):
            child = clone(state)
            apply_play(child, seat, cards)
            alone = solve_python(clone(child), {})
            assert solve(child, table) == alone
        assert table_size(table) > 0


@needs_core
def test_a_throw_of_three_units_is_searched():
    """Issue 23's position: seat 0 leads ♠A ♠K ♠Q, seat 1 holds a trump and no spades; the
    throw stands and takes every point (the C search tries throws of any size too)."""
    holdings = [["AS", "KS", "QS"], ["3H", "4C", "6C"], ["2S", "3S", "4S"], ["4D", "6D", "7D"]]
    state = set_position("tractor", 4, 1, holdings, ["5C", "5D"], "H", "2", 1, 0)
    assert state.start_play()
    found = _native_solve(clone(state), {})
    assert found is not None and found == solve_python(clone(state), {})
    # the throw takes ♠K's 10 and the last trick: the kitty's ♣5 ♦5 doubled, 30 in all
    assert found == 30


def test_without_the_core_the_python_search_answers(monkeypatch):
    """``SHENGJI_NATIVE_PLAYOUT=0`` (or no build): ``solve`` is the Python search."""
    import replay.search as search

    monkeypatch.setattr(search, "greedy_core", lambda: None)
    state = small_position(random.Random(3), "tractor", 4, 2, cards=2)
    assert search._native_solve(clone(state), {}) is None
    assert solve(clone(state)) == solve_python(clone(state), {})


def test_the_samples_last_tricks_agree():
    """The first hand of every sample match, at each of its last three tricks' leads:
    ``solve`` (C where built) and the Python search agree."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "samples" / "matches"
    checked = 0
    for path in sorted(root.glob("*.jsonl")):
        for hand in gamelog.read_hands(path):
            if hand.number != 1:
                continue
            state = HandReplay(replay.ruleset_for(hand.header), hand)
            for ev in hand.events:
                if isinstance(ev, Play) and state.order is not None and not state.stopped \
                        and (state.trick is None or not state.trick.plays) \
                        and max(sum(h) for h in state.held) <= 3:
                    assert solve(clone(state)) == solve_python(clone(state), {}), path.name
                    checked += 1
                state.apply(ev)
    assert checked >= 15


@needs_core
@pytest.mark.parametrize("name,options", [("tractor", {"decks": 1}), ("tractor", {"decks": 2}),
                                          ("four-deck", {}), ("wanfen", {}),
                                          ("biaofen", {"players": 4})])
def test_a_rollout_with_an_exact_end_is_the_same_in_c_and_python(name, options, monkeypatch):
    """``greedy_value`` with ``endgame``: the rollout player's plays, then the exact search
    once every seat holds at most that many cards at a lead; the C core (one call) gives what
    the Python player and search give, one shared table or none; and the value is never the
    plain playout's when the search finds better play for both sides (it differs somewhere)."""
    import replay.playout as playout
    import replay.search as search
    from replay.playout import greedy_value
    from replay.simulate import heuristic_agents, simulate_match

    rules = replay.get_ruleset(name, **options)
    rng = random.Random(f"endgame:{name}")
    states: list[HandReplay] = []
    for k in range(6):
        events = simulate_match(rules, f"g{k}", rng.randrange(1 << 30), hands=1, agents=heuristic_agents)
        hand = Hand(match=events[0].match, number=1, header=events[0],
                    events=[e for e in events if e.hand == 1])
        state = HandReplay(rules, hand)
        for ev in hand.events:
            if isinstance(ev, Play) and state.order is not None and rng.random() < 0.1:
                states.append(clone(state))
            state.apply(ev)
    assert len(states) >= 8
    found = {(i, e): greedy_value(clone(s), e, {}) for i, s in enumerate(states) for e in (2, 3)}
    plain = [greedy_value(clone(s)) for s in states]
    monkeypatch.setattr(playout, "greedy_core", lambda: None)
    monkeypatch.setattr(search, "greedy_core", lambda: None)
    for (i, e), value in found.items():
        assert greedy_value(clone(states[i]), e) == value, (name, i, e)
    assert any(value != plain[i] for (i, _), value in found.items())
