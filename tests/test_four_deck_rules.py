"""Seed 002 (升级四副牌) as tests: its examples, lists and explicit rules, and every rule id of
docs/rules/four-deck.md."""

from __future__ import annotations

import pytest

from gamelog import Rank, Suit, parse_cards
from gamelog.model import Result
from replay import get_ruleset
from replay.rulesets.four_deck import (
    QUAD_ANSWERS,
    QUAD_TRACTOR_ANSWERS,
    four_deck_answers,
    level_steps,
)
from replay.units import decompose
from tests.rulehelp import rules_of
from tests.rulehelp import run as run_any

RULES = get_ruleset("four-deck")


def run(holdings, plays, **kw):
    kw.setdefault("level", "T")
    return run_any(holdings, plays, decks=4, ruleset="four-deck", **kw)


def shape(text, trump=Suit.SPADES, level=Rank.TEN):
    order = RULES.order(trump, level)
    return sorted((u.width, u.length) for u in decompose(list(parse_cards(text)), order))


def test_table_sizes():
    assert RULES.decks == 4 and RULES.kitty_size() == 8 and RULES.hand_size() == 52


def test_card_order_jokers_trump_level_other_level_then_aces():
    report = run(["AS", "TH", "TS", "LJ"], [(0, "AS"), (1, "TH"), (2, "TS"), (3, "LJ")])
    assert report.tricks[0].winner == 3
    report = run(["AS", "TH", "TS", "TD"], [(0, "AS"), (1, "TH"), (2, "TS"), (3, "TD")])
    assert report.tricks[0].winner == 2
    report = run(["TD", "TH", "TC", "AS"], [(0, "TD"), (1, "TH"), (2, "TC"), (3, "AS")])
    assert report.tricks[0].winner == 0  # 副 10s are equal: the first played wins


@pytest.mark.parametrize(("text", "units"), [
    ("AH AH AH AH KH KH KH", [(3, 1), (4, 1)]),          # AAAAKKK = AAAA + KKK, not A + AAAKKK
    ("AH AH AH KH KH KH KH", [(3, 1), (4, 1)]),          # AAAKKKK
    ("JH JH QH QH QH", [(2, 1), (3, 1)]),                # JJQQQ = JJ + QQQ, not JJQQ + Q
    ("4H 4H 5H 5H 5H 5H", [(2, 1), (4, 1)]),             # 445555 = 44 + 5555
    ("AH QH QH QH QH JH JH JH JH", [(1, 1), (4, 2)]),    # AQQQQJJJJ: A + a 连四
    ("9H 8H 8H 8H 8H 4H 4H 4H", [(1, 1), (3, 1), (4, 1)]),  # 98888444
])
def test_identical_cards_always_stay_together(text, units):
    assert shape(text) == units


def forced(others):
    lead = "9H 8H 8H 8H 8H 4H 4H 4H"
    report = run([f"{lead} 2C", *others], [(0, f"fail:{lead}"), (0, "2C")])
    v = [x for x in report.violations if x.rule == "throw.wrong-forced-play"]
    assert v, [str(x) for x in report.violations]
    return v[0].required


def test_98888444_an_outside_J_forces_the_9():
    assert forced(["JH 2D", "3D 4D", "5D 6D"]) == "seat 0 plays ♥9"


@pytest.mark.parametrize("outside", ["QH QH QH QH", "5H 5H 5H"])
def test_98888444_an_outside_QQQQ_or_555_forces_444(outside):  # ruling 2: "44" means 444
    assert forced([outside, "3D 4D", "5D 6D"]) == "seat 0 plays ♥4 ♥4 ♥4"


def test_the_throw_stands_when_nothing_beats_it():
    lead = "9H 8H 8H 8H 8H 4H 4H 4H"
    report = run([lead, "7H 7H 3H 3H 3H 2H 2H 6H", "5D 6D 7D 8D 9D JD QD KD",
                  "5C 6C 7C 8C 9C JC QC KC"],
                 [(0, lead), (1, "7H 7H 3H 3H 3H 2H 2H 6H"), (2, "5D 6D 7D 8D 9D JD QD KD"),
                  (3, "5C 6C 7C 8C 9C JC QC KC")])
    assert rules_of(report) == [] and report.tricks[0].winner == 0


def test_the_seed_lists_are_reproduced_by_the_generator():
    assert four_deck_answers(4, 2) == QUAD_TRACTOR_ANSWERS
    assert four_deck_answers(4, 1) == QUAD_ANSWERS
    assert len(QUAD_TRACTOR_ANSWERS) == 18 and len(QUAD_ANSWERS) == 5


def test_quad_tractor_lead_a_triple_tractor_before_tractor_and_pairs():
    lead = "AH AH AH AH KH KH KH KH"
    holding = "3H 3H 3H 4H 4H 4H 7H 7H 8H 8H 9H 9H"
    report = run([lead, holding, "2C 3C 4C 5C 6C 7C 8C 9C", "2D 3D 4D 5D 6D 7D 8D 9D"],
                 [(0, lead), (1, "7H 7H 8H 8H 9H 9H 3H 4H")])
    assert rules_of(report) == ["follow.quad-tractor-required"]
    report = run([lead, holding, "2C 3C 4C 5C 6C 7C 8C 9C", "2D 3D 4D 5D 6D 7D 8D 9D"],
                 [(0, lead), (1, "3H 3H 3H 4H 4H 4H 9H 7H"), (2, "2C 3C 4C 5C 6C 7C 8C 9C"),
                  (3, "2D 3D 4D 5D 6D 7D 8D 9D")])
    assert rules_of(report) == []


def test_quad_tractor_lead_tractor_with_pairs_before_two_quads():
    lead = "AH AH AH AH KH KH KH KH"
    holding = "3H 3H 3H 3H 5H 5H 5H 5H 8H 8H 9H 9H JH JH"
    report = run([lead, holding, "2C 3C 4C 5C 6C 7C 8C 9C", "2D 3D 4D 5D 6D 7D 8D 9D"],
                 [(0, lead), (1, "3H 3H 3H 3H 5H 5H 5H 5H")])
    assert rules_of(report) == ["follow.quad-tractor-required"]
    report = run([lead, holding, "2C 3C 4C 5C 6C 7C 8C 9C", "2D 3D 4D 5D 6D 7D 8D 9D"],
                 [(0, lead), (1, "8H 8H 9H 9H JH JH 3H 3H"), (2, "2C 3C 4C 5C 6C 7C 8C 9C"),
                  (3, "2D 3D 4D 5D 6D 7D 8D 9D")])
    assert rules_of(report) == []


def test_quad_lead_triple_and_single_before_two_pairs():
    lead = "AH AH AH AH"
    report = run([lead, "3H 3H 3H 5H 5H", "2C 3C 4C 5C", "2D 3D 4D 5D"],
                 [(0, lead), (1, "3H 3H 5H 5H")])
    assert rules_of(report) == ["follow.quad-required"]


def test_quad_lead_two_pairs_from_a_split_quad():  # ruling 46: splitting is allowed
    lead = "AH AH AH AH"
    report = run([lead, "3H 3H 3H 3H", "2C 3C 4C 5C", "2D 3D 4D 5D"],
                 [(0, lead), (1, "3H 3H 3H 3H"), (2, "2C 3C 4C 5C"), (3, "2D 3D 4D 5D")])
    assert rules_of(report) == []


@pytest.mark.parametrize(("lead", "holding", "bad", "rule"), [
    ("AH AH", "3H 3H 5H", "3H 5H", "follow.pair-required"),
    ("AH AH AH", "3H 3H 3H 5H", "3H 3H 5H", "follow.triple-required"),
    ("AH AH KH KH", "3H 3H 4H 4H 9H 9H", "3H 3H 9H 9H", "follow.tractor-required"),
    ("AH AH AH KH KH KH", "3H 3H 3H 4H 4H 4H 9H", "3H 3H 4H 4H 3H 9H",
     "follow.triple-tractor-required"),
])
def test_the_analogous_orders(lead, holding, bad, rule):
    n = len(lead.split())
    fill = [" ".join(f"{r}C" for r in "23456789"[:n]), " ".join(f"{r}D" for r in "23456789"[:n])]
    report = run([lead, holding, *fill], [(0, lead), (1, bad)])
    assert rules_of(report) == [rule]


def test_trumping_needs_every_unit_type_of_the_lead():
    # 「毙牌时所出的牌必须是有该牌型…否则被视为垫牌」: a quad led, two trump pairs are a discard
    report = run(["8H 8H 8H 8H", "3S 3S 5S 5S", "2S 2S 2S 2S", "2D 3D 4D 5D"],
                 [(0, "8H 8H 8H 8H"), (1, "3S 3S 5S 5S"), (2, "2S 2S 2S 2S"),
                  (3, "2D 3D 4D 5D")])
    assert report.tricks[0].winner == 2


def test_several_trumpers_compared_by_the_leads_largest_unit_type():
    lead = "8H 8H 8H 8H 6H"
    report = run([lead, "3S 3S 3S 3S AS", "5S 5S 5S 5S 2S", "2D 3D 4D 5D 6D"],
                 [(0, lead), (1, "3S 3S 3S 3S AS"), (2, "5S 5S 5S 5S 2S"),
                  (3, "2D 3D 4D 5D 6D")])
    assert report.tricks[0].winner == 2  # 5555 over 3333, although seat 1 holds the ace


def declare(decls, kitty=None):
    from gamelog import FORMAT_VERSION, Deal, Hand, HandStart, MatchStart
    from gamelog.model import Declare, TrumpChosen
    from replay import replay_hand

    holdings = [["TS", "TS", "TS", "LJ", "LJ", "BJ"], ["TH", "TH", "BJ", "BJ", "BJ", "LJ"],
                ["TD", "TD", "TD", "TD", "2C", "3C"], ["4D", "5D", "6D", "7D", "8D", "9D"]]
    events = [HandStart(match="d", hand=1, seq=0, level="T", first_draw=0),
              Deal(match="d", hand=1, seq=1, holdings=holdings,
                   kitty=kitty or ["2S", "3S", "4S"])]
    for seat, cards in decls:
        if seat == "trump":
            events.append(TrumpChosen(match="d", hand=1, seq=len(events), trump=cards))
        else:
            events.append(Declare(match="d", hand=1, seq=len(events), seat=seat,
                                  cards=cards.split()))
    header = MatchStart(match="d", hand=0, seq=0, version=FORMAT_VERSION, ruleset="four-deck",
                        players=4, decks=4)
    state_report = replay_hand(Hand(match="d", number=1, events=events, header=header), RULES)
    return [r for r in rules_of(state_report) if not r.startswith("deal.")], state_report


def test_declaration_ladder():
    ok = [(0, "TS"), (1, "TH TH"), (0, "LJ LJ"), (1, "BJ BJ"), (2, "TD TD TD"),
          (1, "BJ BJ BJ"), (2, "TD TD TD TD")]
    assert declare(ok)[0] == []
    assert declare([(1, "BJ BJ"), (0, "LJ LJ")])[0] == ["declare.not-higher"]
    assert declare([(1, "TH TH"), (0, "TS TS")])[0] == ["declare.not-higher"]


def test_single_or_mixed_jokers_declare_nothing():
    assert declare([(0, "LJ")])[0] == ["declare.not-a-step"]
    assert declare([(1, "BJ LJ")])[0] == ["declare.not-a-step"]


def test_reinforce_but_never_override_yourself():
    assert declare([(0, "TS"), (0, "TS TS TS")])[0] == []
    assert declare([(0, "TS"), (0, "LJ LJ")])[0] == ["declare.own-switch"]
    assert declare([(1, "TH TH"), (3, "TH TH TH")])[0] == ["declare.cards-not-held"]


def test_no_declaration_the_kitty_third_card_names_trump():
    rules, report = declare([], kitty=["2S", "3S", "4H"])
    assert rules == [] and report.trump is None  # trump is fixed at the first play
    rules, _ = declare([("trump", "H")], kitty=["2S", "3S", "4H"])
    assert rules == []
    rules, _ = declare([("trump", "S")], kitty=["2S", "3S", "4H"])
    assert rules == ["trump.wrong"]
    rules, _ = declare([("trump", "NT")], kitty=["2S", "3S", "LJ"])
    assert rules == []


@pytest.mark.parametrize(("points", "expected"), [
    (0, (3, True)), (75, (2, True)), (80, (1, True)), (155, (1, True)), (160, (0, None)),
    (235, (0, None)), (240, (1, False)), (320, (2, False)), (400, (3, False)),
    (480, (4, False)), (600, (4, False)),
])
def test_level_table(points, expected):
    assert level_steps(points) == expected


def test_next_dealer_partner_when_declarers_go_up_next_seat_otherwise():
    assert RULES.outcome(100, 0, None, 1, 1).next_dealer == 3
    assert RULES.outcome(200, 0, None, 1, 1).next_dealer == 2
    assert RULES.outcome(250, 0, None, 1, 1).level_change == [1, 0]


@pytest.mark.parametrize(("winning", "multiplier"), [
    ("3S 3S 3S 3S 4S 4S 4S 4S", 32), ("3S 3S 3S 3S", 8), ("3S 3S 3S 4S 4S 4S", 18),
    ("3S 3S 3S", 6), ("3S 3S 4S 4S", 8), ("3S 3S", 4), ("3S", 2),
    ("3S 3S 3S 3S 6S 6S 7S 7S", 8),   # 四张 is read before 连对
])
def test_kitty_multiplier_ruling_43(winning, multiplier):
    order = RULES.order(Suit.SPADES, Rank.TEN)
    assert RULES.kitty_multiplier(decompose(list(parse_cards(winning)), order)) == multiplier


def test_results_are_checked():
    report = run(["3H", "KH", "4H", "5H"], [(0, "3H"), (1, "KH"), (2, "4H"), (3, "5H")],
                 extra=[Result(match="t", hand=1, seq=6, defender_points=15,
                               level_change=[2, 0], next_dealer=2)])
    assert rules_of(report) == []
