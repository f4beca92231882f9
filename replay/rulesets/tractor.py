"""Ruleset ``tractor``: 拖拉机 / 升级 with 1, 2 or 3 decks (seed 001). Spec: docs/rules/tractor.md."""

from __future__ import annotations

from functools import cache

from gamelog.cards import Card, Rank
from replay.rulesets.base import (
    Declaration,
    Option,
    Outcome,
    Ruleset,
    chain_answers,
    register,
    team_outcome,
)
from replay.units import Shape, Unit

# The seed's own lists for 3 decks (「新增规则」), best first; ruling 33 for what they omit.
TITANIC_ANSWERS: list[Shape] = [
    ((3, 2),),
    ((3, 1), (3, 1)),
    ((2, 2),),
    ((3, 1), (2, 1)),
    ((3, 1),),
    ((2, 1), (2, 1)),
    ((2, 1),),
    (),
]
TRIPLE_ANSWERS: list[Shape] = [((3, 1),), ((2, 1),), ()]


@register
class Tractor(Ruleset):
    """拖拉机 (Tractor), seed 001: 4 players in fixed teams, 1-3 decks."""

    name = "tractor"
    aliases = ("tuolaji", "拖拉机", "shengji", "升级", "80")
    title = "拖拉机 / 升级 (Tractor), 1-3 decks"
    seed = "001"
    first_dealer_declares_last = True  # 「第一局的庄家由翻主方担任」 (ruling 33c)
    options = (
        Option("players", int, 4, "players at the table (always 4)", (4,)),
        Option("decks", int, 2, "decks in play", (1, 2, 3)),
    )

    # -- deal and declarations --------------------------------------------------------------

    def declaration(self, cards: list[Card], level: Rank) -> Declaration | str:
        n = len(cards)
        if n == 0:
            return "no cards shown"
        if all(c.is_joker for c in cards):
            if n == 1:
                return "a single joker declares nothing"
            steps = {2: {2: 3}, 3: {2: 3, 3: 5}}.get(self.decks, {})
            if n not in steps:
                return f"{n} jokers are not a declaration with {self.decks} deck(s)"
            return Declaration(steps[n], None, f"{n} jokers (no-trump)")
        if any(c.rank != level for c in cards):
            return f"only level cards ({level}) or jokers declare"
        if len(set(cards)) != 1:
            return "the level cards shown must be identical (one suit)"
        steps = {1: {1: 1}, 2: {1: 1, 2: 2}, 3: {1: 1, 2: 2, 3: 4}}[self.decks]
        if n not in steps:
            return f"{n} level cards are not a declaration with {self.decks} deck(s)"
        suit = cards[0].suit
        label = {1: "a single", 2: "a pair of", 3: "three"}[n]
        return Declaration(steps[n], suit, f"{label} {cards[0].symbol}", card=int(cards[0]))

    # -- kitty ------------------------------------------------------------------------------

    def kitty_size(self) -> int:
        return {1: 6, 2: 8, 3: 6}[self.decks]

    # -- tricks -----------------------------------------------------------------------------

    def answers(self, kind: tuple[int, int]) -> list[Shape]:
        return _answers(kind)

    # -- outcome ----------------------------------------------------------------------------

    def kitty_multiplier(self, winning: list[Unit]) -> int:
        """Rulings 30-32: first match of Titanic 2·3^len, triple 6, tractor 2·2^len, pair 4, 2."""
        def longest(width: int, chain: bool) -> int:
            return max((u.length for u in winning
                        if u.width == width and (u.length >= 2) == chain), default=0)

        if (n := longest(3, True)):
            return 2 * 3 ** n
        if longest(3, False):
            return 6
        if (n := longest(2, True)):
            return 2 * 2 ** n
        if longest(2, False):
            return 4
        return 2

    def outcome(self, defender_points: int, kitty_points: int, multiplier: int | None,
                dealer: int, declarer: int, *, contract: int | None = None,
                bombs: tuple[int, ...] = (), face: int | None = None,
                level: str | None = None, totals: list[int] | None = None) -> Outcome:
        up, declarer_side = level_steps(self.decks, defender_points)
        return team_outcome(defender_points, kitty_points, multiplier, dealer, declarer, up,
                            declarer_side)

    def point_thresholds(self) -> list[tuple[int, str]]:
        return _thresholds(self.decks)


def _thresholds(decks: int) -> list[tuple[int, str]]:
    if decks == 1:
        return [(40, "deal passes"), (80, "defenders +1"), (100, "defenders +2")]
    if decks == 2:
        return [(40, "declarer +1"), (80, "defenders +1"), (120, "defenders +2"),
                (160, "defenders +3")]
    return [(60, "declarer +1"), (120, "defenders take over"), (180, "defenders +1"),
            (240, "defenders +2")]


def level_steps(decks: int, points: int) -> tuple[int, bool | None]:
    """(levels gained, True = declarer side / False = defenders / None = nobody) by the seed's
    tables for 1, 2 and 3 decks (rulings 38, 40)."""
    if decks == 1:
        if points == 0:
            return 2, True
        if points < 40:
            return 1, True
        if points < 80:
            return 0, None
        return (1 if points < 100 else 2), False
    if decks == 2:
        if points == 0:
            return 3, True
        if points < 40:
            return 2, True
        if points < 80:
            return 1, True
        return 1 + (points - 80) // 40, False
    if points == 0:
        return 3, True
    if points < 60:
        return 2, True
    if points < 120:
        return 1, True
    return (points - 120) // 60, False


@cache
def _answers(kind: tuple[int, int]) -> list[Shape]:
    width, length = kind
    if width == 1:
        return [()]
    if width == 3 and length == 1:
        return TRIPLE_ANSWERS
    if width == 3:
        return titanic_answers(length)
    return chain_answers(2, length)


def titanic_answers(n: int) -> list[Shape]:
    """The follow list against a Titanic of ``n`` triples, best first (rulings 33, 33a).

    The seed's list for two triples scaled: the Titanic; ``n`` triples; a tractor of ``n``
    pairs; mixtures, more triples before fewer, each triple slot not filled by a triple filled
    by a pair where one is held; then what a tractor of ``n`` pairs would be owed after its own
    tractor (shorter tractors, ``n`` pairs, fewer pairs), so that a follower never owes less
    against a Titanic than against a tractor of as many pairs, nor against a longer Titanic
    than a shorter one. For ``n`` = 2 this is exactly the seed's list."""
    out: list[Shape] = [((3, n),), ((3, 1),) * n, ((2, n),)]
    for triples in range(n - 1, 0, -1):
        for pairs in range(n - triples, -1, -1):
            out.append(((3, 1),) * triples + ((2, 1),) * pairs)
    out.extend(shape for shape in chain_answers(2, n)[1:] if shape not in out)
    return out
