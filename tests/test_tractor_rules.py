"""Seed 001 (拖拉机) as tests: every example and explicit rule of the seed, and every rule id of
docs/rules/tractor.md, each with a hand that breaks it."""

from __future__ import annotations

import pytest

from gamelog import Rank, Suit, parse_cards
from gamelog.model import Declare, KittyBury, KittyTake, Result, TrickEnd
from replay import get_ruleset
from replay.rulesets.tractor import level_steps
from replay.units import decompose
from tests.rulehelp import rules_of, run

SUITS = {"S": Suit.SPADES, "H": Suit.HEARTS, "C": Suit.CLUBS, "D": Suit.DIAMONDS, "NT": None}


def shape(text: str, trump: str = "S", level: str = "5", decks: int = 3):
    rules = get_ruleset("tractor", decks=decks)
    order = rules.order(SUITS[trump], Rank.parse(level))
    return sorted((u.width, u.length) for u in decompose(list(parse_cards(text)), order))


# --- 术语定义: tractor and Titanic, yes and no, at level 5 and in no-trump ---------------------

@pytest.mark.parametrize("text", [
    "3H 3H 4H 4H",            # 3344
    "4H 4H 6H 6H",            # 4466: the level rank 5 is skipped
    "5H 5H 5S 5S",            # 副5副5主5主5 (spades trump)
    "BJ BJ LJ LJ",            # 大王大王小王小王
    "AS AS 5H 5H",            # AA 副5副5 (the trump suit's aces and other-suit level cards)
    "5S 5S LJ LJ",            # 主5主5小王小王
])
def test_tractors_at_level_5(text):
    assert shape(text) == [(2, 2)]


def test_not_a_tractor_5566_at_level_5():
    assert shape("5H 5H 6H 6H", trump="S") == [(2, 1), (2, 1)]


def test_not_a_tractor_5555_in_no_trump():
    assert shape("5H 5H 5S 5S", trump="NT") == [(2, 1), (2, 1)]


def test_no_trump_level_cards_join_the_small_joker():
    assert shape("5H 5H LJ LJ", trump="NT") == [(2, 2)]  # ruling 29


@pytest.mark.parametrize("text", [
    "3H 3H 3H 4H 4H 4H", "4H 4H 4H 6H 6H 6H", "5H 5H 5H 5S 5S 5S", "BJ BJ BJ LJ LJ LJ",
    "AS AS AS 5H 5H 5H", "5S 5S 5S LJ LJ LJ",
])
def test_titanics_at_level_5(text):
    assert shape(text) == [(3, 2)]


def test_not_titanics():
    assert shape("5H 5H 5H 6H 6H 6H") == [(3, 1), (3, 1)]
    assert shape("5H 5H 5H 5S 5S 5S", trump="NT") == [(3, 1), (3, 1)]


def test_identical_cards_stay_together_in_a_throw():
    assert shape("3H 3H 3H 4H 4H", level="2") == [(2, 1), (3, 1)]              # 333 + 44
    assert shape("9H 9H TH TH JH JH JH", level="2") == [(2, 2), (3, 1)]        # 991010 + JJJ
    assert shape("9H 9H 9H TH TH JH JH JH", level="2") == [(2, 1), (3, 1), (3, 1)]


# --- throws: the 3-deck worked examples ----------------------------------------------------------

HOLD = "2C"  # a filler


def throw_case(lead: str, others: list[str], plays: list[tuple[int, str]] | None = None):
    """Seat 0 leads ``lead`` in hearts (spades trump, level 2, 3 decks)."""
    holdings = [lead, *others]
    return run(holdings, plays or [(0, f"fail:{lead}")], decks=3)


def forced_after_fail(lead: str, others: list[str]) -> list[str]:
    """The play the replayer requires after ``lead`` fails."""
    report = run([lead, *others], [(0, f"fail:{lead}"), (0, "2C")], decks=3)
    v = [x for x in report.violations if x.rule == "throw.wrong-forced-play"]
    assert v, report.violations
    return v[0].required


def test_33344_higher_triple_outside_forces_333():
    required = forced_after_fail("3H 3H 3H 4H 4H", ["KH KH KH", "5D", "6D"])
    assert required == "seat 0 plays ♥3 ♥3 ♥3"


def test_33344_higher_pair_and_no_higher_triple_forces_44():
    required = forced_after_fail("3H 3H 3H 4H 4H", ["KH KH", "5D", "6D"])
    assert required == "seat 0 plays ♥4 ♥4"


def test_991010JJJ_bigger_tractor_forces_991010():
    required = forced_after_fail("9H 9H TH TH JH JH JH", ["QH QH KH KH AH AH AH", "5D", "6D"])
    assert required == "seat 0 plays ♥9 ♥9 ♥10 ♥10"


def test_991010JJJ_higher_triple_no_bigger_tractor_forces_JJJ():
    required = forced_after_fail("9H 9H TH TH JH JH JH", ["KH KH KH", "5D", "6D"])
    assert required == "seat 0 plays ♥J ♥J ♥J"


def test_9991010JJJ_higher_triple_forces_999():
    required = forced_after_fail("9H 9H 9H TH TH JH JH JH", ["KH KH KH", "5D", "6D"])
    assert required == "seat 0 plays ♥9 ♥9 ♥9"


def test_9991010JJJ_higher_pair_no_higher_triple_forces_1010():
    required = forced_after_fail("9H 9H 9H TH TH JH JH JH", ["KH KH", "5D", "6D"])
    assert required == "seat 0 plays ♥10 ♥10"


def test_the_right_forced_play_is_clean_and_is_the_lead():
    report = run(["3H 3H 3H 4H 4H 2C", "KH KH KH 6D 7D", "5D 5D 6H 7H 8H", "6C 7C 8C 9C TC"],
                 [(0, "fail:3H 3H 3H 4H 4H"), (0, "3H 3H 3H"), (1, "KH KH KH"),
                  (2, "6H 7H 8H"), (3, "6C 7C 8C")], decks=3)
    assert rules_of(report) == []
    assert report.tricks[0].winner == 1 and report.tricks[0].failed_throw is not None


def test_a_throw_that_stands_is_legal():
    report = run(["AH AH KH 2C", "3H 4H 5H 6D", "7H 8H 9H 6C", "TH JH 3D 7C"],
                 [(0, "AH AH KH"), (1, "3H 4H 5H"), (2, "7H 8H 9H"), (3, "TH JH 3D")])
    assert rules_of(report) == []
    assert report.tricks[0].winner == 0 and report.tricks[0].throw


def test_a_beatable_throw_played_whole_is_flagged_with_the_due_play():
    report = run(["AH KH 2C 3C", "AH 4H 5H 6D", "7H 8H 9H 6C", "TH JH 3D 7C"],
                 [(0, "AH KH"), (1, "4H AH"), (2, "7H 8H"), (3, "TH JH")])
    assert rules_of(report) == ["throw.beatable"]
    v = report.violations[0]
    assert "seat 1 holds ♥A over ♥K" in v.message
    assert v.required == "seat 0 plays only its lowest failing unit ♥K"


def test_partner_can_make_a_throw_fail():  # ruling 3
    report = run(["AH KH 2C 3C", "4H 5H 6H 6D", "AH 8H 9H 6C", "TH JH 3D 7C"],
                 [(0, "AH KH")])
    assert rules_of(report) == ["throw.beatable"]


def test_an_equal_card_does_not_make_a_throw_fail():
    # seat 0 throws ♥A ♥Q holding both ♥A and ♥K; seat 1 has the other ♥Q: equal, not higher
    report = run(["AH AH KH KH QH", "QH 5H 6H 6D 7D", "7H 8H 9H 6C 8C", "TH JH 3D 7C 9C"],
                 [(0, "AH QH")])
    assert rules_of(report) == []


def test_a_failed_throw_with_nothing_to_fail_is_flagged():
    report = run(["AH KH 2C 3C", "4H 5H 6H 6D", "7H 8H 9H 6C", "TH JH 3D 7C"],
                 [(0, "fail:AH KH"), (0, "KH")])
    assert rules_of(report)[0] == "throw.fail-unfounded"


def test_a_wrong_blocker_is_flagged():
    from gamelog import Blocker
    from gamelog.model import ThrowFail

    report = run(["AH KH 2C 3C", "AH 5H 6H 6D", "7H 8H 9H 6C", "TH JH 3D 7C"], [],
                 extra=[ThrowFail(match="t", hand=1, seq=2, seat=0, cards=["AH", "KH"],
                                  blockers=[Blocker(seat=2, cards=["AH"])])])
    assert "throw.blocker-wrong" in rules_of(report)


# --- trumping a multi-unit lead: 「若要杀，主牌中需要有…」 ---------------------------------------

def test_33344_killed_only_by_a_triple_and_a_pair():
    lead = "3H 3H 3H 4H 4H"
    # seat 1 trumps with a triple and a pair; seat 2 with five unpaired trumps: only seat 1 wins
    report = run([lead, "6S 6S 6S 8S 8S", "9S TS JS QS KS", "5D 6D 7D 8D 9D"],
                 [(0, lead), (1, "6S 6S 6S 8S 8S"), (2, "9S TS JS QS KS"), (3, "5D 6D 7D 8D 9D")],
                 decks=3)
    assert report.tricks[0].winner == 1 and report.tricks[0].trumped


def test_991010JJJ_killed_needs_a_tractor_and_a_triple():
    lead = "9H 9H TH TH JH JH JH"
    ok_kill = "3S 3S 4S 4S 7S 7S 7S"
    no_kill = "3S 3S 5S 5S 7S 7S 7S"  # two pairs, not a tractor
    report = run([lead, no_kill, ok_kill, "5D 6D 7D 8D 9D TD JD"],
                 [(0, lead), (1, no_kill), (2, ok_kill), (3, "5D 6D 7D 8D 9D TD JD")], decks=3)
    assert report.tricks[0].winner == 2


def test_9991010JJJ_killed_needs_two_triples_and_a_pair():
    lead = "9H 9H 9H TH TH JH JH JH"
    kill = "3S 3S 3S 6S 6S 8S 8S 8S"
    report = run([lead, kill, "5D 6D 7D 8D 9D TD JD QD", "5C 6C 7C 8C 9C TC JC QC"],
                 [(0, lead), (1, kill), (2, "5D 6D 7D 8D 9D TD JD QD"),
                  (3, "5C 6C 7C 8C 9C TC JC QC")], decks=3)
    assert report.tricks[0].winner == 1


def test_two_trump_singles_do_not_beat_a_pair():
    # 「若首家出包含对的副牌，其它方即使全部出了主牌，但没有对，也不能算大」
    report = run(["7H 7H", "AS KS", "3H 4H", "5D 6D"],
                 [(0, "7H 7H"), (1, "AS KS"), (2, "3H 4H"), (3, "5D 6D")])
    assert report.tricks[0].winner == 0 and not report.tricks[0].trumped


def test_overtrumping_is_compared_on_the_biggest_unit():  # ruling 7
    report = run(["7H 7H 8H", "3S 3S AS", "KS KS 4S", "5D 6D 7D"],
                 [(0, "7H 7H 8H"), (1, "3S 3S AS"), (2, "KS KS 4S"), (3, "5D 6D 7D")])
    assert report.tricks[0].winner == 2  # KK beats 33 although seat 1 has the ace


# --- order and ties ------------------------------------------------------------------------------

def test_other_suit_level_cards_tie_and_the_first_wins():  # ruling 4
    report = run(["2H", "2D", "2C", "3S"], [(0, "2H"), (1, "2D"), (2, "2C"), (3, "3S")],
                 trump="S", level="2")
    assert report.tricks[0].winner == 0


def test_trump_suit_level_card_beats_other_level_cards_and_jokers_beat_all():
    report = run(["2H", "2S", "LJ", "AS"], [(0, "2H"), (1, "2S"), (2, "LJ"), (3, "AS")])
    assert report.tricks[0].winner == 2


def test_level_cards_are_trumps_not_their_suit():  # ruling 5
    # hearts led; seat 1's only heart-printed card is the level card 2H, a trump: it is void
    report = run(["AH", "2H", "KH", "3D"], [(0, "AH"), (1, "2H"), (2, "KH"), (3, "3D")])
    assert rules_of(report) == []
    assert report.tricks[0].winner == 1  # it trumped


# --- following -----------------------------------------------------------------------------------

def test_follow_suit_required():
    report = run(["AH", "3H 3S", "KH", "3D"], [(0, "AH"), (1, "3S")])
    assert rules_of(report) == ["follow.suit-required"]
    assert report.violations[0].required.endswith("held ♥3")


def test_follow_pair_required():
    report = run(["AH AH", "3H 3H 4H 9C", "KH QH", "3D 4D"], [(0, "AH AH"), (1, "3H 4H")])
    assert rules_of(report) == ["follow.pair-required"]


def test_follow_as_many_pairs_as_the_lead_has():  # ruling 6
    report = run(["AH AH KH KH 9H", "3H 3H 5H 5H 8H", "KC", "KD"],
                 [(0, "AH AH KH KH 9H")])  # a tractor + single: a legal standing throw
    assert rules_of(report) == []
    report = run(["AH AH QH QH 9H", "3H 3H 5H 5H 8H", "KC KC KC KC KC", "KD KD KD KD KD"],
                 [(0, "AH AH QH QH 9H"), (1, "3H 3H 5H 8H 9H")], decks=3)
    assert "follow.pair-required" in rules_of(report)


def test_follow_tractor_required():
    report = run(["AH AH KH KH", "3H 3H 4H 4H 9H 9H", "2C 3C 4C 5C", "2D 3D 4D 5D"],
                 [(0, "AH AH KH KH"), (1, "3H 3H 9H 9H")])
    assert rules_of(report) == ["follow.tractor-required"]


def test_two_pairs_are_enough_without_a_tractor():
    report = run(["AH AH KH KH", "3H 3H 6H 6H 9H 9H", "4C 3C 4D 5C", "2D 3D 4D 5D"],
                 [(0, "AH AH KH KH"), (1, "3H 3H 9H 9H"), (2, "4C 3C 4D 5C"), (3, "2D 3D 4D 5D")])
    assert rules_of(report) == []


def test_follow_triple_required_with_three_decks():
    report = run(["AH AH AH", "3H 3H 3H 4H", "5C 6C 7C", "5D 6D 7D"],
                 [(0, "AH AH AH"), (1, "3H 3H 4H")], decks=3)
    assert rules_of(report) == ["follow.triple-required"]


def test_titanic_list_two_triples_before_a_tractor():
    lead = "QH QH QH KH KH KH"
    report = run([lead, "3H 3H 3H 7H 7H 7H 8H 8H 9H 9H", "5C 6C 7C 8C 9C TC",
                  "5D 6D 7D 8D 9D TD"],
                 [(0, lead), (1, "7H 7H 8H 8H 9H 9H")], decks=3)
    assert rules_of(report) == ["follow.titanic-required"]
    report = run([lead, "3H 3H 3H 7H 7H 7H 8H 8H 9H 9H", "5C 6C 7C 8C 9C TC",
                  "5D 6D 7D 8D 9D TD"],
                 [(0, lead), (1, "3H 3H 3H 7H 7H 7H"), (2, "5C 6C 7C 8C 9C TC"),
                  (3, "5D 6D 7D 8D 9D TD")], decks=3)
    assert rules_of(report) == []


def test_titanic_list_tractor_before_triple_and_pair():
    lead = "QH QH QH KH KH KH"
    holding = "3H 3H 3H 7H 7H 8H 8H 9H"
    report = run([lead, holding, "5C 6C 7C 8C 9C TC", "5D 6D 7D 8D 9D TD"],
                 [(0, lead), (1, "3H 3H 3H 7H 7H 9H")], decks=3)
    assert rules_of(report) == ["follow.titanic-required"]
    report = run([lead, holding, "5C 6C 7C 8C 9C TC", "5D 6D 7D 8D 9D TD"],
                 [(0, lead), (1, "7H 7H 8H 8H 3H 9H"), (2, "5C 6C 7C 8C 9C TC"),
                  (3, "5D 6D 7D 8D 9D TD")], decks=3)
    assert rules_of(report) == []


def test_revoke_is_caught_with_hidden_cards():
    report = run(["AH KH", "? ?", "QH JH", "3D 4D"],
                 [(0, "AH"), (1, "5D"), (2, "QH"), (3, "3D"), (0, "KH"), (1, "9H")])
    assert rules_of(report) == ["follow.revoke"]


def test_wrong_count_and_out_of_turn_and_card_not_held():
    report = run(["AH KH", "3H 4H", "QH JH", "3D 4D"], [(0, "AH"), (1, "3H 4H")])
    assert rules_of(report) == ["play.wrong-count"]
    report = run(["AH KH", "3H 4H", "QH JH", "3D 4D"], [(1, "3H")])
    assert rules_of(report) == ["play.out-of-turn"]
    report = run(["AH KH", "3H 4H", "QH JH", "3D 4D"], [(0, "AS")])
    assert rules_of(report) == ["play.card-not-held"]


def test_mixed_suit_lead():
    report = run(["AH KS", "3H 4H", "QH JH", "3D 4D"], [(0, "AH KS")])
    assert "lead.mixed-suits" in rules_of(report)


# --- scoring ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("winning", "multiplier"), [
    ("3S 3S 3S 4S 4S 4S", 2 * 3 ** 2),   # Titanic of 2: 2·3^len
    ("3S 3S 3S 4S 4S 4S 8S 8S 8S", 2 * 3 ** 2),  # 3-4 a Titanic, 8 apart (level 5 skipped)
    ("3S 3S 3S", 6),                     # 三对 (triple)
    ("3S 3S 4S 4S", 8),                  # tractor of 2: 2·2^2
    ("3S 3S 4S 4S 6S 6S", 16),           # tractor of 3 (the level 5 is skipped): 2·2^3
    ("3S 3S", 4),                        # 两对 (pair)
    ("3S", 2),                           # nothing
    ("3S 3S 3S 7S 7S 8S 8S", 6),         # a triple comes before a tractor (ruling 31)
])
def test_kitty_multiplier(winning, multiplier):
    rules = get_ruleset("tractor", decks=3)
    order = rules.order(Suit.SPADES, Rank.FIVE)
    assert rules.kitty_multiplier(decompose(list(parse_cards(winning)), order)) == multiplier


@pytest.mark.parametrize(("decks", "points", "expected"), [
    (1, 0, (2, True)), (1, 35, (1, True)), (1, 40, (0, None)), (1, 75, (0, None)),
    (1, 80, (1, False)), (1, 95, (1, False)), (1, 100, (2, False)), (1, 130, (2, False)),
    (2, 0, (3, True)), (2, 35, (2, True)), (2, 40, (1, True)), (2, 75, (1, True)),
    (2, 80, (1, False)), (2, 115, (1, False)), (2, 120, (2, False)), (2, 160, (3, False)),
    (2, 200, (4, False)),
    (3, 0, (3, True)), (3, 55, (2, True)), (3, 60, (1, True)), (3, 115, (1, True)),
    (3, 120, (0, False)), (3, 180, (1, False)), (3, 240, (2, False)), (3, 300, (3, False)),
])
def test_level_tables(decks, points, expected):
    assert level_steps(decks, points) == expected


def test_defenders_win_the_last_trick_and_double_the_kitty():
    # a one-trick hand: the kitty holds 10 points, defenders take the last trick with a single
    events = [KittyTake(match="t", hand=1, seq=2, seat=0, cards=[]),
              ]
    del events
    report = run(["3H", "AH", "4H", "5H"], [(0, "3H"), (1, "AH"), (2, "4H"), (3, "5H")],
                 extra=[Result(match="t", hand=1, seq=6, defender_points=5, kitty_multiplier=2)])
    assert report.complete
    assert report.outcome.defender_points == 5  # no kitty in a set-up
    assert report.outcome.kitty_multiplier == 2
    assert rules_of(report) == []


def test_result_mismatches_are_each_reported():
    report = run(["3H", "KH", "4H", "5H"], [(0, "3H"), (1, "KH"), (2, "4H"), (3, "5H")],
                 extra=[TrickEnd(match="t", hand=1, seq=6, trick=2, winner=0, points=5),
                        Result(match="t", hand=1, seq=7, defender_points=10, kitty_points=5,
                               kitty_multiplier=4, level_change=[3, 0], next_dealer=1)])
    assert rules_of(report) == [
        "result.trick-number-mismatch", "result.winner-mismatch", "result.trick-points-mismatch",
        "result.points-mismatch", "result.kitty-points-mismatch", "result.multiplier-mismatch",
        "result.level-change-mismatch", "result.next-dealer-mismatch"]


# --- declarations ------------------------------------------------------------------------------------

def declare_case(decls, decks=2, deal=None):
    from gamelog import FORMAT_VERSION, Deal, Hand, HandStart, MatchStart
    from replay import replay_hand

    deal = deal or [["2S", "2S", "2H", "BJ", "BJ"], ["2D", "2D", "LJ", "LJ", "3C"],
                    ["2C", "2C", "2C", "4C", "5C"], ["3D", "4D", "5D", "6D", "7D"]]
    events = [HandStart(match="d", hand=1, seq=0, level="2", first_draw=0),
              Deal(match="d", hand=1, seq=1, holdings=deal)]
    for seat, cards, drawn in decls:
        events.append(Declare(match="d", hand=1, seq=len(events), seat=seat,
                              cards=cards.split(), drawn=drawn))
    header = MatchStart(match="d", hand=0, seq=0, version=FORMAT_VERSION, ruleset="tractor",
                        players=4, decks=decks)
    report = replay_hand(Hand(match="d", number=1, events=events, header=header),
                         get_ruleset("tractor", decks=decks))
    return [r for r in rules_of(report) if r != "deal.card-count" and r != "deal.not-a-deck"], report


def test_declaration_ladder_two_decks():
    assert declare_case([(0, "2S", None), (1, "2D 2D", None), (0, "BJ BJ", None)])[0] == []
    assert declare_case([(1, "2D 2D", None), (0, "2S", None)])[0] == ["declare.not-higher"]
    assert declare_case([(1, "2D", None), (0, "2S", None)])[0] == ["declare.not-higher"]


def test_declaration_ladder_three_decks():
    rules, _ = declare_case([(0, "2S", None), (1, "LJ LJ", None), (2, "2C 2C 2C", None)], decks=3)
    assert rules == []
    rules, _ = declare_case([(2, "2C 2C 2C", None), (1, "LJ LJ", None)], decks=3)
    assert rules == ["declare.not-higher"]


def test_the_declaration_that_stands_makes_the_first_dealer():  # ruling 33c
    _, report = declare_case([(1, "2D", None), (0, "2S 2S", None)])
    assert report.dealer == 0 and report.declarer == 0 and report.trump == "S"
    _, report = declare_case([(1, "2D", None)])
    assert report.dealer == 1


def test_declaration_needs_the_cards_at_that_moment():
    # seat 0 draws 2S, 2S, 2H, BJ, BJ as cards 1, 5, 9, 13, 17 of the deal
    assert declare_case([(0, "2S 2S", 4)])[0] == ["declare.cards-not-held"]
    assert declare_case([(0, "2S 2S", 5)])[0] == []
    assert declare_case([(0, "3S", None)])[0] == ["declare.not-a-step"]
    assert declare_case([(0, "BJ", None)])[0] == ["declare.not-a-step"]


def test_one_deck_first_declaration_stands():
    deal = [["2S", "3S"], ["2D", "3D"], ["4S", "4D"], ["5S", "5D"]]
    assert declare_case([(0, "2S", None), (1, "2D", None)], decks=1, deal=deal)[0] == \
        ["declare.not-higher"]


def test_own_declaration_may_be_reinforced_but_not_switched():  # ruling 37
    assert declare_case([(0, "2S", None), (0, "2S 2S", None)])[0] == []
    assert declare_case([(0, "2S", None), (0, "BJ BJ", None)])[0] == ["declare.own-switch"]


# --- kitty ------------------------------------------------------------------------------------------

def test_kitty_rules():
    from gamelog import FORMAT_VERSION, Deal, Hand, HandStart, MatchStart, Play
    from gamelog.cards import full_deck, tokens
    from replay import replay_hand

    deck = tokens(full_deck(1))
    holdings = [deck[i * 12:(i + 1) * 12] for i in range(4)]
    kitty = deck[48:]
    base = [HandStart(match="k", hand=1, seq=0, dealer=0, level="2", first_draw=0),
            Deal(match="k", hand=1, seq=1, holdings=holdings, kitty=kitty),
            Declare(match="k", hand=1, seq=2, seat=0, cards=["2S"], drawn=1)]

    def check(extra):
        events = base + [type(e)(**{**{f: getattr(e, f) for f in e.__struct_fields__},
                                    "seq": 3 + i}) for i, e in enumerate(extra)]
        header = MatchStart(match="k", hand=0, seq=0, version=FORMAT_VERSION,
                            ruleset="tractor", players=4, decks=1)
        return rules_of(replay_hand(Hand(match="k", number=1, events=events, header=header),
                                    get_ruleset("tractor", decks=1)))

    take = KittyTake(match="k", hand=1, seq=0, seat=0, cards=kitty)
    bury = KittyBury(match="k", hand=1, seq=0, seat=0, cards=holdings[0][:6])
    assert check([take, bury]) == []
    assert check([KittyTake(match="k", hand=1, seq=0, seat=1, cards=kitty), bury]) == \
        ["kitty.wrong-seat"]
    assert check([KittyTake(match="k", hand=1, seq=0, seat=0, cards=[*kitty[:5], "AS"]),
                  bury])[0] == "kitty.take-mismatch"
    assert check([take, KittyBury(match="k", hand=1, seq=0, seat=0,
                                  cards=holdings[0][:5])]) == ["kitty.wrong-size"]
    assert check([take, KittyBury(match="k", hand=1, seq=0, seat=0,
                                  cards=holdings[1][:6])]) == ["kitty.bury-not-held"]
    assert check([take, Play(match="k", hand=1, seq=0, seat=0, cards=["2S"])]) == \
        ["kitty.not-buried"]


def test_auction_and_surrender_do_not_exist_in_tractor():
    from gamelog import Bid, Surrender

    report = run(["AH", "KH", "QH", "JH"], [],
                 extra=[Bid(match="t", hand=1, seq=2, seat=0, points=80),
                        Surrender(match="t", hand=1, seq=3, seat=0)])
    assert rules_of(report) == ["auction.not-allowed", "surrender.not-allowed"]


def test_step_by_step_replay_yields_the_state_after_every_event():
    from gamelog import FORMAT_VERSION, Hand, MatchStart
    from replay import steps
    from tests.rulehelp import add_plays, position

    events = add_plays(position(["AH KH", "3H 4H", "QH JH", "3D 4D"]),
                       [(0, "AH"), (1, "3H"), (2, "QH"), (3, "3D")])
    header = MatchStart(match="t", hand=0, seq=0, version=FORMAT_VERSION, ruleset="tractor",
                        players=4, decks=2)
    seen = []
    for ev, state in steps(Hand(match="t", number=1, events=events, header=header),
                           get_ruleset("tractor")):
        seen.append((ev.seq, state.cards_left(0), len(state.tricks), state.leader))
    assert seen[-1] == (5, 1, 1, 0)
    assert seen[2][1] == 1 and seen[2][2] == 0  # after the lead: seat 0 has one card left


def test_multi_unit_lead_answers_are_fixed_jointly_not_greedily():
    # A throw of a tractor and a triple (3 decks). The follower holds 333 55 88: the best it can
    # show is two pairs (55, 88) for the tractor AND the triple 333. Taking the lowest pairs
    # first (33 out of 333, then 55) would hide the triple.
    lead = "KH KH AH AH 9H 9H 9H"
    holding = "3H 3H 3H 5H 5H 8H 8H"
    others = ["2C 3C 4C 5C 6C 7C 8C", "2D 3D 4D 5D 6D 7D 8D"]
    report = run([lead, holding, *others], [(0, lead), (1, "3H 3H 5H 5H 8H 8H 3H")], decks=3)
    assert rules_of(report) == []  # the same cards: 33 + 55 + 88 + 3 shows 55, 88 and 333
    report = run([lead, holding + " 6H", *others],
                 [(0, lead), (1, "3H 3H 5H 5H 8H 8H 6H")], decks=3)
    assert rules_of(report) == ["follow.triple-required"]


def test_an_event_naming_a_seat_that_does_not_exist_is_reported_and_skipped():
    report = run(["AH", "KH", "QH", "JH"], [(7, "AH"), (0, "AH"), (1, "KH"), (2, "QH"),
                                            (3, "JH")])
    assert rules_of(report) == ["event.no-such-seat"]
    assert report.complete and report.tricks[0].winner == 0


def test_failed_throw_beatable_only_by_hidden_cards_is_accepted_with_a_notice():
    """Found by the robustness property test: no known holding beats the throw and no blocker
    is named, but a seat with hidden cards could; the replay must not crash, and the forced
    play after it is not checked."""
    report = run(["5H 7H KD", "4D 5D 6D", "7D 8D 9D", "? ? ?"],
                 [(0, "fail:5H 7H"), (0, "5H"), (1, "4D"), (2, "7D"), (3, "AH")], trump="S")
    assert "throw.fail-unfounded" not in rules_of(report)
    assert "throw.wrong-forced-play" not in rules_of(report)
    assert any("forced play is not checked" in n.message for n in report.notices)
    assert report.tricks[0].failed_throw is not None
