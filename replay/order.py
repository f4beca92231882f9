"""Card order for one hand: which cards are trumps and how every card ranks.

A :class:`CardOrder` maps each of the 54 cards to a *suit class* (0-3 for the off-suits
♠♥♣♦, :data:`TRUMP` for all trumps, 主) and a *power* within that class: a higher power beats a
lower one, equal powers tie (the first played wins), and powers that differ by one are adjacent
for tractors. Rulesets build it from the trump suit and level rank; the engine never looks at
printed suits or ranks again, so a permanent trump (标分's 2s, 打万分's 军长) is just a card
with a trump class and a power.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from gamelog.cards import BIG_JOKER_INDEX, LITTLE_JOKER_INDEX, SUITS, Card, Rank, Suit

_UIDS = itertools.count(1)

TRUMP: Final = 4
"""The suit class of every trump."""
CLASS_NAMES = ("♠", "♥", "♣", "♦", "trump")


@dataclass(frozen=True, slots=True)
class CardOrder:
    """Suit class and power of each of the 54 cards (index = card)."""

    klass: tuple[int, ...]
    power: tuple[int, ...]
    trump: Suit | None
    level: Rank | None
    members: tuple[tuple[int, ...], ...] = ()
    """The cards of each suit class (index = class)."""
    uid: int = 0
    """A number unique to this order, for memo keys."""

    def __post_init__(self) -> None:
        if not self.members:
            members = tuple(tuple(c for c in range(54) if self.klass[c] == k) for k in range(5))
            object.__setattr__(self, "members", members)
        object.__setattr__(self, "uid", next(_UIDS))

    def __copy__(self) -> CardOrder:
        return self  # immutable

    def __deepcopy__(self, memo: dict[int, Any]) -> CardOrder:
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # explicit: pickle works compiled too
        return (CardOrder, (self.klass, self.power, self.trump, self.level, self.members))

    def is_trump(self, card: int) -> bool:
        return self.klass[card] == TRUMP

    def class_name(self, klass: int) -> str:
        return CLASS_NAMES[klass]

    def sort_key(self, card: int) -> tuple[int, int, int]:
        """Display order: trumps first, then ♠♥♣♦; high cards first."""
        k = self.klass[card]
        return (0 if k == TRUMP else 1 + k, -self.power[card], card)

    def sorted(self, cards: Iterable[int]) -> list[Card]:
        return [Card(c) for c in sorted(cards, key=self.sort_key)]


@cache
def standard_order(trump: Suit | None, level: Rank | None,
                   extra_trumps: tuple[tuple[int, int], ...] = ()) -> CardOrder:
    """The tractor family's order (seed 001): jokers, trump-suit level card, other level cards,
    then the trump suit A..2 without the level rank; off-suits A..2 without the level rank.

    ``extra_trumps`` is a list of ``(card, power)`` overrides for rulesets with more permanent
    trumps; ``trump=None`` is no-trump, ``level=None`` a hand without level cards.
    """
    key = (trump, level, extra_trumps)
    known = _ORDERS.get(key)
    if known is not None:
        return known
    klass = [0] * 54
    power = [0] * 54
    plain = [int(r) - 2 for r in Rank if r != level]  # a suited card is suit * 13 + rank - 2
    for s in SUITS:
        base = s.index * 13
        k = TRUMP if s == trump else s.index
        for p, r in enumerate(plain):
            klass[base + r] = k
            power[base + r] = p
    top = len(plain)
    if level is not None:
        for s in SUITS:
            c = s.index * 13 + int(level) - 2
            klass[c] = TRUMP
            power[c] = top + (1 if s == trump else 0)
        top += 2 if trump is not None else 1
    klass[LITTLE_JOKER_INDEX] = klass[BIG_JOKER_INDEX] = TRUMP
    power[LITTLE_JOKER_INDEX] = top
    power[BIG_JOKER_INDEX] = top + 1
    for card, p in extra_trumps:
        klass[card] = TRUMP
        power[card] = p
    order = _ORDERS[key] = CardOrder(tuple(klass), tuple(power), trump, level)
    return order


_ORDERS: Final[dict[tuple[Suit | None, Rank | None, tuple[tuple[int, int], ...]], CardOrder]] = {}
"""standard_order's answers: an order depends only on its arguments and is immutable, so one
object serves every hand with the same trump and level (and the memos keyed on its ``uid``
serve them too). A few dozen at most."""
