"""Issue 17: decision review. The exact endgame search against brute force on random small
positions; the reviewer finding a deliberately weak seat's mistakes; every ruleset reviewable."""

from __future__ import annotations

import os
import random
import re
import statistics
from pathlib import Path

import pytest

import replay
from gamelog.cards import CARD_TOKENS
from gamelog.model import FORMAT_VERSION, Hand, HandStart, MatchStart, Setup
from replay.engine import HandReplay
from replay.review import Budget, brute_force, choices, solve

POSITIONS = int(os.environ.get("SHENGJI_REVIEW_POSITIONS", "250"))
"""Random positions per ruleset (four times as many for two-deck tractor; an eighth of it, at
least 30, for each pack of the independent brute force): 250 unless SHENGJI_REVIEW_POSITIONS
says otherwise. ``bench/search_agreement.py`` runs the independent brute force on thousands."""
RULESETS = [("tractor", 4, 2), ("tractor", 4, 1), ("four-deck", 4, 4), ("biaofen", 3, 2),
            ("wanfen", 4, 2)]


def small_position(rng: random.Random, name: str, players: int, decks: int,
                   cards: int) -> HandReplay:
    """A set-up position: ``cards`` random cards a seat, a random kitty of two, trump, level,
    declarer and leader."""
    pack = [c for c in range(54) for _ in range(decks)]
    rng.shuffle(pack)
    holdings = [pack[i * cards:(i + 1) * cards] for i in range(players)]
    kitty = pack[players * cards:players * cards + 2]
    trump = rng.choice(["S", "H", "C", "D", "NT"])
    level = rng.choice(["2", "5", "T", "K"])
    declarer = rng.randrange(players)
    state = set_position(name, players, decks, [[CARD_TOKENS[c] for c in h] for h in holdings],
                         [CARD_TOKENS[c] for c in kitty], trump, level, declarer,
                         rng.randrange(players))
    state.start_play()
    return state


def set_position(name: str, players: int, decks: int, holdings: list[list[str]],
                 kitty: list[str], trump: str, level: str, declarer: int,
                 leader: int) -> HandReplay:
    """A hand set up with these holdings (card tokens), kitty, trump, level, declarer and
    leader (标分 at a contract of 80), replayed up to its first play."""
    rules = replay.get_ruleset(name, players=players, decks=decks)
    events = [
        HandStart(match="p", hand=1, seq=0, dealer=declarer, level=level),
        Setup(match="p", hand=1, seq=1, holdings=holdings, kitty=kitty, trump=trump,
              level=level, declarer=declarer, leader=leader,
              contract=80 if name == "biaofen" else None),
    ]
    header = MatchStart(match="p", hand=0, seq=0, version=FORMAT_VERSION, ruleset=name,
                        players=players, decks=decks)
    state = HandReplay(rules, Hand(match="p", number=1, events=events, header=header))
    for ev in events:
        state.apply(ev)
    return state


@pytest.mark.slow
@pytest.mark.parametrize("name,players,decks", RULESETS)
def test_exact_search_agrees_with_brute_force(name, players, decks):
    rng = random.Random(f"exact:{name}:{decks}")
    checked = 0
    for i in range(POSITIONS * (4 if name == "tractor" and decks == 2 else 1)):
        state = small_position(rng, name, players, decks, cards=1 + i % 3)
        assert solve(state) == brute_force(state), (name, i)
        checked += 1
    assert checked >= POSITIONS


def test_touching_cards_are_merged_only_when_they_play_alike():
    """The exact search tries one of a run of touching equivalent cards (same suit, class and
    points, one copy each, nothing of another seat's or of the trick between): the merge
    happens often on small positions (and the search still agrees with brute force above),
    never keeps a card that differs in points, and keeps every non-single play."""
    from gamelog.cards import Card
    from replay.review import merge_touching

    rng = random.Random(11)
    merged = 0
    for i in range(400):
        state = small_position(rng, "tractor", 4, 2, cards=3 + i % 3)
        seat = state.leader
        plays = choices(state, seat)
        kept = merge_touching(state, seat, plays)
        gone = [p for p in plays if p not in kept]
        merged += bool(gone)
        assert all(len(p) == 1 for p in gone)
        order = state.order
        for (c,) in gone:  # a lower single of the same suit, class and points stays
            assert any(len(k) == 1 and order.klass[k[0]] == order.klass[c]
                       and Card(k[0]).suit == Card(c).suit
                       and state.points_table[k[0]] == state.points_table[c]
                       and order.power[k[0]] < order.power[c] for k in kept)
    assert merged > 40


def test_plays_equivalent_from_the_seats_view_are_worth_the_same_on_every_deal():
    """The review's alternatives are the legal plays up to equivalence from what the seat
    could know (touching singles with nothing unseen or on the table between them): in the
    last tricks of the sample hands, every group of plays the review takes as one has the same
    exact value on deals of the unseen cards consistent with the seat's knowledge, and
    the review lists one of each group (the play made, when it is in one)."""
    import gamelog
    from gamelog.model import Play
    from replay.candidates import decision_choices, equivalence
    from replay.review import apply_play, clone, determinize, to_play

    groups = 0
    for name in ("tractor-1deck", "tractor-2deck"):
        path = Path(__file__).resolve().parents[1] / "samples" / "matches" / f"{name}.jsonl"
        for hand in gamelog.read_hands(path):
            state = HandReplay(replay.ruleset_for(hand.header), hand)
            for ev in hand.events:
                if isinstance(ev, Play) and to_play(state) == ev.seat \
                        and state.pending_forced is None and not state.log.items \
                        and max(sum(h) for h in state.held) <= 4:
                    seat = ev.seat
                    same = equivalence(state, seat)
                    by_key: dict[tuple[int, ...], list[list[int]]] = {}
                    for cards in choices(state, seat):
                        by_key.setdefault(same(cards), []).append(cards)
                    listed, _ = decision_choices(state, seat)
                    assert len({same(c) for c in listed}) == len(listed)
                    rng = random.Random(groups)
                    for group in by_key.values():
                        if len(group) < 2:
                            continue
                        groups += 1
                        for world in (determinize(state, seat, rng) for _ in range(6)):
                            table: dict = {}
                            values = set()
                            for cards in group:
                                trial = clone(world)
                                apply_play(trial, seat, cards)
                                values.add(solve(trial, table))
                            assert len(values) == 1, (name, hand.number, group)
                state.apply(ev)
    assert groups >= 20


def test_touching_singles_merge_only_with_nothing_unseen_between():
    """At one deck a seat's two adjacent ranks of a suit (one copy each, worth the same
    points) are one alternative; at two decks the unseen second copy of either sits level
    with it, and they stay two."""
    from gamelog.cards import Card
    from replay.candidates import equivalence

    rng = random.Random(21)
    merged = 0
    for decks in (1, 2):
        for _ in range(150):
            state = small_position(rng, "tractor", 4, decks, cards=8)
            seat = state.leader
            order = state.order
            same = equivalence(state, seat)
            held = [c for c in range(54) if state.held[seat][c] == 1]
            for a in held:
                for b in held:
                    if a < b and order.klass[a] == order.klass[b] \
                            and Card(a).suit == Card(b).suit \
                            and state.points_table[a] == state.points_table[b] \
                            and abs(order.power[a] - order.power[b]) == 1 \
                            and not any(order.klass[c] == order.klass[a]
                                        and order.power[c] in (order.power[a], order.power[b])
                                        and c not in (a, b) for c in range(54)):
                        if decks == 1:
                            assert same([a]) == same([b])
                            merged += 1
                        else:
                            assert same([a]) != same([b])
    assert merged >= 30


def test_choices_are_distinct_and_legal():
    rng = random.Random(3)
    for _ in range(50):
        state = small_position(rng, "tractor", 4, 2, cards=4)
        seat = state.leader
        found = choices(state, seat)
        assert len({tuple(c) for c in found}) == len(found) >= 1


def test_playing_on_a_clone_leaves_the_original_as_it_was():
    import pickle

    from replay.agents import HeuristicAgent
    from replay.review import apply_play, clone, play_out, to_play

    rng = random.Random(5)
    for name, players, decks in RULESETS:
        state = small_position(rng, name, players, decks, cards=6)
        seat = to_play(state)
        apply_play(state, seat, choices(state, seat)[0])  # a trick in progress
        before = pickle.dumps(state)
        copy = clone(state)
        play_out(copy, [HeuristicAgent(random.Random(1)) for _ in range(players)])
        assert copy.finished and not state.finished
        assert pickle.dumps(state) == before


def test_a_clone_copies_every_attribute_and_shares_no_container():
    """clone copies attribute by attribute (issue 27: ten times cheaper than copy.copy): a
    field added to the state or the match context and not copied fails here."""
    import copy as copy_module
    import dataclasses

    from replay.results import MatchContext
    from replay.review import apply_play, clone, to_play
    from replay.search import _copy_context
    from replay.trick import Trick, _state_of

    shared = {"rules", "hand", "order", "points_table", "tricks", "bombs", "declaration",
              "pending_forced", "outcome", "trump"}  # what play never changes, or immutable

    def same(a, b) -> bool:
        if isinstance(a, Trick):
            return isinstance(b, Trick) and _state_of(a) == _state_of(b)
        return a == b

    rng = random.Random(9)
    for name, players, decks in RULESETS:
        state = small_position(rng, name, players, decks, cards=6)
        seat = to_play(state)
        apply_play(state, seat, choices(state, seat)[0])  # a trick in progress
        state.context.scores = [10, 20]
        state.context.round_declarers = [[1], [2, 3]]
        copied = clone(state)
        assert type(copied) is type(state)
        names = _state_of(state)
        assert set(_state_of(copied)) == set(names)
        for attr, value in names.items():
            got = getattr(copied, attr)
            assert same(got, value), attr
            if isinstance(value, (list, set, dict)) and attr not in shared:
                assert got is not value, attr
                if isinstance(value, list):
                    assert all(x is not y for x, y in zip(got, value, strict=True)
                               if isinstance(x, (list, set, dict))), attr
        assert _state_of(copied.trick) == _state_of(state.trick)
        assert copied.trick.plays is not state.trick.plays
        assert copied.log == state.log and copied.log.items is not state.log.items
    context = MatchContext(levels=["2", "5"], next_dealer=1, accepted_levels=[["2", "3"]],
                           accepted_dealers=[2], round_declarers=[[0], [1, 2]], scores=[5, 6])
    assert {f.name for f in dataclasses.fields(MatchContext)} == {
        "levels", "next_dealer", "accepted_levels", "accepted_dealers", "round_declarers",
        "scores"}  # the fields _copy_context copies
    again = _copy_context(context)
    assert again == copy_module.deepcopy(context)
    assert again.accepted_levels[0] is not context.accepted_levels[0]
    assert again.round_declarers[1] is not context.round_declarers[1]


def _one_deck_hands(match: str, seed: int, hands: int, agents) -> list:  # type: ignore[no-untyped-def]
    """The hands of a simulated one-deck match, ``agents(seat, rng)`` its players, as read
    back from their JSON Lines."""
    import gamelog
    from replay.simulate import simulate_match

    rules = replay.get_ruleset("tractor", players=4, decks=1)
    events = simulate_match(rules, match, seed, hands=hands, agents=agents)
    return [h for m in gamelog.loads(gamelog.dumps(events)) for h in m.hands]


def _weak_match(seed: int, hands: int) -> list:
    from replay.agents import HeuristicAgent, RandomAgent

    return _one_deck_hands(f"weak-{seed}", seed, hands, lambda seat, rng:
                           RandomAgent(rng) if seat == 1 else HeuristicAgent(rng))


def _lookahead_agent():  # type: ignore[no-untyped-def]
    """bench/lookahead.py's agent: the lookahead of the whole hand."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench.lookahead import whole_hand

    return whole_hand


_SESSION_54_RACE = {"small_solo": 1152, "small_exact_solo": 96}
"""One deck's race on a cut as long as until session 55 (half today's): for the tests of whole
matches' accuracies and mistake rates, which no decision on a cut decides (the longer race
doubled their time, 162 -> 324 s for the first below; it is tested on its own:
``test_the_pack_sets_the_rounds_of_an_unresolved_race``)."""


@pytest.mark.slow
def test_a_seat_playing_at_random_reviews_worse_than_the_heuristic_seats():
    """Seat 1 plays random legal plays (one deck, three seeds of six hands, the default
    budget): over the three seeds its accuracy is the lowest, by two points or more, and its
    mistake rate (mistakes and blunders per decision) at least twice the heuristic seats'; in
    two seeds of the three at least its accuracy is below the heuristic seats' mean, and every
    heuristic seat keeps 87 or more (since session 26's agent, seed 2's seat 0 has 87.7: three
    of its leads on the declarer's side marked mistakes, the trumps it did not draw).
    (docs/review.md has the 20-seed runs: over eight hands the random seat's accuracy is the
    lowest in about nine seeds of ten, over sixteen in every one so far, so a test asking it of
    every one of three fixed seeds of six hands fails on changes that do not touch it: seed 2's
    six hands put the random seat within a point of the heuristic seats, above them with
    session 23's thresholds.) The budget is the default but for the searched playouts at six
    cards a seat (``small_deep_cards``: five), which cost two thirds of the time here and
    are tested on their own below, and for the race on a cut (session 54's,
    ``_SESSION_54_RACE``) (session 54, one core: 157 s CPU, the random seat's accuracy
    87.0 against 94.9 or more, its mistake rate 11 times theirs; the default budget 463 s,
    87.2 against 94.6, 7.8 times)."""
    from replay.review import accuracy, review_hands

    by: dict[int, list] = {s: [] for s in range(4)}
    scale = 0.5
    below = 0
    for seed in (1, 2, 3):
        seed_by: dict[int, list] = {s: [] for s in range(4)}
        budget = Budget(seed=seed, declarations=False, small_deep_cards=5, **_SESSION_54_RACE)
        for r in review_hands(iter(_weak_match(seed, 6)), budget=budget, jobs=2):
            scale = r.scale
            for d in r.decisions:
                by[d.seat].append(d)
                seed_by[d.seat].append(d)
        acc = {s: accuracy(ds, scale) or 0.0 for s, ds in seed_by.items()}
        below += acc[1] < (acc[0] + acc[2] + acc[3]) / 3
        assert min(acc[0], acc[2], acc[3]) >= 87, (seed, acc)
    assert below >= 2, below
    assert all(len(ds) > 100 for ds in by.values()), {s: len(ds) for s, ds in by.items()}
    pooled = {s: accuracy(ds, scale) or 0.0 for s, ds in by.items()}
    assert pooled[1] + 2 <= min(pooled[0], pooled[2], pooled[3]), pooled

    def rate(seats: list[int]) -> float:
        ds = [d for s in seats for d in by[s]]
        return sum(d.mark in ("mistake", "blunder") for d in ds) / len(ds)

    assert rate([1]) >= 2 * rate([0, 2, 3]), (rate([1]), rate([0, 2, 3]))


@pytest.mark.slow
def test_the_simulators_seats_are_rarely_marked():
    """Specificity on the simulator's own agent (the heuristic agent, its plays checked, looking
    ahead in the last eight tricks: replay.lookahead): fewer than 5 % of its decisions marked
    (one deck, two seeds of three hands, the default budget; the benchmarks' fresh seeds give
    2-4 % at one deck, and at two 4.6-6.8 % before session 43's check, under 5 % since:
    docs/review.md). The heuristic agent alone is marked about
    three times as often, so the test can fail."""
    from replay.review import review_hands
    from replay.simulate import default_agents

    decisions = marked = 0
    for seed in (11, 12):
        hands = _one_deck_hands(f"sim-{seed}", seed, 3, default_agents)
        for r in review_hands(iter(hands), budget=Budget(seed=seed, declarations=False),
                              jobs=2):
            decisions += len(r.decisions)
            marked += sum(d.mark is not None for d in r.decisions)
    assert decisions > 150, decisions
    assert marked < 0.05 * decisions, (marked, decisions)


@pytest.mark.slow
def test_seats_that_play_as_the_review_judges_are_rarely_marked():
    """Specificity: seats that lead and follow with the play the review's own machinery
    finds best on a small budget (bench/lookahead.py: 48 deals a decision) are marked in
    fewer than 5 % of those decisions (one deck, two seeds of three hands; the benchmark's
    runs give about 1 % at one and two decks: docs/review.md). A review that marked by chance
    (noise charged to the player) or on hindsight would mark many of them."""
    from replay.review import review_hands

    lookahead = _lookahead_agent()
    plays = marked = 0
    for seed in (5, 6):
        hands = _one_deck_hands(f"look-{seed}", seed, 3, lambda seat, rng: lookahead(rng))
        for r in review_hands(iter(hands), budget=Budget(seed=seed, declarations=False),
                              jobs=2):
            for d in r.decisions:
                if d.kind != "bury":  # the burial is the heuristic agent's
                    plays += 1
                    marked += d.mark is not None
    assert plays > 150, plays
    assert marked < 0.05 * plays, (marked, plays)


@pytest.mark.slow
def test_a_seat_playing_at_random_is_the_worst_among_seats_that_play_well():
    """The weak seat among the lookahead agent's seats (one deck, three seeds of three hands):
    its accuracy the lowest in every seed, by a point and a half or more, and its decisions marked
    at least three times as often as theirs (the benchmark's 20 seeds: 16 times, the lowest in
    every seed; against the heuristic agent, whose own weaknesses are marked too, the test
    above asks less)."""
    from replay.agents import RandomAgent
    from replay.review import accuracy, review_hands

    lookahead = _lookahead_agent()
    marked = {True: 0, False: 0}
    counted = {True: 0, False: 0}
    for seed in (7, 8, 9):
        hands = _one_deck_hands(f"weak-look-{seed}", seed, 3, lambda seat, rng:
                                RandomAgent(rng) if seat == 1 else lookahead(rng))
        by: dict[int, list] = {s: [] for s in range(4)}
        scale = 0.5
        # without the six-card deep end, as the test above (its own test covers it): 26 s
        # instead of 101 (session 54: the random seat 87.4-90.0, the others 98.2-99.9)
        budget = Budget(seed=seed, declarations=False, small_deep_cards=5, **_SESSION_54_RACE)
        for r in review_hands(iter(hands), budget=budget, jobs=2):
            scale = r.scale
            for d in r.decisions:
                by[d.seat].append(d)
                counted[d.seat == 1] += 1
                marked[d.seat == 1] += d.mark is not None
        acc = {s: accuracy(ds, scale) or 0.0 for s, ds in by.items()}
        assert acc[1] + 1.5 <= min(acc[0], acc[2], acc[3]), (seed, acc)
    weak_rate = marked[True] / counted[True]
    others_rate = marked[False] / counted[False]
    assert weak_rate >= 3 * others_rate, (weak_rate, others_rate)


@pytest.mark.slow
def test_review_is_deterministic_and_the_same_in_processes():
    from replay.review import Budget, review_hands

    hands = _weak_match(3, 2)
    budget = Budget(samples=3, confirm=6, seed=7)
    one = [[d.to_dict() for d in r.decisions] for r in review_hands(iter(hands), budget=budget)]
    again = [[d.to_dict() for d in r.decisions] for r in review_hands(iter(hands),
                                                                      budget=budget)]
    two = [[d.to_dict() for d in r.decisions] for r in review_hands(iter(hands), budget=budget,
                                                                    jobs=2)]
    assert one == again == two and sum(map(len, one)) > 20


def test_every_alternative_of_a_decision_is_valued_however_many():
    """One-deck follows with 91 and 126 legal plays up to equivalence (hand 1 of the sample,
    trick 4; a lead with 36 in session 42's samples): every one is valued (the screen halves
    them down to the contenders), none left out in card order as the seventeenth and after were
    until session 35, and the play made and the best one are among them."""
    import gamelog
    from replay.review import budget_at, review_hand

    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-1deck.jsonl"
    hand = next(h for h in gamelog.read_hands(path) if h.number == 1)
    review = review_hand(hand, replay.ruleset_for(hand.header), budget=budget_at("quick"))
    many = [d for d in review.decisions if d.considered > 16]
    assert many, [d.considered for d in review.decisions]
    for d in many:
        assert len(d.alternatives) == d.considered and d.grouped is None, (d.considered, d.grouped)
        assert len(d.counts) == d.considered and min(d.counts) >= budget_at("quick").samples
        assert d.best in [cards for cards, _ in d.alternatives]


def test_a_decision_past_the_cap_on_alternatives_says_so():
    """Were a decision to have more alternatives than ``max_alternatives`` (400: never in the
    samples), the JSON's ``grouped`` says how many of how many were valued; here with the cap
    at 5 on the same one-deck hand."""
    import gamelog
    from replay.review import budget_at, review_hand

    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-1deck.jsonl"
    hand = next(h for h in gamelog.read_hands(path) if h.number == 2)
    review = review_hand(hand, replay.ruleset_for(hand.header),
                         budget=budget_at("quick", max_alternatives=5))
    capped = [d for d in review.decisions if d.considered > 5]
    assert capped
    for d in capped:
        assert len(d.alternatives) == 5 and d.grouped, (d.considered, d.grouped)
        assert d.grouped.startswith(f"5 of {d.considered} valued") or "way of choosing" in d.grouped


def test_a_decision_reviewed_alone_gets_the_review_it_gets_in_its_hand():
    """``review_decision`` values one play or burial as ``review_hand`` does, on the decision's
    own draws: alone, in its hand, and with the burial's review left out (which draws no deals
    then), every decision's alternatives, values and mark are the same."""
    import gamelog
    from gamelog.model import Declare, KittyBury, Play
    from replay.engine import HandReplay
    from replay.review import budget_at, review_decision, review_hand

    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-1deck.jsonl"
    hand = next(h for h in gamelog.read_hands(path) if h.number == 3)
    rules = replay.ruleset_for(hand.header)
    quick = budget_at("quick", seed=4)
    whole = review_hand(hand, rules, budget=quick).decisions
    plays_only = review_hand(hand, rules, budget=budget_at("quick", seed=4, bury=False)).decisions

    def key(d):  # type: ignore[no-untyped-def]
        return (d.trick, d.seat, d.kind, d.made, d.alternatives, d.best, d.swing, d.mark)

    state = HandReplay(rules, hand)
    alone, declared = [], 0
    for ev in hand.events:
        if isinstance(ev, (Play, KittyBury)):
            found = review_decision(state, ev, budget=quick)
            if found is not None:
                alone.append(found)
        if isinstance(ev, Declare):
            declared += 1
            with pytest.raises(TypeError, match="plays, burials and bids"):
                review_decision(state, ev, budget=quick)  # type: ignore[arg-type]
        state.apply(ev)
    assert any(d.kind == "bury" for d in whole) and len(whole) > 20 and declared
    assert [key(d) for d in alone] == [key(d) for d in whole]
    assert [key(d) for d in plays_only] == [key(d) for d in whole if d.kind != "bury"]


def test_a_deep_budget_searches_the_playouts_last_tricks_from_the_packs_exact_cards():
    """``Budget.deep_cards``: a decision made with at most that many cards a seat (more than
    ``exact_at``) is valued on playouts searched from ``exact_at`` cards a seat (one trick
    played by the rollout player at five cards, two decks) instead of the last two tricks."""
    import random

    import gamelog
    from gamelog.cards import CARD_BY_TOKEN
    from gamelog.model import Play
    from replay.engine import HandReplay
    from replay.review import budget_at, review_decision
    from replay.rollouts import Ends, most_held, rollout_samples

    deep = budget_at("quick", samples=24, confirm=0, deep_cards=5)
    assert (deep.endgame_at(5, 1.0), deep.endgame_at(6, 1.0), deep.endgame_at(4, 1.0)) == (4, 2, 2)
    assert deep.endgame_at(5, 0.5) == 2  # one deck: solved whole from five cards
    standard, quick, thorough = Budget(), budget_at("quick"), budget_at("thorough")
    # every pack (four decks' points at most), but not 打万分's (its patterns): thorough's too
    assert (standard.endgame_at(5, 1.0), standard.endgame_at(5, 2.0)) == (4, 4)
    assert (standard.endgame_at(5, 1.1, True), thorough.endgame_at(5, 1.1, True)) == (2, 4)
    assert (quick.endgame_at(5, 1.0), thorough.endgame_at(5, 2.0)) == (2, 4)

    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-2deck.jsonl"
    hand = next(h for h in gamelog.read_hands(path) if h.number == 1)
    state = HandReplay(replay.ruleset_for(hand.header), hand)
    differ = checked = 0
    for ev in hand.events:
        if isinstance(ev, Play) and most_held(state) == 5:
            d = review_decision(state, ev, budget=deep, rng=random.Random(3))
            if d is not None:
                plays = [[CARD_BY_TOKEN[t] for t in cards] for cards, _ in d.alternatives]
                for endgame in (4, 2):
                    rows = rollout_samples(state, ev.seat, plays, 24, random.Random(3),
                                           exact_cards=4, endgame=endgame, ends=Ends())
                    means = [sum(r[i] for r in rows) / len(rows) for i in range(len(plays))]
                    if endgame == 4:
                        assert means == pytest.approx([v for _, v in d.alternatives])
                    else:
                        differ += means != pytest.approx([v for _, v in d.alternatives])
                checked += 1
        state.apply(ev)
    assert checked >= 3 and differ >= 1


def test_one_deck_searches_the_playouts_from_six_cards_a_seat_and_marks_what_the_rollouts_miss():
    """``Budget.small_deep_cards``: at one deck, a decision made with six cards a seat is valued
    on playouts searched after one trick (five cards a seat, where each deal is solved whole),
    not played out to the last two tricks. One-deck hand 5, trick 7: seat 3 follows hearts with
    the JH holding the AH. The exact search of each whole deal (both sides playing perfectly)
    finds the AH about 20 points better, a mistake; the rollout player, playing the next four
    tricks by its habits, found it 9 points worse; the standard review marks the JH a mistake."""
    import random
    import statistics

    import gamelog
    from gamelog.cards import CARD_BY_TOKEN
    from gamelog.model import Play
    from replay.review import budget_at, positions, review_decision
    from replay.rollouts import most_held, rollout_samples
    from replay.search import defends

    standard, quick = Budget(), budget_at("quick")
    assert (standard.endgame_at(6, 0.5), standard.endgame_at(7, 0.5)) == (5, 2)
    assert (standard.endgame_at(5, 0.5), quick.endgame_at(6, 0.5)) == (2, 2)
    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-1deck.jsonl"
    state, ev = next((s, e) for h, s, e in positions(gamelog.read_hands(path),
                                                      keep=lambda h: h.number == 5)
                     if isinstance(e, Play) and len(s.tricks) == 6 and e.seat == 3)
    assert most_held(state) == 6 and ev.cards == ["JH"]
    d = review_decision(state, ev, budget=standard)
    assert (d.mark, d.best) == ("mistake", ["AH"])
    rolled = review_decision(state, ev, budget=Budget(small_deep_cards=5))
    assert rolled.mark is None  # the rollouts valued the AH below the JH
    plays = [[CARD_BY_TOKEN["JH"]], [CARD_BY_TOKEN["AH"]]]
    rows = rollout_samples(state, 3, plays, 48, random.Random(1), exact_cards=99)
    sign = 1 if defends(state, 3) else -1
    exact_gain = statistics.fmean(sign * (r[1] - r[0]) for r in rows)
    assert exact_gain >= 11 and abs(exact_gain - d.swing) < 8  # a mistake by the search too


@pytest.mark.parametrize("name", ["tractor-1deck", "tractor-3deck", "four-deck", "biaofen-3p",
                                  "biaofen-4p", "wanfen"])
@pytest.mark.slow
def test_every_ruleset_can_be_reviewed(name):
    """The samples of every ruleset, on a small budget (CI): decisions found, each with the play
    made among its alternatives and a swing that matches its values."""
    import gamelog
    from gamelog.model import Play
    from replay.review import Budget, review_hands

    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / f"{name}.jsonl"
    # the second hand played out (a 标分 declarer may surrender before the first trick)
    number = [h.number for h in gamelog.read_hands(path)
              if any(isinstance(e, Play) for e in h.events)][1]
    reviews = list(review_hands(gamelog.read_hands(path),
                                budget=Budget(samples=2, confirm=2, extend=2),
                                keep=lambda h: h.number == number))
    assert len(reviews) >= 1
    decisions = [d for r in reviews for d in r.decisions]
    assert len(decisions) >= 5, [r.skipped for r in reviews]
    for d in decisions:
        assert d.alternatives[0][0] == d.made and len(d.alternatives) >= 2
        sign = 1 if d.defender else -1
        shown = max(0.0, sign * (d.value_best - d.value_made))
        # exact: the values' difference; sampled: the best play's gain cross-fitted, never
        # above the best's gain on every deal of the race (the values shown)
        if d.exact:
            assert d.estimate == pytest.approx(shown)
        else:
            assert 0.0 <= d.estimate <= shown + 1e-9 and (d.estimate == 0) >= (shown == 0)
        # the swing charged is the estimate less one standard error (issue 23: the noise of
        # the deals is not charged to the player); exact when the deals were enumerated
        assert d.swing == pytest.approx(d.estimate if d.exact
                                        else max(0.0, d.estimate - d.error))
    for c in (c for r in reviews for c in r.declarations):  # trump declarations, where made
        # the choice made first, "nothing (yet)" among the choices: last after a declaration
        # made, first for one never made (made None), then every declaration it could make
        assert c.alternatives[0][0] == c.made and len(c.alternatives) >= 2
        assert c.alternatives[-1][0] is None if c.made is not None \
            else all(a is not None for a, _ in c.alternatives[1:])
        assert c.swing == pytest.approx(0.0 if c.best == c.made
                                        else max(0.0, c.estimate - c.error))


def test_the_review_command(tmp_path):
    import json

    from click.testing import CliRunner

    from shengji.cli import cli

    sample = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-1deck.jsonl"
    args = ["review", str(sample), "--hand", "2-3", "--samples", "2", "--confirm", "2"]
    one = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert one.exit_code == 0, one.output
    hands = [json.loads(line) for line in one.output.splitlines()]
    assert [h["hand"] for h in hands] == [2, 3]
    assert all(h["decisions"] and set(h["accuracy"]) == {"0", "1", "2", "3"} for h in hands)
    for h in hands:  # each seat's accuracy within its interval (issue 23)
        for seat, (low, high) in h["accuracy_interval"].items():
            assert 0 <= low <= h["accuracy"][seat] <= high <= 100
    two = CliRunner().invoke(cli, [*args, "--format", "json", "-j", "2"])
    assert two.exit_code == 0 and two.output == one.output
    text = CliRunner().invoke(cli, args)
    assert text.exit_code == 0 and "accuracy per player over every hand" in text.output
    assert re.search(r"\d+\.\d% \(\d+\.\d-\d+\.\d\) over \d+ decisions", text.output)
    for one_of in ("1 decisions", "1 inaccuracies", "1 mistakes", "1 blunders"):
        assert f" {one_of}" not in text.output  # "1 mistake", not "1 mistakes"
    assert f"match {hands[0]['match']}: accuracy per player" in text.output
    # the marked plays' cards as `shengji show` prints them, or as tokens with --ascii (a
    # two-deck hand: the quick review marks no play of the one-deck sample since session 43)
    two_decks = sample.with_name("tractor-2deck.jsonl")
    quick = ["review", str(two_decks), "--hand", "3", "--level", "quick"]
    played = [line for line in CliRunner().invoke(cli, quick).output.splitlines()
              if " played " in line]
    assert played and all(re.search(r"played .*[♠♥♣♦].*; better ", line) or "LJ" in line
                          or "BJ" in line for line in played), played
    plain = [line for line in CliRunner().invoke(cli, [*quick, "--ascii"]).output.splitlines()
             if " played " in line]
    assert len(plain) == len(played) and not any(re.search("[♠♥♣♦]", line) for line in plain)
    assert all(re.search(r"played ([2-9TJQKA][SHCD]|[LB]J)( |;)", line) for line in plain)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(sample.read_text().replace('"ruleset":"tractor"', '"ruleset":"nonesuch"'))
    result = CliRunner().invoke(cli, ["review", str(bad), "--samples", "1"])
    assert result.exit_code == 0 and "not reviewed" in result.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{oops\n" + sample.read_text())
    result = CliRunner().invoke(cli, [*args, str(broken)])
    assert result.exit_code == 2 and "broken.jsonl" in result.output


@pytest.mark.slow
def test_report_and_export_carry_the_review(tmp_path):
    import json
    import re

    import polars as pl
    from click.testing import CliRunner

    from shengji.cli import cli

    sample = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-1deck.jsonl"
    out = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", str(sample), "-o", str(out), "--hand", "2-3",
                                      "--review", "--review-samples", "2"])
    assert result.exit_code == 0, result.output
    html = out.read_text()
    hands = json.loads(re.search(r'id="sj-hands">(.*?)</script>', html, re.S).group(1))
    assert len(hands) == 2 and all(h["rv"]["d"] and h["rv"]["acc"] for h in hands)
    assert 'id="review-accuracy"' in html
    table = html[html.index('id="review-accuracy"'):]
    table = table[:table.index("</table>")]
    assert len(re.findall(r"\d+\.\d%\s*<small class=\"note\">\(\d+\.\d-\d+\.\d\)", table)) == 4
    tables = {}
    small = sample.parents[1] / "examples" / "tractor-2deck.jsonl"
    for jobs in ("1", "2"):
        result = CliRunner().invoke(cli, ["export", str(small), "-o", str(tmp_path / jobs),
                                          "--review", "--review-samples", "1", "-j", jobs])
        assert result.exit_code == 0, result.output
        tables[jobs] = (tmp_path / jobs / "decisions.parquet").read_bytes()
    assert tables["1"] == tables["2"]
    decisions = pl.read_parquet(tmp_path / "1" / "decisions.parquet")
    hands_table = pl.read_parquet(tmp_path / "1" / "hands.parquet")
    assert decisions.height > 10 * hands_table.height
    assert set(decisions["mark"].drop_nulls().unique()) <= {"inaccuracy", "mistake", "blunder"}
    assert (decisions["swing"] >= 0).all()


def test_the_kitty_burial_is_reviewed():
    import gamelog
    from replay.review import Budget, review_hands

    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-2deck.jsonl"
    reviews = list(review_hands(gamelog.read_hands(path),
                                budget=Budget(samples=2, confirm=2, extend=2),
                                keep=lambda h: h.number == 2))
    burials = [d for r in reviews for d in r.decisions if d.kind == "bury"]
    assert len(burials) == 1
    d = burials[0]
    hand = next(h for h in gamelog.read_hands(path) if h.number == 2)
    buried = next(e for e in hand.events if type(e).__name__ == "KittyBury")
    assert sorted(d.made) == sorted(buried.cards) and d.trick == 0 and not d.defender
    assert len(d.alternatives) >= 3 and all(len(a) == 8 for a, _ in d.alternatives)
    # the declarer's side: fewer defenders' points is better; the swing is the estimate less
    # one standard error, as for a play
    assert d.estimate == pytest.approx(max(0.0, d.value_made - d.value_best))
    assert d.swing == pytest.approx(max(0.0, d.estimate - d.error))


def _auction_state(name: str, number: int):
    """A 标分 sample hand replayed up to its first bid or pass, and that event."""
    import gamelog
    from gamelog.model import Bid, Pass
    from replay.engine import HandReplay

    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / f"{name}.jsonl"
    hand = next(h for h in gamelog.read_hands(path) if h.number == number)
    state = HandReplay(replay.ruleset_for(hand.header), hand)
    for ev in hand.events:
        if isinstance(ev, (Bid, Pass)):
            return state, ev
        state.apply(ev)
    raise AssertionError("no auction")


def test_a_reckless_bid_is_a_blunder_and_the_values_follow_the_settlement():
    """标分: opening at 5 (the defenders may take only 5 points) with an ordinary hand is far
    worse than the opening 80; each bid's value is the seat's settlement by the seed's table
    averaged over the deals, and the estimate is the defenders' points with it declaring."""
    import random

    from gamelog.model import Bid
    from replay.review import Budget, _decide_bid

    state, first = _auction_state("biaofen-4p", 1)
    reckless = Bid(match=first.match, hand=first.hand, seq=first.seq, seat=first.seat, points=5)
    d = _decide_bid(state, reckless, Budget(samples=4), random.Random(1))
    assert d is not None and d.bid == 5 and d.deals == 16
    assert d.mark == "blunder" and d.best is not None and d.best > 5
    values = dict(d.alternatives)
    assert set(values) == set(range(80, 0, -5))  # every legal opening bid; no pass to value
    assert values[80] > values[5] + 4
    # the seed's table: at 5, a defenders' total of 50 or more costs the declarer at least 2
    # 档 from each of the three defenders
    assert d.estimate >= 50 and values[5] <= -6 and d.swing == pytest.approx(
        d.value_best - d.value_made)


@pytest.mark.slow
def test_bids_and_passes_are_reviewed_in_the_command_and_the_export(tmp_path):
    import json

    import polars as pl
    from click.testing import CliRunner

    from shengji.cli import cli

    sample = Path(__file__).resolve().parents[1] / "samples" / "matches" / "biaofen-3p.jsonl"
    result = CliRunner().invoke(cli, ["review", str(sample), "--hand", "3", "--samples", "1",
                                      "--confirm", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    hand = json.loads(result.output)
    kinds = {b["bid"] is None for b in hand["bids"]}
    assert kinds == {True, False}  # bids and passes
    for b in hand["bids"]:
        values = {a["bid"]: a["value"] for a in b["alternatives"]}
        assert b["bid"] in values and b["value_best"] == max(values.values())
    text = CliRunner().invoke(cli, ["review", str(sample), "--hand", "3", "--samples", "1",
                                    "--confirm", "1"])
    assert "auction: " in text.output and "would hold the defenders to about" in text.output
    out = tmp_path / "x"
    result = CliRunner().invoke(cli, ["export", str(sample), "-o", str(out), "--review",
                                      "--review-samples", "1", "--hand", "2-4"])
    assert result.exit_code == 0, result.output
    bids = pl.read_parquet(out / "bids.parquet")
    hands = pl.read_parquet(out / "hands.parquet")
    assert hands.height == 3
    assert bids.height >= hands.height and bids["bid"].null_count() > 0
    assert (bids["swing"] >= 0).all()


def test_a_bid_from_no_seat_is_left_to_the_validator():
    """A record whose auction names a seat that is not at the table is reviewed without a
    crash: that bid is not a decision (the validator reports it)."""
    from gamelog.model import Bid
    from replay.review import review_hand

    state, first = _auction_state("biaofen-3p", 1)
    hand = state.hand
    events = [Bid(match=e.match, hand=e.hand, seq=e.seq, seat=9, points=80)
              if e is first else e for e in hand.events]
    broken = Hand(match=hand.match, number=hand.number, events=events, header=hand.header)
    review = review_hand(broken, replay.ruleset_for(hand.header),
                         budget=Budget(samples=1, confirm=1, bury=False))
    assert all(b.seat != 9 for b in review.bids)


# -- issue 23: every alternative, fair to what the player knew -----------------------------------

_SEQ = __import__("itertools").count(1 << 24)  # the brute force's events, always increasing


def _independent_moves(state: HandReplay, seat: int) -> list[list[int]]:
    """Every play the engine itself accepts from ``seat`` (no new violation): each
    sub-multiset of its holding, of one suit class to lead, of the lead's size to follow.
    Shares nothing with the search's move generator (replay.legal, replay.review.choices)."""
    import itertools

    from gamelog.model import Play
    from replay.review import clone

    order = state.order
    held = [c for c in range(54) for _ in range(state.held[seat][c])]
    trick = state.trick
    sizes = [len(trick.plays[0].cards)] if trick is not None and trick.plays else \
        range(1, len(held) + 1)
    out: set[tuple[int, ...]] = set()
    for n in sizes:
        for combo in set(itertools.combinations(sorted(held), n)):
            if (trick is None or not trick.plays) and len({order.klass[c] for c in combo}) > 1:
                continue
            trial = clone(state)
            before = len(trial.log.items)
            trial.apply(Play(match="p", hand=1, seq=next(_SEQ), seat=seat,
                             cards=[CARD_TOKENS[c] for c in combo]))
            if len(trial.log.items) == before and trial.pending_forced is None:
                out.add(combo)
    return [list(c) for c in sorted(out)]


def _independent_value(state: HandReplay) -> int:
    """The defenders' final points under perfect play, by plain minimax over
    :func:`_independent_moves`, trick ends given as the engine scores them."""
    from gamelog.model import Play, TrickEnd
    from replay.review import clone, defends, final_points, to_play

    if state.finished:
        return final_points(state)
    seat = to_play(state)
    values = []
    for cards in _independent_moves(state, seat):
        child = clone(state)
        child.apply(Play(match="p", hand=1, seq=next(_SEQ), seat=seat,
                         cards=[CARD_TOKENS[c] for c in cards]))
        if child.trick is None and child.tricks:
            t = child.tricks[-1]
            child.apply(TrickEnd(match="p", hand=1, seq=next(_SEQ), trick=t.number,
                                 winner=t.winner if t.winner is not None else 0,
                                 points=t.points))
        values.append(_independent_value(child))
    return max(values) if defends(state, seat) else min(values)


def _throw_position(rng: random.Random, decks: int, cards: int) -> HandReplay:
    """As :func:`small_position` (tractor, four seats), the leader holding three cards of one
    plain suit among its ``cards``."""
    rules = replay.get_ruleset("tractor", players=4, decks=decks)
    pack = [c for c in range(52) for _ in range(decks)] + [52, 53] * decks
    rng.shuffle(pack)
    suit = rng.randrange(4)
    leader = rng.randrange(4)
    mine = [c for c in pack if c // 13 == suit and c < 52][:3]
    for c in mine:
        pack.remove(c)
    holdings = []
    for seat in range(4):
        take = cards - (3 if seat == leader else 0)
        holdings.append((mine if seat == leader else []) + pack[:take])
        pack = pack[take:]
    kitty = pack[:2]
    trump = rng.choice(["S", "H", "C", "D", "NT"])
    level = rng.choice(["2", "5", "T", "K"])
    declarer = rng.randrange(4)
    events = [
        HandStart(match="p", hand=1, seq=0, dealer=declarer, level=level),
        Setup(match="p", hand=1, seq=1, holdings=[[CARD_TOKENS[c] for c in h] for h in holdings],
              kitty=[CARD_TOKENS[c] for c in kitty], trump=trump, level=level,
              declarer=declarer, leader=leader),
    ]
    header = MatchStart(match="p", hand=0, seq=0, version=FORMAT_VERSION, ruleset="tractor",
                        players=4, decks=decks)
    state = HandReplay(rules, Hand(match="p", number=1, events=events, header=header))
    for ev in events:
        state.apply(ev)
    state.start_play()
    return state


@pytest.mark.parametrize("decks", [1, 2, 3])
def test_the_search_agrees_with_an_independent_brute_force_throws_included(decks):
    """Random small positions (1 to 3 cards a seat, a leader with three or four so that throws
    of three and more units occur): the search against minimax over every play the engine
    accepts (not the search's move generator)."""
    rng = random.Random(f"independent:{decks}")
    throws = 0
    for i in range(max(POSITIONS // 8, 30)):
        state = small_position(rng, "tractor", 4, decks, cards=1 + i % 3)
        if i % 2:  # three cards of one suit for the leader: throws become possible
            state = _throw_position(rng, decks, cards=3)
        big = [m for m in _independent_moves(state, state.leader) if len(m) >= 3]
        throws += bool(big)
        assert solve(state) == _independent_value(state), (decks, i)
    assert throws >= 3


def test_a_three_card_throw_is_among_the_searched_leads():
    """Issue 23's example: seat 0 leads ♠A ♠K ♠Q (a throw that stands), seat 1 has one trump
    and no spades: the search must try the throw."""
    holdings = [["AS", "KS", "QS"], ["3H", "4C", "5C"], ["2S", "3S", "4S"], ["6S", "7S", "8S"]]
    state = set_position("tractor", 4, 1, holdings, ["9C", "9D"], "H", "2", 1, 0)
    state.start_play()
    leads = choices(state, 0)
    assert sorted(map(len, leads))[-1] == 3
    assert solve(state) == _independent_value(state)


def test_a_decision_is_valued_only_on_what_the_seat_could_see():
    """The same decision, with the other seats' cards dealt differently (any deal the seat
    could not tell apart), gets the same alternatives, values and mark: the review reads
    only the seat's information (no hindsight, also in the last tricks)."""
    import gamelog
    from gamelog.model import Play
    from replay.review import _decide, determinize, to_play

    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-1deck.jsonl"
    checked = endgame = 0
    budget = Budget(samples=2, confirm=2, extend=0)
    for hand in list(gamelog.read_hands(path))[1:5]:  # until an exact decision is met
        if checked >= 4 and endgame >= 1:
            break
        rules = replay.ruleset_for(hand.header)
        state = HandReplay(rules, hand)
        k = 0
        for ev in hand.events:
            if isinstance(ev, Play) and to_play(state) == ev.seat and state.pending_forced is None:
                if k % 7 == 3 or max(sum(h) for h in state.held) <= 2:
                    other = determinize(state, ev.seat, random.Random(k))
                    a = _decide(state, ev, budget, random.Random(9))
                    b = _decide(other, ev, budget, random.Random(9))
                    assert (a is None) == (b is None)
                    if a is not None:
                        assert a.alternatives == b.alternatives and a.mark == b.mark, k
                        checked += 1
                        endgame += a.exact
                k += 1
            state.apply(ev)
    assert checked >= 4 and endgame >= 1


def test_a_determinized_deal_keeps_counts_voids_and_the_seats_own_cards():
    """determinize: each other seat keeps its number of cards, gets none of a suit it has
    shown void in (it followed a lead with fewer cards of that suit than were led: in a fully
    recorded hand too, where the engine itself records no void) and keeps the cards it showed
    in a declaration and has not played since, the deciding seat's cards
    and the cards played are untouched, the unseen cards are all dealt (the kitty too, unless
    the seat buried it), and a seed decides the deal (with the seat's knowledge read once for
    many deals, too)."""
    import gamelog
    from gamelog.model import Play
    from replay.agents import unseen_by
    from replay.deals import knowledge
    from replay.review import determinize, to_play

    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-2deck.jsonl"
    voids_seen = pinned = 0
    for hand in list(gamelog.read_hands(path))[:3]:
        state = HandReplay(replay.ruleset_for(hand.header), hand)
        for ev in hand.events:
            if isinstance(ev, Play) and to_play(state) == ev.seat and not state.log.items:
                seat = ev.seat
                order = state.order
                assert order is not None
                worlds = [determinize(state, seat, random.Random(k)) for k in (1, 1, 2)]
                assert worlds[0].held == worlds[1].held and worlds[0].kitty == worlds[1].kitty
                # what a decision reads once and shares among its deals: the same deals
                known = knowledge(state, seat)
                for k in (1, 2, 3):
                    shared = determinize(state, seat, random.Random(k), known)
                    alone = determinize(state, seat, random.Random(k))
                    assert (shared.held, shared.kitty) == (alone.held, alone.kitty)
                unseen = unseen_by(state, seat)
                shown = _voids_shown(state)
                declared = _declared_still_held(state)
                pinned += sum(1 for o in range(4) if o != seat and any(declared[o]))
                for world in worlds:
                    assert world.held[seat] == state.held[seat]
                    dealt = [0] * 54
                    for o in range(state.players):
                        if o == seat:
                            continue
                        assert sum(world.held[o]) == sum(state.held[o]) + state.hidden[o]
                        for c in range(54):
                            dealt[c] += world.held[o][c]
                            if world.held[o][c]:
                                assert order.klass[c] not in shown[o]
                            assert world.held[o][c] >= declared[o][c]  # shown, still held
                    if not (seat == state.declarer and state.kitty_buried):
                        for c in world.kitty:
                            dealt[c] += 1
                    assert dealt == unseen
                voids_seen += any(shown[o] for o in range(state.players) if o != seat)
            state.apply(ev)
    assert voids_seen >= 10 and pinned >= 10  # both rules were exercised


def test_consistent_deals_are_every_deal_with_their_weights():
    """In the last tricks of real hands: every deal of the unseen cards that keeps each
    seat's count and shown voids, each once, weights summing to 1, the seat's own cards and
    the cards played untouched."""
    import gamelog
    from gamelog.model import Play
    from replay.review import consistent_deals, to_play

    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-2deck.jsonl"
    found = voids = 0
    for hand in list(gamelog.read_hands(path))[:2]:
        state = HandReplay(replay.ruleset_for(hand.header), hand)
        for ev in hand.events:
            if isinstance(ev, Play) and to_play(state) == ev.seat and \
                    max(sum(h) for h in state.held) <= 3:
                deals = consistent_deals(state, ev.seat, limit=100_000)
                shown = _voids_shown(state)
                declared = _declared_still_held(state)
                if deals is not None:
                    found += 1
                    voids += any(shown[o] for o in range(4) if o != ev.seat)
                    assert abs(sum(w for w, _ in deals) - 1) < 1e-9
                    keys = {(*(tuple(h) for h in world.held), tuple(sorted(world.kitty)))
                            for _, world in deals}
                    assert len(keys) == len(deals)  # each deal once
                    for _, world in deals:
                        assert world.held[ev.seat] == state.held[ev.seat]
                        assert [sum(h) for h in world.held] == [sum(h) for h in state.held]
                        for o in range(4):
                            assert not any(world.held[o][c] for c in range(54)
                                           if state.order.klass[c] in shown[o])
                            assert all(world.held[o][c] >= declared[o][c] for c in range(54))
                    assert any(all(w.held[o] == state.held[o] for o in range(4))
                               for _, w in deals)  # the true deal is one of them
            state.apply(ev)
    assert found >= 4 and voids >= 2


def _declared_still_held(state: HandReplay) -> list[list[int]]:
    """Each seat's cards shown in its declarations (most copies at once) less those played."""
    from gamelog.cards import CARD_BY_TOKEN
    from gamelog.model import Declare

    held = [[0] * 54 for _ in range(state.players)]
    for ev in state.hand.events:
        if isinstance(ev, Declare):
            for t in set(ev.cards):
                c = int(CARD_BY_TOKEN[t])
                held[ev.seat][c] = max(held[ev.seat][c], ev.cards.count(t))
    for t in [*state.tricks, *([state.trick] if state.trick is not None else [])]:
        for p in t.plays:
            for c in p.cards:
                held[p.seat][c] = max(0, held[p.seat][c] - 1)
    return held


def _voids_shown(state: HandReplay) -> list[set[int]]:
    """Each seat's suit classes it followed with fewer cards than were led (written here,
    independently of replay.deals.shown_voids)."""
    order = state.order
    assert order is not None
    shown: list[set[int]] = [set() for _ in range(state.players)]
    for t in [*state.tricks, *([state.trick] if state.trick is not None else [])]:
        for p in t.plays[1:]:
            if sum(order.klass[c] == t.lead_class for c in p.cards) < t.lead_size:
                shown[p.seat].add(t.lead_class)
    return shown


def test_named_levels_set_the_budget_and_review_the_same_decisions():
    """Issue 23: a budget by name; quick reviews every decision standard does (fewer deals
    each), and an explicit --samples overrides the level's."""
    import json

    from click.testing import CliRunner

    from replay.review import budget_at
    from shengji.cli import cli

    assert budget_at("standard") == Budget()
    quick = budget_at("quick")
    assert (quick.samples, quick.confirm) == (3, 9) and quick.samples < Budget().samples
    assert budget_at("thorough", seed=2).samples == 4 * Budget().samples
    assert budget_at("thorough").endgame_at(5, 1.1, True) == 4 > Budget().endgame_at(5, 1.1, True)
    assert budget_at("quick", samples=5, confirm=None).samples == 5
    with pytest.raises(ValueError, match="unknown review level"):
        budget_at("fast")

    sample = Path(__file__).resolve().parents[1] / "samples" / "matches" / "tractor-1deck.jsonl"
    runs = {}
    for level in ("quick", "standard"):
        result = CliRunner().invoke(cli, ["review", str(sample), "--hand", "2", "--level", level,
                                          "--format", "json"])
        assert result.exit_code == 0, result.output
        runs[level] = json.loads(result.output)["decisions"]
    key = [(d["trick"], d["seat"], d["made"]) for d in runs["standard"]]
    assert key and [(d["trick"], d["seat"], d["made"]) for d in runs["quick"]] == key
    bad = CliRunner().invoke(cli, ["review", str(sample), "--level", "fast"])
    assert bad.exit_code == 2 and "fast" in bad.output


# -- the race: how alternatives are screened and a decision settled (issue 23) --------------------

class _Deals:
    """A stand-in for the rollouts: each alternative's value on the n-th deal drawn, from a
    rule ``value(alternative, n)``; counts the deals drawn."""

    def __init__(self, value):  # type: ignore[no-untyped-def]
        self.value, self.drawn = value, 0

    def __call__(self, alternatives, samples):  # type: ignore[no-untyped-def]
        rows = []
        for _ in range(samples):
            rows.append([float(self.value(a[0], self.drawn)) for a in alternatives])
            self.drawn += 1
        return rows


_LONGEST_RACE = 8 * Budget.samples + Budget.confirm * (
    Budget.extend + max(Budget.solo, Budget.small_solo, Budget.large_solo) + 1)
"""More deals than a decision's screen (a few stages of ``samples``) and race draw at the
standard budget: a stand-in's noise is drawn for as many."""


def _judged(deals: _Deals, alternatives: int, scale: float = 1.0,  # type: ignore[no-untyped-def]
            **budget):
    from replay.review import _judge

    return _judge(deals, [[c] for c in range(alternatives)], True, Budget(**budget), scale,
                  False, trick=1, seat=0, kind="follow")


def test_places_left_free_in_the_race_go_to_plays_that_scored_alike():
    """Nine alternatives, but on the screen's 64 deals only four distinct results: plays 1-4
    alike, 5-7 alike, 8, 9. Four take a place each; the four places left free go to the plays
    that scored as a better-ranked one (2, 3, 4, 6), and play 4, which parts from play 1 once
    the race starts (a rare deal the screen did not draw), gains 12 and is found. (Until
    session 35 those places stayed empty and the decision went unmarked.) Eight places, fewer
    than the plays (with sixteen every play would race and the screen would not choose)."""
    screened = 2 * Budget.samples

    def value(a: int, n: int) -> float:
        if n >= screened:
            return 62.0 if a == 4 else 50.0
        return {0: 50.0, 8: 48.0, 9: 47.0}.get(a, 50.0 if a <= 4 else 49.0)

    d = _judged(_Deals(value), 10, contenders=8)
    assert d.best == [CARD_TOKENS[4]] and d.mark == "inaccuracy", (d.best, d.estimate, d.counts)
    assert all(d.counts[i] > screened for i in (1, 2, 3, 4, 5, 6, 8, 9)), d.counts


def test_a_few_deals_on_which_two_plays_scored_alike_never_settle_a_decision():
    """The first 24 deals happen to score the better play as the play made; it gains 12
    points on every later deal. A standard error taken from those 24 identical deals (0) would
    settle the decision unmarked after one round; the floor on the standard error keeps the
    race going until the gain shows, and the decision is marked."""
    deals = _Deals(lambda a, n: 50 + (12 if a == 1 and n >= 8 + 24 else 0))
    d = _judged(deals, 2)
    assert d.best == [CARD_TOKENS[1]] and d.mark == "inaccuracy", (d.best, d.estimate, d.mark)
    assert d.deals > 24


def test_plays_that_score_alike_give_up_their_places_in_the_race():
    """Four plays that score exactly as each other on every deal (cards that are one play in
    effect) rank first on the screen; one of them races, and the other places go to different
    plays, among them the one that gains 12 points once the race starts (three places for
    eight plays)."""
    def value(a: int, n: int) -> int:
        if a == 5:  # a little worse on the screen, 12 better in the race
            return (49.5 if n == 3 else 50) if n < 16 else 62
        return 50 if a <= 4 else 49

    d = _judged(_Deals(value), 9, contenders=3)
    assert d.best == [CARD_TOKENS[5]] and d.mark == "inaccuracy", (d.best, d.estimate)


def _best_hidden_by(crowd: int, best: int):  # type: ignore[no-untyped-def]
    """Values for :class:`_Deals`: alternatives 1 to ``crowd`` score 2 points above the play
    made on the screen's first deals and as it after; alternative ``best`` scores 4 below it
    on the first deals and 12 above after; any other, as the play made."""
    def value(a: int, n: int) -> float:
        first = n < Budget.samples
        if a == best:
            return 46.0 if first else 62.0
        return 52.0 if first and 1 <= a <= crowd else 50.0

    return value


def test_a_play_unlucky_on_the_first_deals_is_ranked_again_before_the_race():
    """Eight alternatives, five places: five plays that are no better than the play made look
    2 points better on the screen's first 32 deals, and the best play (12 points better) looks
    4 worse there. Ranked on those deals alone (as until session 26, with up to ten plays) it
    never raced and the decision went unmarked; a second stage on 32 more deals ranks it first,
    and the decision is marked."""
    d = _judged(_Deals(_best_hidden_by(crowd=5, best=8)), 9, contenders=5)
    assert d.best == [CARD_TOKENS[8]] and d.mark == "inaccuracy", (d.best, d.estimate, d.mark)


def test_plays_that_score_alike_on_the_first_deals_do_not_crowd_out_the_best_one():
    """Sixteen alternatives, twelve of them one play in effect (a throw that every deal forces
    to the same card, say): they score alike, 2 points better than the play made on the first
    32 deals, and the best play (12 better) looks 4 worse there. When each of the twelve took a
    place of its own, the first cut (ten places) kept ten of them and the best play never raced
    (tractor-1deck hand 4, trick 2: a six-card trump throw, ♦10 12 points better, marked with
    one seed and not with another); now they share one place, and the best play is marked."""
    d = _judged(_Deals(_best_hidden_by(crowd=12, best=16)), 17, contenders=5)
    assert d.best == [CARD_TOKENS[16]] and d.mark == "inaccuracy", (d.best, d.estimate, d.mark)


def test_a_race_does_not_end_on_the_lucky_first_deals_of_a_heavy_tailed_gain():
    """The better play gains 30 points on one deal in 20 (1.5 on average: under the 4.5-point
    inaccuracy), but on the race's first round of deals it happens to gain on one in two (15
    ± 2.5, the least error a gain is taken to have on 96 deals). Taken as measured, that error
    would settle the decision at once and mark it; raised on fewer than ``trusted`` deals, it
    keeps the race going until the rare deals show their true rate, and the decision is not
    marked."""

    def value(a: int, n: int) -> float:
        lucky = 32 <= n < 32 + Budget.confirm
        return 50 + 30 * (a == 1 and n % (2 if lucky else 20) == 0)

    hasty = _judged(_Deals(value), 2, trusted=0)
    assert hasty.mark == "inaccuracy" and hasty.deals == Budget.confirm, \
        (hasty.mark, hasty.deals)
    d = _judged(_Deals(value), 2)
    assert d.mark is None and d.deals > Budget.confirm and d.estimate < 5, \
        (d.mark, d.deals, d.estimate)


def test_a_race_does_not_end_on_a_low_stretch_of_a_gain_above_the_cut():
    """The better play gains 6 points a deal on average (± 31: an inaccuracy at two decks),
    but for the race's first 960 deals only 2.4. The race is looked at after every round; at
    two standard errors (the stop of a race's first rounds until session 44) it stopped there,
    the gain two errors under the 4.5-point cut, and the decision went unmarked (two-deck
    hand 3, trick 7 with review seed 268714: 0.7 ± 1.1 after 960 deals, 5.3 on 40 other
    seeds); at 2.5 (``early_resolve``) it goes on, and the decision is marked. Past two
    decks the stop is at 2 as before (``large_resolve``)."""
    start = Budget.samples  # two alternatives: no screening stage, the race from deal 32

    def value(a: int, n: int) -> float:
        mean = 2.4 if n < start + 960 else 6.0
        return 50 + (mean + (31.0 if n % 4 < 2 else -31.0)) * (a == 1)

    hasty = _judged(_Deals(value), 2, early_resolve=2.0)
    assert hasty.mark is None and hasty.deals <= 960, (hasty.mark, hasty.deals)
    d = _judged(_Deals(value), 2)
    assert d.mark == "inaccuracy" and d.deals > 960, (d.mark, d.deals, d.estimate)
    budget = Budget()
    assert budget.resolve_at(1.0, 0) == budget.resolve_at(1.0, budget.extend - 1) == 2.5
    assert budget.resolve_at(2.0, 0) == budget.resolve_at(2.0, budget.extend) == 2.0


def test_a_one_deck_race_does_not_end_on_a_longer_low_stretch():
    """One deck: the better play gains 6 points a deal on average (± 27), but for the race's
    first 1,440 deals only 2.6. A race looked at after every round, stopping two and a half
    standard errors under the cut, stops in that stretch (after 1,344 deals: 2.6 ± 0.74) and
    the decision goes unmarked (one-deck races have up to 408 rounds to find such a stretch in:
    an AD stopped after 2,880 deals at 3.5 ± 0.3 where two other seeds raced 39,264 deals to
    4.7-4.9, session 48); at three (``small_resolve``, since session 49) it goes on, and the
    decision is marked. Every round of a one-deck race stops at three."""
    start = Budget.samples  # two alternatives: no screening stage, the race from deal 32

    def value(a: int, n: int) -> float:
        mean = 2.6 if n < start + 1440 else 6.0
        return 50 + (mean + (27.0 if n % 4 < 2 else -27.0)) * (a == 1)

    hasty = _judged(_Deals(value), 2, 0.5, small_resolve=2.5)
    assert hasty.mark is None and hasty.deals <= 1440, (hasty.mark, hasty.deals)
    d = _judged(_Deals(value), 2, 0.5)
    assert d.mark == "inaccuracy" and d.deals > 1440, (d.mark, d.deals, d.estimate)
    budget = Budget()
    assert budget.resolve_at(0.5, 0) == budget.resolve_at(0.5, budget.extend + 100) == 3.0


def test_a_runner_unlucky_on_its_first_deals_does_not_drop_out_of_the_race():
    """Two contenders: one gains 8 points over the play made on the race's first 288 deals and
    2 after; the other, -1 there and 6 after (an inaccuracy). After those 288 deals the second
    trails the first by 9 points, 3.5 standard errors of their paired difference: at 3 (the
    drop-out as measured, until session 44) it dropped out, the first was read to the end (2
    points) and the decision went unmarked (two-deck hand 15, trick 7 with review seed 877238:
    the 8H at 0.4 against a TH at 6.3 after 192 deals, 5 points better in the full race). The
    drop-out now reads the error raised on fewer than ``trusted`` deals, as the stop does: the
    second stays, leads, and the decision is marked."""
    start = Budget.samples  # three alternatives, sixteen places: no screening stage

    def value(a: int, n: int) -> float:
        early = n < start + 288
        if a == 0:
            return 50.0
        mean = (8.0 if early else 2.0) if a == 1 else (-1.0 if early else 6.0)
        noise = 31.0 if (n % 4 < 2 if a == 1 else n % 4 in (0, 3)) else -31.0
        return 50 + mean + noise

    hasty = _judged(_Deals(value), 3, trusted=0)
    assert hasty.best == [CARD_TOKENS[1]] and hasty.mark is None, (hasty.best, hasty.estimate)
    d = _judged(_Deals(value), 3)
    assert d.best == [CARD_TOKENS[2]] and d.mark == "inaccuracy", (d.best, d.estimate)


def test_the_best_of_several_plays_that_tie_is_not_credited_with_its_luck():
    """Five alternatives each gain 4 points over the play made, with independent noise (20
    points a deal). The largest of their five gains, read on the deals that made it the
    largest, overstates the gain by about 0.4 at the race's end (4.4 on average): a play on
    the inaccuracy's cut would be marked for the luck of the deals. Cross-fitted (each half of
    the deals picks the play read on the other half), the estimate averages 4 over 40 reviews
    of such a decision."""
    def tied(seed: int):  # type: ignore[no-untyped-def]
        rng = random.Random(seed)
        noise: dict[tuple[int, int], float] = {}

        def value(a: int, n: int) -> float:
            if (a, n) not in noise:
                noise[a, n] = rng.gauss(0, 20)
            return 50 + (4.0 + noise[a, n]) * (a >= 1)

        return value

    estimates = [_judged(_Deals(tied(seed)), 6).estimate for seed in range(40)]
    assert 3.8 <= statistics.mean(estimates) <= 4.2, statistics.mean(estimates)


def test_a_decision_far_from_every_threshold_is_settled_early_and_a_near_one_is_not():
    """Resolution, not a fixed count, decides the deals: a play 20 points better than the
    other (every threshold far from the other's gain, even with the first rounds' standard
    error raised) is settled after one round; a gain next to the inaccuracy's threshold (4.5
    points at two decks) is sampled to the budget's end."""
    rng = random.Random(5)
    noise = [rng.gauss(0, 20) for _ in range(_LONGEST_RACE)]
    far = _judged(_Deals(lambda a, n: 50 + (noise[n] - 20) * (a == 1)), 2)
    near = _judged(_Deals(lambda a, n: 50 + (5.0 + noise[n]) * (a == 1)), 2)
    rounds = Budget.confirm, Budget.extend + Budget.solo + 1
    assert far.mark is None and far.deals == rounds[0], far.deals
    assert near.deals == rounds[0] * rounds[1], near.deals


def test_an_unresolved_race_goes_on_with_the_runners_left():
    """A gain on the inaccuracy's cut is still unresolved when the race's ``extend`` rounds are
    spent: the runners still in it go on against the play made (``solo`` more rounds), one
    clearly behind having dropped out where it fell behind; with ``solo`` 0 the decision ends
    there."""
    rng = random.Random(7)
    noise = [(rng.gauss(0, 20), rng.gauss(0, 20), rng.gauss(0, 20)) for _ in range(_LONGEST_RACE)]

    def value(a: int, n: int) -> float:
        return 50 + {0: 0.0, 1: 5.0 + noise[n][0], 2: 4.6 + noise[n][1],
                     3: -3.0 + noise[n][2]}[a]

    raced = Budget.confirm * (Budget.extend + 1)
    d = _judged(_Deals(value), 4)
    assert d.best == [CARD_TOKENS[1]] and raced < d.deals <= raced + Budget.confirm * Budget.solo
    assert d.counts[1] == d.deals and raced < d.counts[2] and d.counts[3] < raced, d.counts
    short = _judged(_Deals(value), 4, solo=0)
    assert short.deals == raced and short.error > d.error


def test_a_runner_that_led_the_race_on_lucky_deals_does_not_decide_the_swing():
    """Two plays stay close through the race's ``extend`` rounds: one that truly gains 3.5
    points (under the 4.5-point inaccuracy) leads there on its lucky first 2,400 deals (6.5 on
    them); the one that gains 5.5 trails by less than three standard errors. Both go on: the
    better one is found, and the decision is marked for it. (Until session 35 the leader after
    those rounds alone went on: here it was read on one more round, and the decision was
    marked for a play whose gain was its luck.)"""
    rng = random.Random(11)
    noise = [(rng.gauss(0, 20), rng.gauss(0, 20)) for _ in range(_LONGEST_RACE)]
    lucky = 32 + Budget.confirm * (Budget.extend + 1)

    def value(a: int, n: int) -> float:
        return 50 + {0: 0.0, 1: (6.5 if n < lucky else 3.5) + noise[n][0],
                     2: 5.5 + noise[n][1]}[a]

    d = _judged(_Deals(value), 3)
    assert d.best == [CARD_TOKENS[2]] and d.mark == "inaccuracy", (d.best, d.estimate, d.counts)
    assert 5.0 <= d.estimate <= 6.5, (d.estimate, d.counts)


def test_the_pack_sets_the_rounds_of_an_unresolved_race():
    """Past two decks (a hand of more than 200 points) a deal costs two to four times as much,
    and an unresolved race goes on for ``large_solo`` rounds, not ``solo``; at one deck a deal
    costs a third as much, and it goes on for ``small_solo`` (as long as two decks' since
    session 51): the same decision on the inaccuracy's cut, every value scaled with the pack,
    is sampled to that end."""
    from replay.marks import LEAST_INACCURACY
    from replay.review import _judge

    rng = random.Random(5)
    noise = [rng.gauss(0, 20) for _ in range(_LONGEST_RACE)]

    def on_the_cut(scale: float, solved: bool = False):  # type: ignore[no-untyped-def]
        # never under the least inaccuracy, and at one deck within a standard error of it after
        # the whole race (223,584 deals since session 55: a gain 0.1 above it was resolved)
        gain = max(5.0 * scale, LEAST_INACCURACY + 0.02)
        deals = _Deals(lambda a, n: 50 * scale + (gain + scale * noise[n]) * (a == 1))
        return _judge(deals, [[0], [1]], True, Budget(), scale, False, trick=1, seat=0,
                      kind="follow", solved=solved)

    assert Budget().solo_rounds(1.0) == Budget.solo and Budget().solo_rounds(2.0) == Budget.large_solo
    assert Budget().solo_rounds(0.5) == Budget.small_solo >= Budget.solo > Budget.large_solo
    assert on_the_cut(0.5).deals == Budget.confirm * (Budget.extend + Budget.small_solo + 1)
    assert on_the_cut(1.0).deals == Budget.confirm * (Budget.extend + Budget.solo + 1)
    assert on_the_cut(2.0).deals == Budget.confirm * (Budget.extend + Budget.large_solo + 1)
    # each deal searched (solved whole, or its playouts searched deep): the searches' rounds,
    # at one deck its own (a search there costs half what it did until session 55)
    assert on_the_cut(0.5, solved=True).deals == \
        Budget.confirm * (Budget.extend + Budget.small_exact_solo + 1)
    assert on_the_cut(1.0, solved=True).deals == \
        Budget.confirm * (Budget.extend + Budget.exact_solo + 1)


def test_without_a_race_the_screen_still_charges_its_noise():
    """``--confirm 0`` skips the race: the swing is then the screen's estimate less its own
    standard error (a gain the same on every deal: the assumed spread's alone), not the raw
    estimate."""
    d = _judged(_Deals(lambda a, n: 50 + 40 * (a == 1)), 2, confirm=0)
    n, weight = Budget.samples, Budget.spread_deals
    assumed = (weight * Budget.spread ** 2 / (n + weight) / n) ** 0.5
    assert d.estimate == 40 and d.error == pytest.approx(assumed)
    assert 0.9 * Budget.spread / n ** 0.5 < d.error < Budget.spread / n ** 0.5
    assert d.swing == pytest.approx(40 - assumed) and d.mark == "mistake"


def test_a_gain_that_varies_little_is_charged_the_error_its_deals_measure():
    """A play 5 points better than the play made on average, with a spread of 8 points a deal
    (a 5 handed over that mostly does not matter): the hard floor of ``spread`` (24) over the
    square root of the deals, as until session 51 (``spread_deals`` 0), kept it on the
    inaccuracy's cut for most of the budget and charged it three times its error; read as its deals
    measure it (pooled with the assumed spread counted as ``spread_deals`` deals), it is settled
    sooner with a smaller error, and marked either way."""
    rng = random.Random(11)
    noise = [rng.gauss(0, 8) for _ in range(_LONGEST_RACE)]

    def value(a: int, n: int) -> float:
        return 50 + (5.0 + noise[n]) * (a == 1)

    pooled, floored = _judged(_Deals(value), 2), _judged(_Deals(value), 2, spread_deals=0)
    assert pooled.deals < floored.deals / 3, (floored.deals, pooled.deals)
    assert floored.error == pytest.approx(Budget.spread / floored.deals ** 0.5)
    measured = 8 / pooled.deals ** 0.5
    assert 0.9 * measured <= pooled.error < 1.3 * measured, (pooled.error, measured)
    assert pooled.error < Budget.spread / pooled.deals ** 0.5
    assert pooled.mark == floored.mark == "inaccuracy"


def test_accuracy_interval_is_the_reviews_noise():
    """Accuracy carries an interval (issue 23): none when every decision is exact, wider with
    larger errors, always around the accuracy and within 0-100; a running tally over hands
    gives the interval of all the decisions at once."""
    from replay.marks import Decision, accuracy, accuracy_interval, accuracy_noise, interval_of

    def decision(swing: float, error: float, exact: bool = False) -> Decision:
        return Decision(trick=1, seat=0, lead=True, kind="lead", made=["AS"], alternatives=[],
                        value_made=0.0, best=["AS"], value_best=0.0, swing=swing, mark=None,
                        defender=True, exact=exact, error=error, estimate=swing + error)

    exact = [decision(0.0, 0.0, True), decision(10.0, 0.0, True)]
    assert accuracy_interval(exact) == (accuracy(exact),) * 2
    narrow = accuracy_interval([decision(10.0, 1.0), decision(0.0, 1.0)])
    wide = accuracy_interval([decision(10.0, 4.0), decision(0.0, 4.0)])
    value = accuracy([decision(10.0, 1.0), decision(0.0, 1.0)])
    assert narrow is not None and wide is not None and value is not None
    assert wide[0] < narrow[0] <= value <= narrow[1] < wide[1] <= 100
    assert accuracy_interval([]) is None
    blunder = accuracy_interval([decision(200.0, 5.0)])  # far past the cap: no doubt left
    assert blunder == (0.0, 0.0)
    many = [decision(float(k % 9), 1.0 + k % 3) for k in range(40)]
    tally = interval_of(accuracy(many) or 0.0, sum(accuracy_noise([d]) for d in many), len(many))
    assert tally == pytest.approx(accuracy_interval(many))


def test_the_thresholds_scale_with_the_pack_and_the_inaccuracy_never_falls_under_a_5s_cost():
    """Inaccuracy, mistake and blunder at 4.5, 22 and 43 points of a two-deck game, scaled by
    the pack's points, but the inaccuracy never under 4.5 points: a 5 handed over costs 3-4.5 in
    expectation whatever the pack, and a 5 given for certain (5.0-5.5, what it changes later
    included) is an inaccuracy in every run, not one run in two as at 5
    (docs/review.md, "Swing, marks and accuracy")."""
    from replay.marks import mark_for, thresholds

    assert dict(thresholds(1.0)) == {"blunder": 43, "mistake": 22, "inaccuracy": 4.5}
    assert dict(thresholds(2.0)) == {"blunder": 86, "mistake": 44, "inaccuracy": 9}
    assert dict(thresholds(0.5)) == {"blunder": 21.5, "mistake": 11, "inaccuracy": 4.5}
    assert mark_for(4.4, 1.0) is None and mark_for(4.5, 1.0) == "inaccuracy"
    assert mark_for(4.4, 0.5) is None and mark_for(4.5, 0.5) == "inaccuracy"
    assert mark_for(21.9, 1.0) == "inaccuracy" and mark_for(22.0, 1.0) == "mistake"
    assert mark_for(11.0, 0.5) == "mistake" and mark_for(43.0, 1.0) == "blunder"


@pytest.mark.parametrize("sample, exact_cards", [("tractor-1deck", 5), ("tractor-2deck", 4)])
def test_a_late_play_is_valued_on_deals_each_solved_exactly_from_the_packs_cards(sample,
                                                                                 exact_cards):
    """At one deck a play made with five cards a seat is valued on deals each solved exactly
    (session 36: the rollout player's values of such plays were a poor guide against the
    search, ``bench/rollout_strength.py``); in larger packs from four cards, and at five one
    trick is played by the rollout player and the rest searched (``Budget.deep_cards``, the
    standard budget's at two decks since session 43). The decision's values are those of its
    deals so valued, drawn from the same stream."""
    import gamelog
    from gamelog.cards import CARD_BY_TOKEN
    from gamelog.model import Play
    from replay.review import _decide, budget_at
    from replay.rollouts import enumerated_deals, most_held, rollout_samples
    from replay.search import to_play

    scale = 0.5 if sample == "tractor-1deck" else 1.0
    assert budget_at().exact_at(scale) == exact_cards
    path = Path(__file__).resolve().parents[1] / "samples" / "matches" / f"{sample}.jsonl"
    budget = budget_at(samples=6, confirm=0)
    checked = 0
    for hand in list(gamelog.read_hands(path))[:6]:
        state = HandReplay(replay.ruleset_for(hand.header), hand)
        for ev in hand.events:
            if isinstance(ev, Play) and most_held(state) == 5 and to_play(state) == ev.seat \
                    and enumerated_deals(state, ev.seat, 5, budget.exact_deals) is None:
                decision = _decide(state, ev, budget, random.Random(1))
                if decision is not None:
                    plays = [[CARD_BY_TOKEN[t] for t in cards] for cards, _ in decision.alternatives]
                    made, other = ([statistics.fmean(r[i] for r in rows)
                                    for i in range(len(plays))]
                                   for rows in (rollout_samples(state, ev.seat, plays, 6,
                                                                random.Random(1),
                                                                exact_cards=cards,
                                                                endgame=budget.endgame_at(5, scale))
                                                for cards in (exact_cards, 9 - exact_cards)))
                    values = [v for _, v in decision.alternatives]
                    assert values == pytest.approx(made), (hand.number, ev, values, made)
                    checked += other != pytest.approx(made)  # where the two ways differ
            state.apply(ev)
            if checked >= 2:
                return
    pytest.fail(f"{checked} decisions with five cards a seat checked in {sample}")


def test_a_best_play_the_screen_ranks_low_still_races():
    """Fifteen alternatives: thirteen gain about 2 points on the play made, one gains 6 but is
    unlucky on the screen's 64 deals (5 points under its due there), ranked under the first
    eight. Every alternative but the play made races (``contenders`` 16): the best is found on
    the race's fresh deals and the decision marked. (With eight contenders, until session 38,
    it was left out of the race and the decision went unmarked: on two-deck hands 1-16, a
    third of the marks one seed gave and another did not.)"""
    rng = random.Random(3)
    noise = [[rng.gauss(0, 20) for _ in range(15)] for _ in range(_LONGEST_RACE)]
    screened = 2 * Budget.samples

    def value(a: int, n: int) -> float:
        gain = 0.0 if a == 0 else 6.0 - 5.0 * (n < screened) if a == 14 else 2.0
        return 50 + gain + noise[n][a] * (a > 0)

    d = _judged(_Deals(value), 15)
    assert d.best == [CARD_TOKENS[14]] and d.mark == "inaccuracy", (d.best, d.estimate)
    eight = _judged(_Deals(value), 15, contenders=8)
    assert eight.best != [CARD_TOKENS[14]] and eight.mark is None, (eight.best, eight.estimate)
