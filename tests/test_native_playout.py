"""The rollout player in C (replay/_greedy.c): where it is built it makes exactly the plays of
the rollout player of replay/playout.py, and the review's values do not change with it."""

from __future__ import annotations

import os
import random
import shutil
import warnings

import pytest

import gamelog
import replay
from gamelog.model import Hand, Play
from replay._native import greedy_core
from replay.deals import _deal_into, _refresh
from replay.engine import HandReplay
from replay.playout import greedy_play, greedy_play_out, greedy_value, native_result
from replay.search import apply_play, clone, to_play
from replay.simulate import heuristic_agents, simulate_match

NATIVE = greedy_core() is not None
needs_core = pytest.mark.skipif(not NATIVE, reason="the C rollout player is not built")
RULESETS = [("tractor", {"decks": 1}), ("tractor", {"decks": 2}), ("tractor", {"decks": 3}),
            ("four-deck", {}), ("biaofen", {"players": 3}), ("biaofen", {"players": 4}),
            ("wanfen", {})]


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                    reason="no C compiler: the rollout player runs as Python")
@pytest.mark.skipif(os.environ.get("SHENGJI_PURE", "") not in ("", "0"),
                    reason="SHENGJI_PURE asks for the Python sources")
def test_the_c_player_is_built_where_a_compiler_is_present():
    assert NATIVE, "pip install -e . should have built replay/_greedy.c"


def _positions(name: str, options: dict, hands: int, seed: int) -> list[HandReplay]:
    """Positions of simulated hands: before the first lead, and some along the way (leads
    and follows, every trick), reached by the Python rollout player."""
    rules = replay.get_ruleset(name, **options)
    rng = random.Random(seed)
    out: list[HandReplay] = []
    for k in range(hands):
        events = simulate_match(rules, f"n{k}", rng.randrange(1 << 30), hands=1, agents=heuristic_agents)
        hand = Hand(match=events[0].match, number=1, header=events[0],
                    events=[e for e in events if e.hand == 1])
        state = HandReplay(rules, hand)
        for ev in hand.events:
            if isinstance(ev, Play):
                break
            state.apply(ev)
        if not state.start_play() or state.finished:  # 标分's declarer may surrender
            continue
        out.append(clone(state))
        while not state.finished:
            if rng.random() < 0.15:
                out.append(clone(state))
            seat = to_play(state)
            assert seat is not None
            apply_play(state, seat, greedy_play(state, seat))
    return out


def _python_plays(state: HandReplay) -> list[tuple[int, list[int]]]:
    plays = []
    while not state.finished:
        seat = to_play(state)
        assert seat is not None
        cards = greedy_play(state, seat)
        plays.append((seat, list(cards)))
        apply_play(state, seat, cards)
    return plays


@needs_core
@pytest.mark.parametrize(("name", "options"), RULESETS,
                         ids=[f"{n}-{'-'.join(map(str, o.values()))}" for n, o in RULESETS])
def test_the_c_player_makes_the_python_players_plays(name, options):
    """Every play the same, from the first lead and from mid-trick positions, and the same
    final points whether the plays are applied or only settled."""
    positions = _positions(name, options, 6, seed=len(name) * 7 + len(options))
    assert len(positions) > 20
    served = 0
    for state in positions:
        found = native_result(clone(state))
        if found is not None:
            served += 1
            assert found[0] == _python_plays(clone(state))
        python = greedy_play_out(clone(state), native=False)
        assert greedy_play_out(clone(state)) == python
        assert greedy_value(clone(state)) == python
    assert served >= len(positions) - 1  # a follower holding 打万分's pattern: Python plays


@needs_core
def test_the_c_player_leaves_hidden_cards_to_python():
    state = _positions("tractor", {"decks": 2}, 1, seed=4)[0]
    state.hidden[2] = 1
    assert native_result(state) is None
    assert greedy_value(clone(state)) == greedy_play_out(clone(state), native=False)


@needs_core
def test_the_c_player_plays_wanfens_patterns():
    """打万分's 同花顺, 发财, 四季 and four jokers: led when held, answered and ranked as the
    ruleset says (hands dealt so that seats hold them)."""
    from replay.rulesets.wanfen import FORTUNE, JOKERS, SEASONS, STRAIGHT

    rules = replay.get_ruleset("wanfen")
    state = _positions("wanfen", {}, 1, seed=5)[0]
    order = state.order
    assert order is not None
    led = set()
    rng = random.Random(6)
    for _ in range(60):  # deal the four hands again, patterns planted in the leader's
        world = clone(state)
        cards = [c for hand in world.held for c in range(54) for _ in range(hand[c])]
        rng.shuffle(cards)
        leader = world.leader
        kind = rng.choice([STRAIGHT, FORTUNE, SEASONS, JOKERS])
        held = [0] * 54
        for c in cards:
            held[c] += 1
        planted = rules.holds_pattern(kind, held, order, 0)
        if planted is None:
            continue
        for c in planted:
            cards.remove(c)
        size = len(cards) // world.players + len(planted) // world.players
        hands = [[] for _ in range(world.players)]
        hands[leader] = list(planted)
        for c in cards:
            seat = next(s for s in range(world.players) if len(hands[s]) < size)
            hands[seat].append(c)
        if any(len(h) != size for h in hands):
            continue
        _deal_into(world, dict(enumerate(hands)), None)
        _refresh(world)  # the cards per suit class, as a deal of the review recounts them
        found = native_result(clone(world))
        if found is None:
            continue
        assert found[0] == _python_plays(clone(world))
        first = found[0][0][1]
        if rules.special_lead(first, order):
            led.add(rules.special_lead(first, order))
    assert len(led) >= 2


@needs_core
def test_the_review_is_the_same_with_either_player(monkeypatch):
    """The same decisions, values and marks: the C player only plays faster."""
    from replay import _native
    from replay.review import budget_at, review_hands

    hands = [h for m in gamelog.load("samples/matches/tractor-2deck.jsonl")
             for h in m.hands][:1]
    budget = budget_at("quick", seed=5, declarations=False)
    fast = [r.decisions for r in review_hands(iter(hands), budget=budget)]
    monkeypatch.setattr(_native, "_GREEDY", [None])  # as if it were not built
    slow = [r.decisions for r in review_hands(iter(hands), budget=budget)]
    assert fast == slow
    assert sum(len(d) for d in fast) > 20


@needs_core
@pytest.mark.parametrize(("name", "options"), RULESETS,
                         ids=[f"{n}-{'-'.join(map(str, o.values()))}" for n, o in RULESETS])
def test_a_deals_alternatives_played_out_in_one_call_score_as_each_on_its_own(name, options,
                                                                           monkeypatch):
    """The review's rollouts (replay.rollouts.rollout_samples) with a deal's alternatives
    played out from one reading of the position in the C core (``play_values``) give every
    value of each alternative played from its own copy of the state, leads (throws included:
    one that fails on a deal is handed back) and follows, with and without an exact end, and
    solved exactly once few cards are left; past the first deal the core reads each deal's
    holdings put into the first deal's position (every deal left in one call since session
    46), never a state made of the deal."""
    from replay import rollouts
    from replay.candidates import decision_choices

    positions = _positions(name, options, 3, seed=len(name) * 5 + len(options))
    checked = batched = 0
    for n, state in enumerate(positions):
        seat = to_play(state)
        assert seat is not None
        choices, _ = decision_choices(state, seat)
        if len(choices) < 2:
            continue
        choices = choices[:6]
        monkeypatch.setattr(rollouts, "BATCH", True)
        batched += len(rollouts._batchable(state, choices))
        for endgame, exact in ((2, 2), (0, 0), (2, 4)):
            got = {}
            for flag in (True, False):
                monkeypatch.setattr(rollouts, "BATCH", flag)
                got[flag] = rollouts.rollout_samples(state, seat, choices, 5,
                                                     random.Random(n), endgame=endgame,
                                                     exact_cards=exact)
            assert got[True] == got[False], (n, endgame, exact)
            checked += 1
    assert checked > 10
    if name != "wanfen":  # 打万分's patterns are left to Python
        assert batched > 10


@needs_core
@pytest.mark.parametrize(("name", "options"), RULESETS[1:2] + RULESETS[3:5],
                         ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v.values())))
def test_a_throw_raced_in_the_core_is_handed_back_on_a_deal_where_it_fails(name, options,
                                                                        monkeypatch):
    """A throw among a deal's alternatives is played in the C core's batch on a deal where it
    stands, and handed back to the engine, which plays it as failed (its lowest beaten unit),
    on a deal where another seat beats one of its units (since session 46; until then every
    throw was played on a world dealt for it): each value is the alternative's played on its
    own, and on the true deal a throw that stands there is valued in the core as the engine
    values it. A deal needs a world of its own (``dealt_world``) only where a play was handed
    back. (At one deck these positions hold no throw that stands.)"""
    from replay import rollouts
    from replay.deals import knowledge
    from replay.legal import legal_leads
    from replay.search import core_position, settler
    from replay.units import decompose

    real = rollouts.dealt_world
    worlds = [0]

    def counted(*args):  # type: ignore[no-untyped-def]
        worlds[0] += 1
        return real(*args)

    monkeypatch.setattr(rollouts, "dealt_world", counted)
    throws = failed = stood = 0
    for n, state in enumerate(_positions(name, options, 4, seed=len(name) * 7 + 3)):
        if state.trick is not None and state.trick.plays:
            continue
        seat = to_play(state)
        assert seat is not None and state.order is not None
        # the review's alternatives are throws sure to stand; the play made may be any throw
        leads = legal_leads(state, seat, max_throw_units=3)
        several = [lead for lead in leads if len(decompose(list(lead.cards), state.order)) >= 2]
        for lead in several[:3]:
            throw = list(lead.cards)
            got, made = {}, 0
            for flag in (True, False):
                monkeypatch.setattr(rollouts, "BATCH", flag)
                worlds[0] = 0
                got[flag] = rollouts.rollout_samples(state, seat, [list(leads[0].cards), throw],
                                                     8, random.Random(n), endgame=2)
                made = made or worlds[0]
            assert got[True] == got[False], (n, throw)
            throws += 1
            failed += made > 1  # the first deal's world gives the core its position
        position = core_position(state)
        if position is None:
            continue
        known = knowledge(state, seat)
        truth = {o: [c for c in range(54) for _ in range(state.held[o][c])] for o in known.others}
        for lead in several:
            if not lead.stands:  # judged on the true holdings
                continue
            throw = list(lead.cards)
            row = rollouts._core_rows(position, state, known,
                                      [(truth, list(state.kitty))], seat, [throw], 2, None, ())
            trial = clone(state)
            apply_play(trial, seat, throw)
            assert row == [[greedy_value(trial, 2, {}, settler(trial))]], (n, throw)
            stood += 1
    assert throws >= 3 and failed >= 1 and stood >= 1, (throws, failed, stood)


@needs_core
@pytest.mark.parametrize(("name", "options"), RULESETS[:2] + RULESETS[4:6],
                         ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v.values())))
def test_a_decisions_settled_ends_kept_across_its_deals_give_the_same_values(name, options,
                                                                           monkeypatch):
    """The settlements the C core asks for, kept across one decision's deals and calls
    (``ends``, keyed on the kitty's points and the end: the rest is the decision's; an end the
    declarer's side took on its face points alone, a defender's on its cards and not which
    defender; since session 44 a deal's settler made once for its kitty's points, not a world
    dealt for it on every deal), give the values each deal's own settlement gives: the key
    holds everything that decides it."""
    from replay import rollouts
    from replay.candidates import decision_choices

    made = [0]
    dealt = rollouts._dealt_settler

    def counted(*args):  # type: ignore[no-untyped-def]
        made[0] += 1
        return dealt(*args)

    monkeypatch.setattr(rollouts, "_dealt_settler", counted)
    checked, worlds, kept_before = 0, {True: 0, False: 0}, 0
    for n, state in enumerate(_positions(name, options, 2, seed=len(name) + 17)):
        seat = to_play(state)
        assert seat is not None
        choices, _ = decision_choices(state, seat)
        if len(choices) < 2:
            continue
        ends = rollouts.Ends()
        for call in range(2):  # a decision's screen and race: two calls, one table of ends
            before = made[0]
            kept = rollouts.rollout_samples(state, seat, choices[:6], 8, random.Random(n + call),
                                            endgame=2, exact_cards=2, ends=ends)
            worlds[True] += made[0] - before
            before = made[0]
            alone = rollouts.rollout_samples(state, seat, choices[:6], 8,
                                             random.Random(n + call), endgame=2, exact_cards=2)
            worlds[False] += made[0] - before
            assert kept == alone, (n, call)
        # a world dealt a decision at most for each kitty's points its ends needed settled
        assert worlds[True] - kept_before <= len(ends.settlers), n
        kept_before = worlds[True]
        checked += bool(ends.settled)
    assert checked > 3
    assert worlds[True] < worlds[False], worlds


def test_an_edited_source_is_not_shadowed_by_an_old_build(monkeypatch):
    """The build records its source's hash; a different source runs the Python player."""
    from replay import _native

    try:
        from replay import _greedy  # type: ignore[attr-defined]
    except ImportError:
        pytest.skip("the C rollout player is not built")
    monkeypatch.setattr(_native, "_GREEDY", [])
    monkeypatch.setattr(_greedy, "SOURCE_HASH", "0" * 64)
    monkeypatch.delenv("SHENGJI_PURE", raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _native.greedy_core() is None
    assert any("older than replay/_greedy.c" in str(w.message) for w in caught)


def test_the_pure_switches_turn_it_off(monkeypatch):
    from replay import _native

    for name in ("SHENGJI_PURE", "SHENGJI_NATIVE_PLAYOUT"):
        monkeypatch.setattr(_native, "_GREEDY", [])
        monkeypatch.delenv("SHENGJI_PURE", raising=False)
        monkeypatch.setenv(name, "1" if name == "SHENGJI_PURE" else "0")
        assert _native.greedy_core() is None


@needs_core
@pytest.mark.parametrize(("name", "options"), RULESETS[1:3] + RULESETS[4:5],
                         ids=["tractor-2", "tractor-3", "biaofen-3"])
def test_a_follow_that_cannot_win_is_chosen_as_python_chooses_it(name, options):
    """The C player finds the cheapest (or, feeding its side's trick, the richest) follow that
    cannot win without listing the follows (replay/_core_playout.h, unwinnable_follow): a
    multi-card lead followed by a seat short of the led class, or a pair or longer unit led
    to a seat holding none in the class. The same play as the Python player's, which lists
    them, on many such follows of each kind."""
    short = unmatched = 0
    for state in _positions(name, options, 8, seed=31 + len(options)):
        while not state.finished:
            seat = to_play(state)
            assert seat is not None
            trick, order = state.trick, state.order
            assert order is not None
            if trick is not None and trick.plays and trick.lead_size > 1 and not trick.special:
                held = state.class_holding(seat, trick.lead_class)
                count = sum(held.values())
                widths = {u.width for u in trick.lead_units}
                kind = None
                if 0 < count < trick.lead_size:
                    kind = "short"
                elif count and len(trick.lead_units) == 1 and min(widths) >= 2 \
                        and all(n < min(widths) for n in held.values()):
                    kind = "unmatched"
                if kind is not None:
                    found = native_result(clone(state))
                    assert found is not None
                    assert found[0][0] == (seat, list(greedy_play(state, seat)))
                    short += kind == "short"
                    unmatched += kind == "unmatched"
            apply_play(state, seat, greedy_play(state, seat))
    assert short >= 20 and unmatched >= 5
