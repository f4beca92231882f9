"""The benchmarks that play a deal twice: bench/marks_pay.py (do the review's marks pay in
play?), bench/plant_cost.py (what does a planted bad play cost in play?) and
bench/agent_duel.py (is one agent stronger?); and the planted kinds of bench/review_planted.py
with its ``--plants-only`` mode; bench/review_cpu.py's ``--out``."""

from __future__ import annotations

import replay
from bench import agent_duel, marks_pay, plant_cost, review_planted
from bench.duplicate import side_points
from bench.review_planted import KINDS
from gamelog.cards import CARD_BY_TOKEN, CARD_TOKENS
from gamelog.model import Play
from replay.engine import HandReplay, play_strength
from replay.order import TRUMP
from replay.review import budget_at, review_hands
from replay.trick import voids_shown


def _settings(kinds: set[str], cards: int) -> dict:
    return {"rules": replay.get_ruleset("tractor", players=4, decks=1),
            "budget": budget_at("quick", seed=1, declarations=False), "kinds": kinds,
            "cards": cards}


def test_advice_never_asked_plays_the_simulator_both_ways_alike():
    marks_pay._start(_settings(set(), 0))
    for deal in (3, 4):
        gain, reviewed, marked, swing, estimate = marks_pay._deal(deal)
        assert (gain, reviewed, marked, swing, estimate) == (0.0, 0, 0, 0.0, 0.0)


def test_the_advised_seats_follow_the_review_where_it_marks(monkeypatch):
    marks_pay._start(_settings({"lead", "follow"}, 0))
    told = []
    real = marks_pay.review_decision

    def spy(state, play, *, budget, rng):  # type: ignore[no-untyped-def]
        decision = real(state, play, budget=budget, rng=rng)
        if decision is not None:
            told.append(decision)
        return decision

    monkeypatch.setattr(marks_pay, "review_decision", spy)
    _, reviewed, marked, swing, estimate = marks_pay._deal(5)
    assert reviewed == len(told) > 0
    assert marked == sum(d.mark is not None for d in told)
    assert swing == sum(d.swing for d in told if d.mark is not None)
    assert estimate >= swing


def test_a_plant_is_the_first_difference_between_the_two_plays_of_a_deal():
    """The cost of a plant is the difference of two plays of one deal that agree up to it."""
    plant_cost._start({"rules": replay.get_ruleset("tractor", players=4, decks=1),
                       "kinds": KINDS - {"last"}})  # the last two tricks' kind: slow to find
    found = 0
    for deal in range(6, 10):
        planted: list = []
        planting, clean = plant_cost.play(deal, planted), plant_cost.play(deal, None)
        pairs = list(zip(planting.events, clean.events, strict=False))
        first = next((i for i, (a, b) in enumerate(pairs) if a != b), None)
        if not planted:
            assert first is None and len(planting.events) == len(clean.events)
            continue
        found += 1
        assert first is not None
        differs = planting.events[first]
        assert differs.seat == 1 and type(differs) is type(clean.events[first])
        assert sorted(CARD_BY_TOKEN[t] for t in differs.cards) == planted[0].cards
        cost = side_points(clean, 1) - side_points(planting, 1)
        assert plant_cost._deal(deal) == (planted[0].kind, cost)
    assert found >= 2


def test_no_kind_no_plant():
    plant_cost._start({"rules": replay.get_ruleset("tractor", players=4, decks=1),
                       "kinds": frozenset()})
    assert [plant_cost._deal(deal) for deal in (6, 7)] == [None, None]


def test_the_ace_kind_throws_a_sure_winner_of_another_suit_under_a_ruff():
    """``ace``: seat 1, void in the led side suit that an opponent ruffs, throws the ace of
    another side suit that no opponent has shown void in, while a small card could go."""
    rules = replay.get_ruleset("tractor", players=4, decks=1)
    plant_cost._start({"rules": rules, "kinds": frozenset({"ace"})})
    planted: list = []
    hand = plant_cost.play(253, planted)  # found by trying deals: the plant is rare
    [(kind, _, trick_no, [ace])] = planted
    assert kind == "ace" and CARD_TOKENS[ace][0] == "A"
    state = HandReplay(rules, hand)
    for ev in hand.events:
        if isinstance(ev, Play) and ev.seat == 1 and len(state.tricks) + 1 == trick_no:
            break
        state.apply(ev)
    order, trick = state.order, state.trick
    assert order is not None and trick is not None and trick.plays
    assert [CARD_BY_TOKEN[t] for t in ev.cards] == [ace]
    opponents = [s for s in range(4) if (s in rules.declarer_side(state.declarer))
                 != (1 in rules.declarer_side(state.declarer))]
    led = trick.lead_class
    assert led != TRUMP and trick.lead_kinds == [(1, 1)]
    winner = max(trick.plays, key=lambda p: play_strength(order, led, [(1, 1)], p.cards)
                 or (-1, -1))
    assert winner.seat in opponents and order.klass[winner.cards[0]] == TRUMP
    assert not any(state.held[1][c] for c in order.members[led])  # void: a free throw
    assert order.klass[ace] not in (TRUMP, led)
    voids = voids_shown(order, [*state.tricks, trick], 4)
    assert not any(order.klass[ace] in voids[s] for s in opponents)
    points = rules.points_table()
    assert any(state.held[1][c] and order.klass[c] != TRUMP and not points[c]
               and CARD_TOKENS[c][0] in "23456789" for c in range(54))


def test_plants_only_reviews_each_plant_as_the_whole_hands_review_does():
    """``review_planted.py --plants-only``: a planted decision reviewed alone gets the values
    and the mark it gets in its hand's review."""
    rules = replay.get_ruleset("tractor", players=4, decks=1)
    budget = budget_at("quick", seed=3, declarations=False)
    alone = review_planted.match_plants(rules, 198, 2, "simulator", 48, KINDS - {"last"}, budget)
    assert {k for k, _, _, _ in alone} == {"points", "bury"}  # a play and a burial
    planted: list = []
    hands = review_planted.play_match(
        rules, 198, 2, review_planted.seat_agents("simulator", 48, KINDS - {"last"}, planted))
    assert [(p.kind, p.hand) for p in planted] == [(k, h) for k, h, _, _ in alone]
    whole = {(r.hand, d.trick, tuple(d.made)): d
             for r in review_hands(iter(hands), budget=budget) for d in r.decisions
             if d.seat == 1}
    for kind, hand, d, _ in alone:
        # the plant's own decision, not a play of another hand with its trick and cards
        # (session 48: a lead of hand 1 stood for a follow planted in hand 3)
        assert d.kind == ("bury" if kind == "bury" else "follow")
        assert kind != "points" or not d.defender  # the declarer's side hands points over
        same = whole[(hand, d.trick, tuple(d.made))]
        assert (same.best, same.estimate, same.error, same.mark) == \
            (d.best, d.estimate, d.error, d.mark)


def test_an_agent_duelled_against_itself_gains_nothing_and_against_random_gains():
    """bench/agent_duel.py plays each deal both ways: the same agent on both sides breaks
    even on every deal; the heuristic agent beats random play."""
    rules = replay.get_ruleset("tractor", players=4, decks=1)
    agent_duel._start({"rules": rules, "agent": "heuristic", "against": "heuristic"})
    assert [agent_duel._deal(d) for d in (1, 2)] == [(0.0, 0.0), (0.0, 0.0)]
    agent_duel._start({"rules": rules, "agent": "heuristic", "against": "random"})
    assert sum(agent_duel._deal(d)[0] for d in range(1, 7)) > 0


def test_an_agents_file_that_cannot_be_loaded_is_a_usage_error(tmp_path, capsys):
    """bench/agent_duel.py: an agents file that raises on import, or defines no
    ``HeuristicAgent``, stops the benchmark with exit 2 and a message naming the file."""
    import pytest

    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    for path, said in ((broken, "RuntimeError: boom"), (empty, "no HeuristicAgent")):
        with pytest.raises(SystemExit) as stop:
            agent_duel._agent_from(str(path))
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert str(path) in err and said in err


def test_the_cpu_benchmark_never_overwrites_a_file_it_did_not_write(tmp_path, monkeypatch, capsys):
    """bench/review_cpu.py ``--out`` (and the ``--dump`` of core_speed.py and
    native_agreement.py, through bench/json_out.py): an existing file that is not JSON is
    refused before any work (exit 2, naming it) and left as it was; JSON is written
    atomically."""
    import sys

    import pytest

    from bench import review_cpu

    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    monkeypatch.setattr(sys, "argv", ["review_cpu.py", "--out", str(notes)])
    with pytest.raises(SystemExit) as stop:
        review_cpu.main()
    assert stop.value.code == 2
    assert str(notes) in capsys.readouterr().err and notes.read_text() == "my notes\n"
    marks = tmp_path / "marks.json"
    review_cpu.write_json(marks, [["inaccuracy", 5.0]])
    assert marks.read_text() == '[["inaccuracy", 5.0]]'
    with pytest.raises(SystemExit):
        review_cpu.write_json(notes, [])
    assert notes.read_text() == "my notes\n"
