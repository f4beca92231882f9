"""The benchmarks that play a deal twice: bench/marks_pay.py (do the review's marks pay in
play?) and bench/plant_cost.py (what does a planted bad play cost in play?)."""

from __future__ import annotations

import replay
from bench import marks_pay, plant_cost
from bench.duplicate import side_points
from bench.review_planted import KINDS
from gamelog.cards import CARD_BY_TOKEN
from replay.review import budget_at


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
        assert sorted(CARD_BY_TOKEN[t] for t in differs.cards) == planted[0][2]
        cost = side_points(clean, 1) - side_points(planting, 1)
        assert plant_cost._deal(deal) == (planted[0][0], cost)
    assert found >= 2


def test_no_kind_no_plant():
    plant_cost._start({"rules": replay.get_ruleset("tractor", players=4, decks=1),
                       "kinds": frozenset()})
    assert [plant_cost._deal(deal) for deal in (6, 7)] == [None, None]
