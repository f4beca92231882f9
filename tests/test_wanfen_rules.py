"""Seed 000 (打万分) as tests: its statements and examples, and rulings 9-25.

Spec: docs/rules/wanfen.md. Positions are set up with ``tests.rulehelp``; the card order, the
kitty award and the outcome are also checked through ``replay.api`` and the ruleset directly.
"""

from __future__ import annotations

from gamelog import FORMAT_VERSION, Deal, Declare, Hand, HandStart, MatchStart
from gamelog.cards import Card
from replay import get_ruleset, replay_hand
from replay.api import Order, Position, is_tractor, judge_throw, points, trick_winner
from replay.rulesets.wanfen import wanfen_order
from replay.units import decompose
from tests.rulehelp import rules_of, run


def W(trump="C", level="2"):
    return Order(trump, level, "wanfen")


def test_the_order_of_the_special_trumps():
    """「书记>王牌>军长> 主级牌（主2）>副级牌（副2） >救星（红桃AA）>主花色牌 > 副牌」."""
    o = W("C", "2")
    ladder = ["3C", "BJ", "LJ", "AS", "2C", "2D", "AH", "AC", "KC", "4C"]
    keys = [o.key(c) for c in ladder]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys) - 0
    assert o.rank_of("2D") == o.rank_of("2H") == o.rank_of("2S")  # other level cards tie
    assert all(o.is_trump(c) for c in ladder) and not o.is_trump("AD")
    assert o.key("4C") > o.key("AD")  # any trump beats any off-suit card


def test_secretary_is_the_trump_suits_lowest_non_level_rank():
    """「如级牌是2点时，3点最小，主牌3为书记。如果级牌是3时，2点最小，主牌2为书记」."""
    assert W("C", "2").tiers()[0] == [Card.parse("3C")]
    assert W("C", "3").tiers()[0] == [Card.parse("2C")]
    assert not W("C", "2").is_trump("3D")  # an off-suit 3 is a plain card


def test_the_first_secretary_played_wins():
    """「先出为大，后出的为副书记」."""
    holdings = ["4C", "3C", "3C", "5C"]
    report = run(holdings, [(0, "4C"), (1, "3C"), (2, "3C"), (3, "5C")], trump="C", level="2",
                 ruleset="wanfen")
    assert report.tricks[0].winner == 1


def test_spade_and_heart_aces_keep_their_roles_at_level_a():
    """Rulings 10, 11: ♠A and ♥A are always 军长 and 救星; ♣A and ♦A are the level cards."""
    o = W("D", "A")
    assert o.key("AS") > o.key("AD") > o.key("AC") > o.key("AH")
    s = W("S", "2")  # spades trump: the plain spades top out at K
    assert s.key("AS") > s.key("2S") > s.key("AH") > s.key("KS")


def test_no_trump_has_only_the_jokers_the_commander_and_the_saviour():
    """「当升级到A时，再升级就打无主。即总只有 四大天王+黑桃AA（军长）+救星（红桃AA）」."""
    o = Order("NT", "NT", "wanfen")
    trumps = [str(c) for tier in o.tiers() for c in tier if o.is_trump(c)]
    assert trumps == ["BJ", "LJ", "AS", "AH"]


def test_points_total_220():
    """「总分：10*8+ K*8+ 5*8+救星*2=220分」 (救星 worth 10 each)."""
    rules = get_ruleset("wanfen")
    table = rules.points_table()
    assert 2 * sum(table) == 220 and table[int(Card.parse("AH"))] == 10


def test_tractors_bridge_the_level_but_special_cards_never_chain():
    """「当轮级牌为6，则梅花5与梅花7也可连在一起组成连对」;
    「书记对》大王对》小王对》军长》级牌对》救星对》AA」 are not tractors; plain trump-suit pairs
    are (ruling 13)."""
    o = W("D", "6")
    assert is_tractor("5C 5C 7C 7C", o)
    assert not is_tractor("BJ BJ LJ LJ", o)
    assert not is_tractor("AS AS 6D 6D", o)
    assert not is_tractor("6D 6D 6C 6C", o)
    assert not is_tractor("AH AH AD AD", o)
    assert is_tractor("AD AD KD KD", o)
    assert not is_tractor("2D 2D 3D 3D", W("D", "3"))  # 书记 (♦2) does not chain either


def test_only_off_suit_cards_may_be_thrown():
    """「若一个玩家手上同种花色的副牌均为当前最大时，即可一起打出」 (ruling 8)."""
    holdings = ["KC KC QC 5H", "4C 6C 7C 8C", "9D TD JD QD", "3H 4H 6H 7H"]
    trump_throw = run(["BJ LJ 5C 6C", "4H 6H 7H 8H", "9D TD JD QD", "3H 4H 6H 9H"],
                      [(0, "BJ LJ")], trump="C", level="2", ruleset="wanfen")
    assert rules_of(trump_throw) == ["throw.trump-not-allowed"]
    assert rules_of(run(holdings, [(0, "KC KC QC")], trump="S", level="2",
                        ruleset="wanfen")) == []


def test_the_seeds_failed_throw_example():
    """「玩家手上牌为梅花10、梅花J、梅花Q各一张，此时外面还有一个J，J比10大，则强制出10」."""
    p = Position.of(["TC JC QC 5H", "JC 4C 6H 7H", "9D TD JD QD", "3H 4H 6S 7S"], trump="D",
                    level="2", ruleset="wanfen")
    verdict = judge_throw(p, 0, "TC JC QC")
    assert not verdict.stands and [[str(c) for c in f] for f in verdict.forced] == [["TC"]]
    holdings = ["TC JC QC 5H", "JC 4C 6H 7H", "9D TD JD QD", "3H 4H 6S 7S"]
    ok = run(holdings, [(0, "fail:TC JC QC"), (0, "TC")], trump="D", ruleset="wanfen")
    assert "throw.wrong-forced-play" not in rules_of(ok)
    bad = run(holdings, [(0, "fail:TC JC QC"), (0, "QC")], trump="D", ruleset="wanfen")
    assert "throw.wrong-forced-play" in rules_of(bad)


def test_two_single_trumps_do_not_take_a_pair():
    """「若是两张主牌单张是无法杀掉对子的」; 「主牌也必须是相同对数的连对才可」."""
    p = Position.of(["KH KH", "4C 5C", "2H 3H", "6C 6C"], trump="C", level="2",
                    ruleset="wanfen")
    assert trick_winner(p, [(0, "KH KH"), (1, "4C 5C"), (2, "2H 3H"), (3, "6C 6C")]) == 3
    assert trick_winner(p, [(0, "KH KH"), (1, "4C 5C"), (2, "2H 3H")]) == 0


def test_follow_pairs_then_singles_of_the_suit():
    """「在没有该花色对子时必须跟出该花色单张」 and 「必须跟该花色的对子」."""
    holdings = ["KH KH 4S", "9H 9H 5H", "4D 5D 6D", "7D 8D 9D"]
    assert rules_of(run(holdings, [(0, "KH KH"), (1, "9H 5H")], trump="C",
                        ruleset="wanfen")) == ["follow.pair-required"]
    assert rules_of(run(holdings, [(0, "KH KH"), (1, "9H 9H")], trump="C",
                        ruleset="wanfen")) == []


def test_the_kitty_award_examples():
    """「此时底牌80分*2*3对=480分」, 「此时底牌80分+100=180分」, 「此时底牌40分+两个10+1000分*3对=3060分」
    (ruling 18: the two 10s are trick points)."""
    rules = get_ruleset("wanfen")
    o = wanfen_order(None, None)

    def units(text):
        return decompose([int(c) for c in __import__("gamelog").parse_cards(text)], o)

    three_pairs = units("5H 5H 6H 6H 7H 7H")
    assert rules.kitty_award(80, three_pairs, False) == (480, None)
    assert rules.kitty_award(80, units("5H"), True) == (180, None)
    assert rules.kitty_award(40, three_pairs, True)[0] + 20 == 3060
    assert rules.kitty_award(80, units("KH QH"), False) == (80, None)  # a throw of singles
    assert rules.kitty_award(80, units("KH KH"), False) == (160, None)  # a lone pair is 1


def test_the_outcome_takeover_at_100_levels_and_level_points():
    """「满100分以上可坐庄。不上庄不记分，如捡99分也记0分」; 600 a level; 光头 +1 level."""
    rules = get_ruleset("wanfen")
    out = rules.outcome(99, 0, None, 0, 0, face=99, level="2")
    assert out.level_change == [1, 0] and out.next_dealer == 2
    assert out.settlement == [600, 0, 600, 0]
    out = rules.outcome(100, 0, None, 0, 0, face=100, level="2")
    assert out.level_change == [0, 0] and out.next_dealer == 1
    assert out.settlement == [0, 100, 0, 100]
    out = rules.outcome(0, 0, None, 0, 0, face=0, level="2")  # 大光: 2 -> 4
    assert out.level_change == [2, 0] and out.settlement is None and out.notes
    out = rules.outcome(120, 0, None, 0, 0, face=120, level="NT")
    assert out.level_change == [0, 0]
    out = rules.outcome(10, 0, None, 0, 0, face=10, level="NT")  # 无主稳庄: 2200
    assert out.settlement == [2200, 0, 2200, 0]


def test_declaring_a_single_then_one_pair_override():
    """「若以单张报主，则可以双张（级牌）抢主/反主…只可反一次」; 定主; jokers declare nothing."""
    def declare(decls):
        deal = [["2S", "2S", "2H", "BJ", "BJ"], ["2D", "2D", "LJ", "LJ", "3C"],
                ["2C", "2C", "2H", "4C", "5C"], ["3D", "4D", "5D", "6D", "7D"]]
        events = [HandStart(match="d", hand=1, seq=0, level="2", first_draw=0, dealer=0),
                  Deal(match="d", hand=1, seq=1, holdings=deal)]
        for seat, cards in decls:
            events.append(Declare(match="d", hand=1, seq=len(events), seat=seat,
                                  cards=cards.split()))
        header = MatchStart(match="d", hand=0, seq=0, version=FORMAT_VERSION,
                            ruleset="wanfen", players=4, decks=2)
        report = replay_hand(Hand(match="d", number=1, events=events, header=header),
                             get_ruleset("wanfen"))
        return [v.rule for v in report.violations if not v.rule.startswith("deal.")]

    assert declare([(0, "2H"), (1, "2D 2D")]) == []
    assert declare([(1, "2D 2D"), (2, "2C 2C")]) == ["declare.not-higher"]
    assert declare([(0, "2S"), (0, "2S 2S")]) == []
    assert declare([(0, "BJ BJ")]) == ["declare.not-a-step"]
    assert declare([(0, "2S"), (0, "2H")]) == ["declare.own-switch"]


def test_trump_from_the_kitty_when_nobody_declares():
    """「直到出现当前级牌…花色作为该局的主花色，若无…则由最大（小）的张花色定主（王牌不算）」."""
    rules = get_ruleset("wanfen")
    kitty = [Card.parse(c) for c in ["4S", "9D", "2H", "7C", "BJ", "5S", "3C", "6D"]]
    assert [s.value for s in rules.trumps_without_declaration(kitty, "2")] == ["H"]
    kitty = [Card.parse(c) for c in ["4S", "9D", "KH", "7C", "BJ", "5S", "3C", "KD"]]
    assert [s.value for s in rules.trumps_without_declaration(kitty, "2")] == ["H", "C"]


def test_the_saviour_may_hand_the_lead_to_the_rescued_partner():
    """Ruling 12: seat 2's ♦K wins until seat 3 trumps it; seat 0's 救星 takes the trick back
    for the side, and either seat 0 or the rescued seat 2 may lead next."""
    holdings = ["AH 4S", "QD 6S", "KD 7S", "5C 8S"]
    trick = [(1, "QD"), (2, "KD"), (3, "5C"), (0, "AH")]
    for leader, card in ((0, "4S"), (2, "7S")):
        report = run(holdings, [*trick, (leader, card)], trump="C", level="2", leader=1,
                     ruleset="wanfen")
        assert report.tricks[0].winner == 0
        assert "play.out-of-turn" not in rules_of(report), leader
    report = run(holdings, [*trick, (1, "6S")], trump="C", level="2", leader=1,
                 ruleset="wanfen")
    assert "play.out-of-turn" in rules_of(report)


def test_a_seasons_lead_is_a_trump_lead_only_its_like_beats():
    """四季 (「四个数字中春、夏、秋、冬各一张…四季中，级牌四季最大」) is led as a trump lead; a
    follower holding one must play it, and only a 四季 wins (ruling 15)."""
    holdings = ["5S 5H 5C 5D 9C", "6S 6H 6C 6D TS", "4D 6D 7D 8D 9D", "3H 4H AS 7H 8H"]
    report = run(holdings, [(0, "5S 5H 5C 5D"), (1, "6S 6H 6C 6D"), (2, "4D 6D 7D 8D"),
                            (3, "AS 3H 4H 7H")], trump="D", level="2", ruleset="wanfen")
    assert rules_of(report) == [] and report.tricks[0].winner == 1
    report = run(holdings, [(0, "5S 5H 5C 5D"), (1, "6S 6H 6C TS")], trump="D", level="2",
                 ruleset="wanfen")
    assert rules_of(report) == ["follow.pattern-required"]
    report = run(holdings, [(0, "5S 5H 5C 5D"), (1, "6S 6H 6C 6D"), (2, "4D 6D 7D 8D"),
                            (3, "3H 4H 7H 8H")], trump="D", level="2", ruleset="wanfen")
    assert rules_of(report) == ["follow.suit-required"]  # seat 3 held a trump, ♠A (军长)


def test_the_level_seasons_is_the_highest():
    holdings = ["5S 5H 5C 5D", "2S 2H 2C 2D", "4D 6D 7D 8D", "3H 4H 7H 8H"]
    report = run(holdings, [(0, "5S 5H 5C 5D"), (1, "2S 2H 2C 2D"), (2, "4D 6D 7D 8D"),
                            (3, "3H 4H 7H 8H")], trump="C", level="2", ruleset="wanfen")
    assert report.tricks[0].winner == 1


def test_straights_compare_by_their_top_card():
    """「如某家出黑桃同花顺45678910J，另一家可用其他同花顺5678910JQ大过他」; a level card, 书记 or a
    special card cannot stand in one, nor can the level rank be bridged (ruling 14)."""
    o = W("D", "2")
    rules = get_ruleset("wanfen")
    order = o.card_order

    def ints(text):
        return [int(c) for c in __import__("gamelog").parse_cards(text)]

    low, high = ints("4S 5S 6S 7S 8S 9S TS JS"), ints("5H 6H 7H 8H 9H TH JH QH")
    assert rules.special_lead(low, order) == rules.special_lead(high, order) == "同花顺 (a straight of eight)"
    assert rules.pattern_strength(rules.special_lead(low, order), high, order) > \
        rules.pattern_strength(rules.special_lead(low, order), low, order)
    assert rules.special_lead(ints("5C 6C 7C 8C 9C TC JC QC"), W("D", "6").card_order) is None
    assert rules.special_lead(ints("3D 4D 5D 6D 7D 8D 9D TD"), order) is None  # ♦3 is 书记
    holdings = ["4S 5S 6S 7S 8S 9S TS JS", "5H 6H 7H 8H 9H TH JH QH", "4D 6D 7D 8D 9D TD JD QD",
                "3H 4H 7C 8C 9C TC JC QC"]
    report = run(holdings, [(0, "4S 5S 6S 7S 8S 9S TS JS"), (1, "5H 6H 7H 8H 9H TH JH QH"),
                            (2, "4D 6D 7D 8D 9D TD JD QD"), (3, "3H 4H 7C 8C 9C TC JC QC")],
                 trump="D", level="2", ruleset="wanfen")
    assert rules_of(report) == [] and report.tricks[0].winner == 1


def test_special_kitty_awards():
    """「同花顺主：记满分10000分」, 「同花顺副牌：记1000分」, 「发财抠」, 「四大天王抠」, 「四季抠：记1000分」
    replace the formula (ruling 20)."""
    rules = get_ruleset("wanfen")
    assert rules.kitty_award(80, [], True, "同花顺 (a straight of eight)") == (10_000, None)
    assert rules.kitty_award(80, [], False, "同花顺 (a straight of eight)") == (1_000, None)
    assert rules.kitty_award(80, [], True, "发财 (eight of one rank)") == (10_000, None)
    assert rules.kitty_award(80, [], True, "四大天王 (the four jokers)") == (10_000, None)
    assert rules.kitty_award(80, [], False, "四季 (one of each suit)") == (1_000, None)
    assert points("5S KS TH") == 25


def test_recorded_results_are_checked_hand_by_hand():
    """Every recorded score, level change and next dealer is recomputed (§10): a simulated
    hand's result altered field by field is reported under its rule id."""
    import msgspec

    from gamelog import Result, dumps, loads
    from replay import validate_hands
    from replay.simulate import simulate

    events = list(simulate(get_ruleset("wanfen"), matches=1, seed=3, hands=4))
    hands = [h for m in loads(dumps(events)) for h in m.hands]
    hand = next(h for h in hands if isinstance(h.events[-1], Result)
                and h.events[-1].settlement is not None)
    result = hand.events[-1]
    for field, value, rule in (
            ("settlement", [s + 600 for s in result.settlement], "result.settlement-mismatch"),
            ("defender_points", result.defender_points + 5, "result.points-mismatch"),
            ("next_dealer", (result.next_dealer + 1) % 4, "result.next-dealer-mismatch"),
            ("level_change", [9, 9], "result.level-change-mismatch")):
        altered = msgspec.structs.replace(result, **{field: value})
        report = next(validate_hands([type(hand)(hand.match, hand.number,
                                                 [*hand.events[:-1], altered], hand.header)]))
        assert rule in [v.rule for v in report.violations], field


def test_a_trump_not_from_the_kitty_is_reported():
    """No declaration: the record's trump must be one the kitty allows (ruling 25)."""
    from gamelog import TrumpChosen

    def hand_with(trump):
        deal = [["4S"] * 1, ["5S"], ["6S"], ["7S"]]
        kitty = ["4S", "9D", "KH", "7C", "BJ", "5S", "3C", "KD"]
        events = [HandStart(match="k", hand=1, seq=0, level="2", first_draw=0, dealer=0),
                  Deal(match="k", hand=1, seq=1, holdings=deal, kitty=kitty),
                  TrumpChosen(match="k", hand=1, seq=2, trump=trump, seat=0, cards=kitty)]
        header = MatchStart(match="k", hand=0, seq=0, version=FORMAT_VERSION,
                            ruleset="wanfen", players=4, decks=2)
        report = replay_hand(Hand(match="k", number=1, events=events, header=header),
                             get_ruleset("wanfen"))
        return [v.rule for v in report.violations if not v.rule.startswith("deal.")]

    assert hand_with("H") == [] and hand_with("C") == []  # the largest, or the smallest
    assert hand_with("S") == ["trump.wrong"]


def test_the_race_to_ten_thousand_is_carried_from_hand_to_hand():
    """「先记满10000分为胜利」: the running scores are carried hand to hand (光头's 100 not below 0,
    ruling 22), the match ends when a side reaches 10,000, and a hand after that is reported."""
    import msgspec

    from gamelog import dumps, loads
    from replay import validate_hands
    from replay.simulate import heuristic_agents, simulate

    rules = get_ruleset("wanfen")
    out = rules.outcome(0, 0, None, 0, 0, face=0, level="2", totals=[1200, 50])  # 大光
    assert out.settlement == [1200, -50, 1200, -50] and out.scores == [2400, 0]
    out = rules.outcome(0, 0, None, 0, 0, face=0, level="2", totals=[0, 700])
    assert out.scores == [1200, 600]
    events = list(simulate(rules, matches=1, seed=7, agents=heuristic_agents))
    hands = [h for m in loads(dumps(events)) for h in m.hands]
    reports = list(validate_hands(hands))
    assert all(not r.violations for r in reports)
    assert max(reports[-1].outcome.scores) >= 10_000
    assert all(max(r.outcome.scores) < 10_000 for r in reports[:-1])
    last = hands[-1]
    extra = type(last)(last.match, last.number + 1,
                       [msgspec.structs.replace(e, hand=last.number + 1) for e in last.events],
                       last.header, source=last.source)
    report = list(validate_hands([*hands, extra]))[-1]
    assert "hand.after-match-end" in [v.rule for v in report.violations]
