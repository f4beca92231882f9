"""Ruleset ``wanfen``: 打万分, the race to 10,000 (seed 000). Spec: docs/rules/wanfen.md.

Four players in fixed teams, two decks, 25 cards each and a kitty of 8. Besides the jokers and
the level cards, three kinds of permanent trump: 书记 (the trump suit's lowest non-level rank,
above everything), 军长 (♠A, just below the jokers) and 救星 (♥A, just below the level cards,
worth 10 points). Special cards never chain into tractors; only off-suit cards may be thrown;
the kitty award is a formula by the last trick's pattern; a hand scores level points (600 a
level) towards 10,000.
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar

from gamelog.cards import BIG_JOKER_INDEX, LITTLE_JOKER_INDEX, SUITS, Card, Rank, Suit
from replay.order import TRUMP, CardOrder
from replay.rulesets.base import (
    Declaration,
    Option,
    Outcome,
    Ruleset,
    chain_answers,
    register,
)
from replay.units import Shape, Unit

COMMANDER = int(Card.of(Rank.ACE, Suit.SPADES))
"""军长: ♠A, a permanent trump just below the jokers."""
SAVIOUR = int(Card.of(Rank.ACE, Suit.HEARTS))
"""救星: ♥A, a permanent trump just below the level cards, worth 10 points."""
_BY_RANK = tuple(tuple(int(Card.of(r, s)) for s in SUITS) for r in Rank)
"""The four cards of each rank, 2 to A, in suit order (♠♥♣♦)."""
_BY_SUIT = tuple(tuple(int(Card.of(r, s)) for r in Rank) for s in SUITS)
"""The thirteen cards of each suit, 2 to A."""
_FOUR_JOKERS = [LITTLE_JOKER_INDEX] * 2 + [BIG_JOKER_INDEX] * 2
"""The four jokers, sorted."""

TOTAL_POINTS = 220
"""「总分：10*8+ K*8+ 5*8+救星*2=220分」."""
STRAIGHT = "同花顺 (a straight of eight)"
FORTUNE = "发财 (eight of one rank)"
SEASONS = "四季 (one of each suit)"
JOKERS = "四大天王 (the four jokers)"
TAKEOVER = 100
LEVEL_POINTS = 600
FULL_CLIMB = 2200
SHUTOUT_PENALTY = 100

# Powers: plain cards of a suit 0..12; the special trumps above, two apart so that no two of
# them (nor the trump suit's ace) are adjacent: special cards never chain (ruling 13).
_SAVIOUR, _OTHER_LEVEL, _TRUMP_LEVEL, _COMMANDER, _LITTLE, _BIG, _SECRETARY = (
    20, 22, 24, 26, 28, 30, 32)


def secretary_rank(level: Rank | None) -> Rank | None:
    """The rank of 书记: the lowest non-level rank, 2 (3 when the level is 2); none in
    no-trump (ruling 9)."""
    if level is None:
        return None
    return Rank.THREE if level == Rank.TWO else Rank.TWO


@cache
def wanfen_order(trump: Suit | None, level: Rank | None) -> CardOrder:
    """书记 > big joker > small joker > 军长 > trump-suit level card > other level cards > 救星 >
    the trump suit > off-suits (seed 000, rulings 9-11); ``trump=None`` is no-trump, where
    only the jokers, 军长 and 救星 are trumps."""
    klass = [0] * 54
    power = [0] * 54
    secretary = secretary_rank(level) if trump is not None else None
    for s in SUITS:
        p = 0
        for r in Rank:  # 2 .. A
            c = int(Card.of(r, s))
            if r == level or c in (COMMANDER, SAVIOUR) or (s == trump and r == secretary):
                continue
            klass[c] = TRUMP if s == trump else s.index
            power[c] = p
            p += 1
    if level is not None:
        for s in SUITS:
            c = int(Card.of(level, s))
            if c in (COMMANDER, SAVIOUR):  # at level A they stay 军长 and 救星 (ruling 10)
                continue
            klass[c] = TRUMP
            power[c] = _TRUMP_LEVEL if s == trump else _OTHER_LEVEL
    if trump is not None and secretary is not None:
        c = int(Card.of(secretary, trump))
        klass[c], power[c] = TRUMP, _SECRETARY
    for c, p in ((SAVIOUR, _SAVIOUR), (COMMANDER, _COMMANDER), (LITTLE_JOKER_INDEX, _LITTLE),
                 (BIG_JOKER_INDEX, _BIG)):
        klass[c], power[c] = TRUMP, p
    return CardOrder(tuple(klass), tuple(power), trump, level)


@register
class Wanfen(Ruleset):
    """打万分 (wanfen), seed 000: 4 players in fixed teams, 2 decks, kitty 8, to 10,000."""

    name = "wanfen"
    aliases = ("打万分", "dawanfen", "10000")
    title = "打万分 (race to 10,000)"
    seed = "000"
    options = (
        Option("players", int, 4, "players at the table (always 4)", (4,)),
        Option("decks", int, 2, "decks in play (always 2)", (2,)),
    )
    trump_throws: ClassVar[bool] = False  # 「同种花色的副牌均为当前最大时，即可一起打出」 (ruling 8)
    zero_sum_settlement: ClassVar[bool] = False
    match_target: ClassVar[int | None] = 10_000  # 「先记满10000分为胜利」
    pattern_kinds: ClassVar[tuple[str, ...]] = (STRAIGHT, FORTUNE, SEASONS, JOKERS)
    other_leaders_card: ClassVar[int] = SAVIOUR  # a trick not won by 救星 alone: no other leader
    levels_past_ace: ClassVar[bool] = True

    # -- deal and declarations --------------------------------------------------------------

    def declaration(self, cards: list[Card], level: Rank) -> Declaration | str:
        """One level card declares its suit; two identical level cards rank above it (反主, or
        the declarer's own 定主); nothing else declares (ruling 24)."""
        n = len(cards)
        if n == 0:
            return "no cards shown"
        if any(c.is_joker for c in cards):
            return "jokers declare nothing in 打万分 (only level cards do)"
        if any(c.rank != level for c in cards) or any(int(c) in (COMMANDER, SAVIOUR)
                                                        for c in cards):
            return f"only level cards ({level}) declare (♠A and ♥A are 军长 and 救星)"
        if len(set(cards)) != 1:
            return "the level cards shown must be identical (one suit)"
        if n > 2:
            return f"{n} level cards are not a declaration (a single, or a pair to override)"
        label = "a single" if n == 1 else "a pair of"
        return Declaration(n, cards[0].suit, f"{label} {cards[0].symbol}", card=int(cards[0]))

    def trumps_without_declaration(self, kitty: list[Card], level: str | None
                                   ) -> list[Suit | None] | None:
        """The kitty turned card by card: the first level card's suit; with none, the largest
        or the smallest card's suit as the dealer chooses, jokers aside, the first turned on
        a tie, A high (ruling 25). No-trump past A."""
        if level == "NT":
            return [None]
        if level is None:
            return None
        rank = Rank.parse(level)
        plain = [c for c in kitty if not c.is_joker]
        for c in plain:
            if c.rank == rank and int(c) not in (COMMANDER, SAVIOUR):
                return [c.suit]
        if not plain:
            return None
        top = max(c.rank for c in plain)
        low = min(c.rank for c in plain)
        out: list[Suit | None] = []
        for wanted in (top, low):
            suit = next(c.suit for c in plain if c.rank == wanted)
            if suit not in out:
                out.append(suit)
        return out

    # -- kitty ------------------------------------------------------------------------------

    def kitty_size(self) -> int:
        return 8

    # -- tricks -----------------------------------------------------------------------------

    def order(self, trump: Suit | None, level: Rank | None) -> CardOrder:
        return wanfen_order(trump, level)

    def card_points(self, card: Card) -> int:
        """5 → 5, 10 and K → 10, and 救星 (♥A) → 10."""
        return 10 if int(card) == SAVIOUR else card.points

    def max_width(self) -> int:
        return 2

    def answers(self, kind: tuple[int, int]) -> list[Shape]:
        return _answers(kind)

    def special_lead(self, cards: list[int], order: CardOrder) -> str | None:
        """同花顺 (8 consecutive cards of one suit, no special card, no bridging of the level),
        发财 (8 of one rank), 四季 (one of each suit of one rank), or the four jokers: the
        patterns of seed 000 §6-8 (rulings 14, 15, 20)."""
        n = len(cards)  # asked of every play of a trick: card indices, no Card objects
        if n != 4 and n != 8:
            return None
        if n == 4 and sorted(cards) == _FOUR_JOKERS:
            return JOKERS
        if max(cards) >= LITTLE_JOKER_INDEX:
            return None
        ranks = {c % 13 for c in cards}  # index = suit × 13 + rank − 2
        if n == 8 and len(ranks) == 1:
            return FORTUNE
        suits = {c // 13 for c in cards}
        if n == 4 and len(ranks) == 1 and len(suits) == 4:
            return SEASONS
        if n == 8 and len(suits) == 1 and len(ranks) == 8 and max(ranks) - min(ranks) == 7:
            eligible = _straight_cards(order.trump, order.level)
            if all(eligible[c] for c in cards):
                return STRAIGHT
        return None

    def pattern_cards(self, order: CardOrder) -> tuple[bool, ...] | None:
        """The cards that may stand in a 同花顺 (:func:`_straight_card`), for the C rollout
        player: it plays this ruleset's patterns as :meth:`special_lead`, :meth:`holds_pattern`
        and :meth:`pattern_strength` do (``tests/test_native_playout.py``)."""
        if self.pattern_kinds != (STRAIGHT, FORTUNE, SEASONS, JOKERS):
            return None  # the C player numbers them in this order
        return _straight_cards(order.trump, order.level)

    def holds_pattern(self, kind: str, held: list[int], order: CardOrder, size: int
                      ) -> list[int] | None:
        """Cards of ``held`` making a pattern of ``kind`` (ruling 15: a follower holding one
        must play it)."""
        if kind == JOKERS:
            return ([BIG_JOKER_INDEX] * 2 + [LITTLE_JOKER_INDEX] * 2
                    if held[BIG_JOKER_INDEX] >= 2 and held[LITTLE_JOKER_INDEX] >= 2 else None)
        if kind == FORTUNE:  # asked on every lead of a rollout: each kind its own tight loop
            for a, b, c, d in _BY_RANK:
                if held[a] + held[b] + held[c] + held[d] >= 8:
                    return [x for x in (a, b, c, d) for _ in range(held[x])][:8]
        elif kind == SEASONS:
            for a, b, c, d in _BY_RANK:
                if held[a] and held[b] and held[c] and held[d]:
                    return [a, b, c, d]
        elif kind == STRAIGHT:
            eligible = _straight_cards(order.trump, order.level)
            for of_suit in _BY_SUIT:
                seven, eight, nine = of_suit[5:8]  # eight in a row of thirteen take all three
                if not (held[seven] and held[eight] and held[nine] and eligible[seven]
                        and eligible[eight] and eligible[nine]):
                    continue
                run = 0  # eligible cards held in a row, ending at i
                for i, c in enumerate(of_suit):
                    if held[c] and eligible[c]:
                        run += 1
                        if run == 8:
                            return list(of_suit[i - 7:i + 1])
                    else:
                        run = 0
        return None

    def pattern_strength(self, pattern: str, cards: list[int], order: CardOrder
                         ) -> tuple[int, int] | None:
        """Only the same pattern wins (ruling 15): straights by their top card's trick power (a
        trump straight over any off-suit one), 发财 and 四季 by rank with the level rank
        highest; equal: the first played."""
        if self.special_lead(cards, order) != pattern:
            return None
        if pattern == STRAIGHT:
            top = max(cards, key=lambda c: int(Card(c).rank))  # type: ignore[arg-type]
            return (1 if order.klass[top] == TRUMP else 0, order.power[top])
        if pattern in (FORTUNE, SEASONS):
            rank = Card(cards[0]).rank
            return (1 if rank == order.level else 0, int(rank))  # type: ignore[arg-type]
        return (0, 0)

    def other_leaders(self, plays: list[tuple[int, list[int]]], winner: int, order: CardOrder
                      ) -> list[int]:
        """救星 (ruling 12): when a side's 救星 wins a trick in which the partner's card of the
        led off-suit was trumped by an opponent before it, the partner ("rescued") may lead the
        next trick, as may the 救星's player."""
        win = None
        for seat, cards in plays:
            if seat == winner:
                win = cards
                break
        if not win or win[0] != SAVIOUR or any(c != SAVIOUR for c in win):
            return []  # the common case, settled at once
        lead_class = order.klass[plays[0][1][0]]
        if lead_class == TRUMP:
            return []
        partner = (winner + 2) % 4
        partner_played = False
        trumped = False
        for seat, cards in plays:
            if seat == winner:
                break
            if seat == partner and all(order.klass[c] == lead_class for c in cards):
                partner_played = True
            elif partner_played and seat % 2 != winner % 2 and all(
                    order.klass[c] == TRUMP for c in cards):
                trumped = True
        return [partner] if partner_played and trumped else []

    # -- outcome ----------------------------------------------------------------------------

    def kitty_multiplier(self, winning: list[Unit]) -> int:
        return 1  # not a multiple: see kitty_award

    def kitty_award(self, kitty_points: int, winning: list[Unit], trump: bool,
                    pattern: str = "") -> tuple[int, int | None]:
        """抠底 by the last trick's winning play (ruling 18): off-suit singles (a throw without
        pairs) the kitty's points; off-suit pairs kitty × 2 × pairs; a trump single kitty + 100;
        trump pairs kitty + 1000 × pairs. A special pattern replaces the formula (ruling 20): a
        trump 同花顺, 发财 or the four jokers 10,000, an off-suit 同花顺 or 四季 1,000. No
        multiplier is recorded."""
        if pattern == STRAIGHT:
            return (10_000 if trump else 1_000), None
        if pattern in (FORTUNE, JOKERS):
            return 10_000, None
        if pattern == SEASONS:
            return 1_000, None
        pairs = sum(u.length for u in winning if u.width >= 2)
        if not trump:
            return (kitty_points * 2 * pairs if pairs else kitty_points), None
        return (kitty_points + 1000 * pairs if pairs else kitty_points + 100), None

    def outcome(self, defender_points: int, kitty_points: int, multiplier: int | None,
                dealer: int, declarer: int, *, contract: int | None = None,
                bombs: tuple[int, ...] = (), face: int | None = None,
                level: str | None = None, totals: list[int] | None = None) -> Outcome:
        """Rulings 21-23: the defenders take the deal with 100 or more (and record them);
        otherwise the declarer side goes up a level. 光头 (大光: the defenders took nothing; 反光:
        they took every face point) gives the shutting side one level more and costs the other
        100. 600 points a level gained; holding the deal in no-trump 2200 more."""
        face = defender_points if face is None else face
        award = defender_points - face
        team = declarer % 2
        change = [0, 0]
        scores = [0, 0]
        notes: list[str] = []
        takeover = defender_points >= TAKEOVER
        reverse_shutout = face + (kitty_points if award > 0 else 0) >= TOTAL_POINTS
        shut_out: int | None = None  # the team losing 100
        if takeover:
            scores[1 - team] = defender_points
            if reverse_shutout:  # 反光: the defenders take over and jump one level
                change[1 - team] = 1
                shut_out = team
            next_dealer = (dealer + 1) % 4
        else:
            change[team] = 2 if defender_points == 0 else 1
            if defender_points == 0:  # 大光
                shut_out = 1 - team
            if level == "NT":
                change[team] = 0
                scores[team] += FULL_CLIMB  # 无主稳庄
            next_dealer = (dealer + 2) % 4
        for t in (0, 1):  # A -> NT is a step like any other (ruling 23)
            scores[t] += LEVEL_POINTS * change[t]
        running: list[int] | None = None
        if shut_out is not None:  # 光头: -100 from the running total, not below 0 (ruling 22)
            if totals is None:
                notes.append("光头: the shut-out side loses 100 from its running total, not "
                             "below 0; this match's earlier hands are not known here, so the "
                             "settlement is not checked")
            else:
                scores[shut_out] -= min(SHUTOUT_PENALTY, totals[shut_out])
        settlement: list[int] | None = [scores[s % 2] for s in range(4)]
        if shut_out is not None and totals is None:
            settlement = None
        if totals is not None:
            running = [totals[t] + scores[t] for t in (0, 1)]
        return Outcome(defender_points, kitty_points, None, change, next_dealer, settlement,
                       notes=notes, scores=running)

    def point_thresholds(self) -> list[tuple[int, str]]:
        return [(100, "defenders take the deal")]


def _straight_card(card: int, order: CardOrder) -> bool:
    """Whether a card may stand in a 同花顺: no level card, 书记, 军长 or 救星 (ruling 14)."""
    return _straight_cards(order.trump, order.level)[card]


@cache
def _straight_cards(trump: Suit | None, level: Rank | None) -> tuple[bool, ...]:
    """:func:`_straight_card` of every card, for one trump and level (read on every lead of a
    rollout: worked out once)."""
    out = []
    for card in range(54):
        c = Card(card)
        if card in (COMMANDER, SAVIOUR) or c.is_joker or c.rank == level:
            out.append(False)
        else:
            out.append(not (c.suit == trump and c.rank == secretary_rank(level)))
    return tuple(out)


@cache
def _answers(kind: tuple[int, int]) -> list[Shape]:
    width, length = kind
    if width == 1:
        return [()]
    return chain_answers(2, length)
