"""bench/marks_pay.py: the duplicate play that checks whether the review's marks pay in play."""

from __future__ import annotations

import replay
from bench import marks_pay
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


def test_the_advised_seats_follow_the_review_where_it_marks():
    marks_pay._start(_settings({"lead", "follow"}, 0))
    told = []
    real = marks_pay._decide

    def spy(state, play, budget, rng):  # type: ignore[no-untyped-def]
        decision = real(state, play, budget, rng)
        if decision is not None:
            told.append(decision)
        return decision

    marks_pay._decide = spy
    try:
        _, reviewed, marked, swing, estimate = marks_pay._deal(5)
    finally:
        marks_pay._decide = real
    assert reviewed == len(told) > 0
    assert marked == sum(d.mark is not None for d in told)
    assert swing == sum(d.swing for d in told if d.mark is not None)
    assert estimate >= swing
