"""Seed 003 (标分) as tests: the auction, permanent trumps, tractors, throws, the kitty, surrender,
the settlement arithmetic for 3 and 4 players, rounds of six, zero sums; every rule id of
docs/rules/biaofen.md."""

from __future__ import annotations

import pytest

from gamelog import FORMAT_VERSION, Bid, Hand, HandStart, MatchStart, Pass, Rank, Suit, parse_cards
from gamelog.model import Deal, Declare, Event, KittyBury, KittyTake, Play, Result, Surrender, TrumpChosen
from replay import get_ruleset, replay_hand, validate_hands
from replay.rulesets.biaofen import round_settlement, settlement_per_defender
from replay.units import decompose
from tests.rulehelp import rules_of
from tests.rulehelp import run as run_any

R4 = get_ruleset("biaofen", players=4)
R3 = get_ruleset("biaofen", players=3)


def run(holdings, plays, **kw):
    kw.setdefault("trump", "S")
    return run_any(holdings, plays, ruleset="biaofen", decks=2, **kw)


def shape(text: str, trump=Suit.SPADES):
    order = R4.order(trump, None)
    return sorted((u.width, u.length) for u in decompose(list(parse_cards(text)), order))


def test_table_sizes():
    assert (R4.hand_size(), R3.hand_size(), R4.kitty_size()) == (24, 32, 12)


def test_permanent_trumps_order():
    # 大王、小王、正2、副2、A、K…: with spades trump, ♥2 beats ♠A; ♠2 beats ♥2; jokers beat all
    report = run(["AS", "2H", "2S", "3D"], [(0, "AS"), (1, "2H"), (2, "2S"), (3, "3D")])
    assert report.tricks[0].winner == 2
    report = run(["2H", "2D", "AD", "3C"], [(0, "2H"), (1, "2D"), (2, "AD"), (3, "3C")])
    assert report.tricks[0].winner == 0  # the off-suit 2s are equal: first played
    # 「若是不同花色的单牌，主牌又要大于副牌」
    report = run(["AH", "3S", "KH", "QH"], [(0, "AH"), (1, "3S"), (2, "KH"), (3, "QH")])
    assert report.tricks[0].winner == 1


@pytest.mark.parametrize("text", ["4H 4H 5H 5H", "KH KH AH AH", "AS AS 2H 2H", "2H 2H 2S 2S",
                                  "LJ LJ BJ BJ", "2S 2S LJ LJ"])
def test_the_seeds_tractors(text):  # 4455, KKAA, AA22, 2222, four jokers, 22 + small jokers
    assert shape(text) == [(2, 2)]


def test_a_follower_must_play_a_tractor_and_pairs():  # ruling 61
    report = run(["AH AH KH KH", "3H 3H 4H 4H 9H 9H", "2C 3C 4C 5C", "2D 3D 4D 5D"],
                 [(0, "AH AH KH KH"), (1, "3H 3H 9H 9H")])
    assert rules_of(report) == ["follow.tractor-required"]
    report = run(["AH AH", "3H 3H 5H", "2C 3C", "4D 5D"], [(0, "AH AH"), (1, "3H 5H")])
    assert rules_of(report) == ["follow.pair-required"]


def test_trumping_a_pair_needs_a_pair():  # 「对方牌有对的话主牌必须出对才能毙掉对方的牌」
    report = run(["7H 7H", "AS KS", "3H 4H", "5D 6D"],
                 [(0, "7H 7H"), (1, "AS KS"), (2, "3H 4H"), (3, "5D 6D")])
    assert report.tricks[0].winner == 0


def test_off_suit_throw_6677AKK_stands_though_an_opponent_holds_an_ace():
    lead = "6H 6H 7H 7H AH KH KH"
    report = run([lead, "AH 3H 4H 5H 8H 9H TH", "3C 4C 5C 6C 7C 8C 9C", "3D 4D 5D 6D 7D 8D 9D"],
                 [(0, lead)])
    # the other ♥A ties with ♥A and nothing beats 6677 or KK: the throw stands
    assert rules_of(report) == []


def test_trump_throws_are_not_allowed():  # ruling 8
    report = run(["AS KS", "3H 4H", "5H 6H", "7H 8H"], [(0, "AS KS")])
    assert "throw.trump-not-allowed" in rules_of(report)


def full_hand(actions: list, players: int = 4, extra: list | None = None):
    """A deal (2 decks, index order) and the given auction/trump/kitty events."""
    from gamelog.cards import full_deck, tokens

    deck = tokens(full_deck(2))
    size = (108 - 12) // players
    holdings = [deck[i * size:(i + 1) * size] for i in range(players)]
    kitty = deck[size * players:]
    events: list[Event] = [HandStart(match="b", hand=1, seq=0, level="2", first_draw=0),
                           Deal(match="b", hand=1, seq=1, holdings=holdings, kitty=kitty)]
    for kind, seat, value in actions:
        seq = len(events)
        if kind == "bid":
            events.append(Bid(match="b", hand=1, seq=seq, seat=seat, points=value))
        elif kind == "pass":
            events.append(Pass(match="b", hand=1, seq=seq, seat=seat))
        elif kind == "trump":
            events.append(TrumpChosen(match="b", hand=1, seq=seq, seat=seat, trump=value))
        elif kind == "take":
            events.append(KittyTake(match="b", hand=1, seq=seq, seat=seat, cards=kitty))
        elif kind == "bury":
            events.append(KittyBury(match="b", hand=1, seq=seq, seat=seat, cards=kitty))
        elif kind == "surrender":
            events.append(Surrender(match="b", hand=1, seq=seq, seat=seat))
        elif kind == "declare":
            events.append(Declare(match="b", hand=1, seq=seq, seat=seat, cards=value))
        elif kind == "play":
            events.append(Play(match="b", hand=1, seq=seq, seat=seat, cards=value))
        elif kind == "result":
            events.append(Result(match="b", hand=1, seq=seq, settlement=value))
    header = MatchStart(match="b", hand=0, seq=0, version=FORMAT_VERSION, ruleset="biaofen",
                        players=players, decks=2)
    rules = R4 if players == 4 else R3
    report = replay_hand(Hand(match="b", number=1, events=events, header=header), rules)
    return rules_of(report), report


AUCTION = [("bid", 0, 80), ("bid", 1, 75), ("pass", 2, None), ("bid", 3, 70), ("pass", 0, None),
           ("bid", 1, 60), ("pass", 3, None)]


def test_a_proper_auction_makes_the_lowest_bidder_declarer():
    rules, report = full_hand([*AUCTION, ("trump", 1, "H"), ("take", 1, None),
                               ("bury", 1, None)])
    assert rules == [] and report.declarer == 1 and report.contract == 60


@pytest.mark.parametrize(("actions", "rule"), [
    ([("bid", 0, 80), ("bid", 1, 80)], "auction.not-lower"),
    ([("bid", 0, 80), ("bid", 1, 77)], "auction.bad-amount"),
    ([("bid", 0, 85)], "auction.bad-amount"),
    ([("bid", 0, 80), ("bid", 2, 75)], "auction.out-of-turn"),
    ([("pass", 0, None), ("bid", 1, 75), ("bid", 2, 70), ("bid", 3, 65), ("bid", 0, 60)],
     "auction.after-pass"),
])
def test_auction_violations(actions, rule):
    assert rule in full_hand(actions)[0]


def test_trump_is_named_by_the_declarer_before_the_kitty():
    assert full_hand([*AUCTION, ("trump", 0, "H")])[0] == ["auction.trump-wrong-seat"]
    rules, _ = full_hand([*AUCTION, ("take", 1, None), ("trump", 1, "H")])
    assert rules == ["auction.trump-after-kitty"]
    assert full_hand([*AUCTION, ("trump", 1, "NT")])[0] == ["auction.trump-not-a-suit"]


def test_nobody_bids_the_opener_takes_80():
    rules, report = full_hand([("pass", 0, None), ("pass", 1, None), ("pass", 2, None),
                               ("pass", 3, None), ("trump", 0, "S")])
    assert rules == [] and report.declarer == 0 and report.contract == 80


def test_the_kitty_goes_to_the_declarer():
    rules, _ = full_hand([*AUCTION, ("trump", 1, "H"), ("take", 0, None)])
    assert rules == ["kitty.wrong-seat"]


def test_no_declarations_in_biaofen():
    assert full_hand([("declare", 0, ["2S"])])[0] == ["declare.not-a-step"]


def test_surrender_before_the_first_lead_costs_2_per_defender_from_55():
    rules, report = full_hand([*AUCTION, ("trump", 1, "H"), ("take", 1, None),
                               ("bury", 1, None), ("surrender", 1, None),
                               ("result", None, [2, -6, 2, 2])])
    assert rules == [] and report.surrendered and report.outcome.settlement == [2, -6, 2, 2]
    rules, _ = full_hand([*AUCTION, ("trump", 1, "H"), ("surrender", 0, None)])
    assert rules == ["surrender.not-declarer"]


def test_surrender_after_the_first_lead_is_too_late():
    from gamelog.cards import full_deck, tokens

    first = tokens(full_deck(2))[24]  # seat 1's first card
    rules, _ = full_hand([*AUCTION, ("trump", 1, "H"), ("take", 1, None), ("bury", 1, None),
                          ("play", 1, [first]), ("surrender", 1, None)])
    assert "surrender.too-late" in rules


# --- the settlement arithmetic ------------------------------------------------------------------

@pytest.mark.parametrize(("players", "n", "points", "each"), [
    (4, 60, 55, 2),      # 庄胜, n >= 55: 2 each
    (4, 50, 45, 3),      # 庄胜, n < 55: 3 each
    (4, 60, 30, 3),      # 小光: P <= n/2 → +1
    (4, 65, 30, 3),      # 30 <= 32.5 (ruling 57)
    (4, 65, 35, 2),      # 35 > 32.5: no 小光
    (4, 60, 0, 5),       # 大光: +3 instead of +1 (ruling 56)
    (4, 50, 0, 6),
    (4, 60, 60, -1),     # 打宕 at n
    (4, 60, 100, -2),    # n + 40
    (4, 60, 130, -3),    # n + 70
    (4, 60, 150, -4),    # n + 90
    (4, 60, 165, -4),
    (4, 60, 170, -5),    # then every 20
    (4, 60, 190, -6),
    (3, 60, 60, -1), (3, 60, 90, -2), (3, 60, 110, -3), (3, 60, 130, -4), (3, 60, 150, -5),
    (3, 60, 55, 2),
])
def test_settlement_per_defender(players, n, points, each):
    assert settlement_per_defender(players, n, points) == each


def test_hand_settlement_sums_to_zero_and_bombs_pay_5_each():
    out = R4.outcome(0, 0, None, 2, 2, contract=60)
    assert out.settlement == [-5, -5, 15, -5] and sum(out.settlement) == 0
    out = R4.outcome(0, 0, None, 2, 2, contract=60, bombs=(0,))
    assert out.settlement == [10, -10, 10, -10] and sum(out.settlement) == 0
    assert out.notes  # the bomb reward is marked unverified (ruling 58)
    out = R3.outcome(130, 0, 2, 1, 1, contract=60)
    assert out.settlement == [4, -8, 4]


def test_rounds_of_six():
    # 4 players: seat 0 declares 3 times (third: +1 from each), seat 1 twice, seat 2 once,
    # seat 3 never (pays 2 to each other player)
    assert round_settlement(4, [0, 1, 0, 2, 1, 0]) == [3 + 2, -1 + 2, -1 + 2, -1 - 6]
    # one player declares all six: +1 from each of 3 on hands 3-6 (12), +1 more on hands 4-6
    # (9), and the three who never declared pay 2 each (6)
    sweep = round_settlement(4, [2] * 6)
    assert sweep[2] == 12 + 9 + 6 and sum(sweep) == 0
    assert sum(round_settlement(3, [0, 1, 0, 2, 1, 0])) == 0


def test_recorded_settlements_are_checked_and_must_sum_to_zero():
    rules, _ = full_hand([*AUCTION, ("trump", 1, "H"), ("take", 1, None), ("bury", 1, None),
                          ("surrender", 1, None), ("result", None, [2, -6, 2, 1])])
    assert rules == ["result.settlement-not-zero", "result.settlement-mismatch"]


def test_round_settlement_is_checked_on_the_sixth_hand():
    from gamelog.cards import full_deck, tokens

    deck = tokens(full_deck(2))
    hands = []
    header = MatchStart(match="r", hand=0, seq=0, version=FORMAT_VERSION, ruleset="biaofen",
                        players=4, decks=2)
    for number in range(1, 7):
        declarer = 0 if number <= 3 else 1
        ev = [HandStart(match="r", hand=number, seq=0, level="2", first_draw=0),
              Deal(match="r", hand=number, seq=1, holdings=[deck[i * 24:(i + 1) * 24]
                                                             for i in range(4)], kitty=deck[96:])]
        for s in range(4):
            if s == declarer:
                ev.append(Bid(match="r", hand=number, seq=len(ev), seat=s, points=80))
            else:
                ev.append(Pass(match="r", hand=number, seq=len(ev), seat=s))
        ev.append(TrumpChosen(match="r", hand=number, seq=len(ev), seat=declarer, trump="S"))
        ev.append(Surrender(match="r", hand=number, seq=len(ev), seat=declarer))
        settle = [2, 2, 2, 2]
        settle[declarer] = -6
        wrong = [0, 0, 0, 0] if number == 6 else None
        ev.append(Result(match="r", hand=number, seq=len(ev), settlement=settle,
                         round_settlement=wrong))
        hands.append(Hand(match="r", number=number, events=ev, header=header))
    reports = list(validate_hands(hands))
    assert [rules_of(r) for r in reports[:5]] == [[], [], [], [], []]
    assert rules_of(reports[5]) == ["result.round-settlement-mismatch"]
    # seat 0 declared 3 times (+3 on the third), seat 1 three times (+3), seats 2, 3 never
    assert reports[5].outcome.round_settlement == round_settlement(4, [0, 0, 0, 1, 1, 1])


def test_kitty_points_double_when_the_defenders_take_the_last_trick():
    assert R4.kitty_multiplier([]) == 2
    assert Rank.TWO  # the level is always 2 (ruling 52)
