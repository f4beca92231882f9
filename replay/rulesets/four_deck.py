"""Ruleset ``four-deck``: 升级四副牌 (seed 002). Spec: docs/rules/four-deck.md."""

from __future__ import annotations

from functools import cache

from gamelog.cards import Card, Rank, Suit
from replay.rulesets.base import (
    Declaration,
    Option,
    Outcome,
    Ruleset,
    register,
    team_outcome,
)
from replay.units import Shape, Unit

# The seed's own lists, best first (「首家出连四时…」 and 「首家出四张时…」).
QUAD_TRACTOR_ANSWERS: list[Shape] = [
    ((4, 2),),                              # 一连四
    ((3, 2),),                              # 一连三＋两单张
    ((2, 2), (2, 1), (2, 1)),               # 一连队＋两对子
    ((2, 2), (2, 1)),                       # 一连队＋一对子＋两单张
    ((2, 2),),                              # 一连队＋四单张
    ((4, 1), (4, 1)),                       # 二四张
    ((4, 1), (2, 1), (2, 1)),               # 一四张＋两对子
    ((4, 1), (2, 1)),                       # 一四张＋一对子＋两单张
    ((4, 1),),                              # 一四张＋四单张
    ((3, 1), (3, 1)),                       # 二三张＋两单张
    ((3, 1), (2, 1), (2, 1)),               # 一三张＋两对子＋一单张
    ((3, 1), (2, 1)),                       # 一三张＋一对子＋三单张
    ((3, 1),),                              # 一三张＋五单张
    ((2, 1), (2, 1), (2, 1), (2, 1)),       # 四对子
    ((2, 1), (2, 1), (2, 1)),               # 三对子＋两单张
    ((2, 1), (2, 1)),                       # 二对子＋四单张
    ((2, 1),),                              # 一对子＋六单张
    (),                                     # 八单张
]
QUAD_ANSWERS: list[Shape] = [((4, 1),), ((3, 1),), ((2, 1), (2, 1)), ((2, 1),), ()]

# 单张 10 < 两张 10 < 两张小王 < 两张大王 < 三张 10 < 三张小王 < 三张大王 < 四张 10 < ...
LEVEL_STEPS = {1: 1, 2: 2, 3: 5, 4: 8}
LITTLE_STEPS = {2: 3, 3: 6, 4: 9}
BIG_STEPS = {2: 4, 3: 7, 4: 10}


@register
class FourDeck(Ruleset):
    """升级四副牌, seed 002: 4 players in fixed teams, 4 decks, kitty 8."""

    name = "four-deck"
    aliases = ("fourdeck", "four_deck", "升级四副牌", "4deck")
    title = "升级四副牌 (four-deck)"
    seed = "002"
    options = (
        Option("players", int, 4, "players at the table (always 4)", (4,)),
        Option("decks", int, 4, "decks in play (always 4)", (4,)),
    )

    # -- deal and declarations --------------------------------------------------------------

    def declaration(self, cards: list[Card], level: Rank) -> Declaration | str:
        n = len(cards)
        if n == 0:
            return "no cards shown"
        if len(set(cards)) != 1:
            return "the cards shown must be identical (one kind of card)"
        card = cards[0]
        if card.is_joker:
            if n == 1:
                return "a single joker declares nothing (亮主不能用单张大小王来亮无主)"
            steps = BIG_STEPS if card == 53 else LITTLE_STEPS
            return Declaration(steps[n], None, f"{n} {'big' if card == 53 else 'little'} jokers "
                               "(no-trump)", card=int(card))
        if card.rank != level:
            return f"only level cards ({level.label}) or pairs of identical jokers declare"
        return Declaration(LEVEL_STEPS[n], card.suit, f"{n} × {card.symbol}", card=int(card))

    def trump_without_declaration(self, kitty: list[Card]) -> Suit | str | None:
        """「若发牌结束仍无人亮牌，则以底牌第三张的花色作为主牌花色。如果第三张是王则打无主」."""
        if len(kitty) < 3:
            return "undetermined"
        third = kitty[2]
        return None if third.is_joker else third.suit

    # -- kitty ------------------------------------------------------------------------------

    def kitty_size(self) -> int:
        return 8

    # -- tricks -----------------------------------------------------------------------------

    def answers(self, kind: tuple[int, int]) -> list[Shape]:
        return four_deck_answers(*kind)

    def follow_rule_id(self, kind: tuple[int, int]) -> str:
        width, length = kind
        if length >= 2:
            return {2: "follow.tractor-required", 3: "follow.triple-tractor-required",
                    4: "follow.quad-tractor-required"}[width]
        return {2: "follow.pair-required", 3: "follow.triple-required",
                4: "follow.quad-required"}.get(width, "follow.structure-required")

    # -- outcome ----------------------------------------------------------------------------

    def kitty_multiplier(self, winning: list[Unit]) -> int:
        """Ruling 43: 连四, 四张, 连三, 三张, 连对, 对, 单 in that order; first match 2·w^len."""
        for width, chain in ((4, True), (4, False), (3, True), (3, False), (2, True),
                             (2, False)):
            found = [u for u in winning if u.width == width and (u.length >= 2) == chain]
            if found:
                return 2 * width ** max(u.length for u in found)
        return 2

    def outcome(self, defender_points: int, kitty_points: int, multiplier: int | None,
                dealer: int, declarer: int, *, contract: int | None = None,
                bombs: tuple[int, ...] = (), face: int | None = None,
                level: str | None = None, totals: list[int] | None = None) -> Outcome:
        up, declarer_side = level_steps(defender_points)
        return team_outcome(defender_points, kitty_points, multiplier, dealer, declarer, up,
                            declarer_side)

    def point_thresholds(self) -> list[tuple[int, str]]:
        return [(80, "declarer +1"), (160, "deal passes"), (240, "defenders +1"),
                (320, "defenders +2"), (400, "defenders +3"), (480, "defenders +4")]


def level_steps(points: int) -> tuple[int, bool | None]:
    """The seed's 80-point table (ruling 44)."""
    if points == 0:
        return 3, True
    if points < 80:
        return 2, True
    if points < 160:
        return 1, True
    if points < 240:
        return 0, None
    return min(4, (points - 160) // 80), False


@cache
def four_deck_answers(width: int, length: int) -> list[Shape]:
    """A follower's answers to a lead unit, best first (ruling 45, 46).

    Derived from the seed's two lists, which this reproduces exactly: chains of the lead's width
    down to width 3 alone (longest first), then tractors of pairs with as many extra pairs as
    fit, then n-of-a-kind blocks from the lead's width down to 3 (several of them first, then
    one with as many extra pairs as fit), then pairs, then nothing.
    """
    if width == 1:
        return [()]
    n = width * length
    out: list[Shape] = []
    if length >= 2:
        for w in range(width, 2, -1):
            for ln in range(length, 1, -1):
                out.append(((w, ln),))
        for ln in range(length, 1, -1):
            rest = (n - 2 * ln) // 2
            for k in range(rest, -1, -1):
                out.append(((2, ln), *([(2, 1)] * k)))
    for w in range(width, 2, -1):
        for m in range(n // w, 1, -1):
            out.append(tuple([(w, 1)] * m))
        rest = (n - w) // 2
        for k in range(rest, -1, -1):
            out.append(((w, 1), *([(2, 1)] * k)))
    for k in range(n // 2, 0, -1):
        out.append(tuple([(2, 1)] * k))
    out.append(())
    return out
