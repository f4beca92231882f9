"""Units of a play (single, pair, triple, tractor, ...) and the searches over them.

A *unit* is ``width`` identical cards at each of ``length`` adjacent ranks of one suit class:
a single is (1, 1), a pair (2, 1), a triple (3, 1), a quad (4, 1), a tractor 拖拉机 / 连对
(2, L≥2), a Titanic / 连三 (3, L≥2), a 连四 (4, L≥2). Adjacency and rank come from the hand's
:class:`~replay.order.CardOrder`; identity (which card) decides what is "identical".

Two ways of seeing a set of cards:

- :func:`decompose`, for a lead: identical cards always stay together (seed 002's
  「一样的牌永远凑一起」; seed 001's 33344 = 333 + 44), and equal-width blocks of adjacent rank
  join into chains;
- :func:`find_chains` / :func:`cover`, for what a holding *can* show: any card with at least
  ``width`` copies can serve (a triple can give a pair), as the follow and trump rules allow.

Holdings here are plain ``{card: copies}`` dicts restricted to one suit class.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Final

from replay.order import CardOrder

Shape = tuple[tuple[int, int], ...]
"""Structured components ``(width, length)`` of an answer, most significant first; singles
are not listed (any card can be a single)."""

UNIT_NAMES = {1: "single", 2: "pair", 3: "triple", 4: "quad"}
CHAIN_NAMES = {2: "tractor", 3: "Titanic", 4: "quad tractor"}


class Unit:
    """``width`` copies of each of ``length`` adjacent ranks; ``low`` is the lowest power.

    Immutable by convention, compared and hashed by value (a plain class rather than a frozen
    dataclass: it is made in the inner loops, and compiled it is several times cheaper)."""

    __slots__ = ("cards", "length", "low", "width")

    def __init__(self, width: int, length: int, low: int, cards: tuple[int, ...]) -> None:
        self.width = width
        self.length = length
        self.low = low
        self.cards = cards  # one entry per distinct rank, lowest first

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Unit):
            return NotImplemented
        return (self.width == other.width and self.length == other.length
                and self.low == other.low and self.cards == other.cards)

    def __hash__(self) -> int:
        return hash((self.width, self.length, self.low, self.cards))

    def __repr__(self) -> str:
        return (f"Unit(width={self.width}, length={self.length}, low={self.low}, "
                f"cards={self.cards!r})")

    def __reduce__(self) -> tuple[object, ...]:
        return (Unit, (self.width, self.length, self.low, self.cards))

    @property
    def top(self) -> int:
        return self.low + self.length - 1

    @property
    def size(self) -> int:
        return self.width * self.length

    @property
    def kind(self) -> tuple[int, int]:
        return (self.width, self.length)

    @property
    def name(self) -> str:
        return unit_name(self.width, self.length)

    def all_cards(self) -> list[int]:
        return [c for c in self.cards for _ in range(self.width)]


def unit_name(width: int, length: int) -> str:
    if length == 1:
        return UNIT_NAMES.get(width, f"{width} of a kind")
    return f"{CHAIN_NAMES.get(width, f'{width}-wide chain')} of {length}"


def significance(kind: tuple[int, int]) -> tuple[int, int, int]:
    """Order of unit types, biggest first by sorting descending: 连四 > 连三 > 连对 > 四张 >
    三张 > 对子 > 单张 (seed 002; ruling 7), longer chains of a width before shorter ones."""
    width, length = kind
    return (1 if length >= 2 else 0, width, length)


def counts_of(cards: list[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for c in cards:
        out[c] = out.get(c, 0) + 1
    return out


_DECOMPOSED: Final[dict[tuple[int, tuple[int, ...]], list[Unit]]] = {}
_VALUES: Final[dict[tuple[int, ...], int]] = {}
"""best_value memo: -1 stands for None."""
_MEMO_LIMIT: Final = 20_000


def decompose(cards: list[int], order: CardOrder) -> list[Unit]:
    """The units of a lead, most significant first (identical cards stay together; units of
    one kind and power in the order played).

    Memoised per card order and sequence of cards (the order played decides ties, so a memo
    keyed on the sorted cards gave the first caller's order to every later one): the same
    plays recur across hands. Callers must not mutate the list returned."""
    if cards:
        first = cards[0]
        for c in cards:
            if c != first:
                break
        else:  # copies of one card (a single, a pair, ...): one unit, found at once
            return [Unit(len(cards), 1, order.power[first], (first,))]
    key = (order.uid, tuple(cards))
    found = _DECOMPOSED.get(key)
    if found is None:
        if len(_DECOMPOSED) > _MEMO_LIMIT:
            _DECOMPOSED.clear()
        found = _DECOMPOSED[key] = _decompose(cards, order)
    return found


def _decompose(cards: list[int], order: CardOrder) -> list[Unit]:
    by_width: dict[int, dict[int, list[int]]] = {}
    for card, n in counts_of(cards).items():
        by_width.setdefault(n, {}).setdefault(order.power[card], []).append(card)
    units: list[Unit] = []
    for width, by_power in by_width.items():
        if width == 1:
            units.extend(Unit(1, 1, p, (c,)) for p, cs in by_power.items() for c in cs)
            continue
        chain: list[tuple[int, int]] = []
        for p in sorted(by_power):
            cs = by_power[p]
            if chain and chain[-1][0] != p - 1:
                units.append(_chain_unit(width, chain))
                chain = []
            chain.append((p, cs[0]))
            units.extend(Unit(width, 1, p, (c,)) for c in cs[1:])
        if chain:
            units.append(_chain_unit(width, chain))
    units.sort(key=lambda u: (significance(u.kind), u.top), reverse=True)
    return units


def _chain_unit(width: int, chain: list[tuple[int, int]]) -> Unit:
    return Unit(width, len(chain), chain[0][0], tuple(c for _, c in chain))


def _eligible(avail: dict[int, int], order: CardOrder, width: int) -> dict[int, list[int]]:
    """Power -> cards with at least ``width`` copies."""
    out: dict[int, list[int]] = {}
    for card, n in avail.items():
        if n >= width:
            out.setdefault(order.power[card], []).append(card)
    return out


def find_chains(avail: dict[int, int], order: CardOrder, width: int, length: int,
                descending: bool = False) -> Iterator[Unit]:
    """Every placement of a (width, length) unit in ``avail``: at each rank value, every card
    that has the copies. Several cards share a rank value (the level cards of the off-suits),
    and which one a unit takes decides what is left for the others (issue 13: a triple of ♠3
    and a pair of ♥3, both level cards, are two different placements)."""
    eligible = _eligible(avail, order, width)
    starts = sorted(eligible, reverse=descending)
    for low in starts:
        if all(low + k in eligible for k in range(length)):
            choices = [eligible[low + k] for k in range(length)]
            if all(len(c) == 1 for c in choices):
                yield Unit(width, length, low, tuple(c[0] for c in choices))
            else:
                for cards in itertools.product(*choices):
                    yield Unit(width, length, low, tuple(cards))


def _take(avail: dict[int, int], unit: Unit) -> dict[int, int]:
    rest = dict(avail)
    for c in unit.cards:
        rest[c] -= unit.width
    return rest


def cover(avail: dict[int, int], order: CardOrder, shape: Shape) -> list[Unit] | None:
    """Units realising ``shape`` from ``avail`` (disjoint), or ``None`` if it cannot."""
    if not shape:
        return []
    (width, length), rest = shape[0], shape[1:]
    for unit in find_chains(avail, order, width, length):
        found = cover(_take(avail, unit), order, rest)
        if found is not None:
            return [unit, *found]
    return None


def cover_all(avail: dict[int, int], order: CardOrder, shapes: list[Shape]
              ) -> list[list[Unit]] | None:
    """Disjoint units realising every shape of ``shapes`` at once (one list per shape), or
    ``None``; backtracks over placements."""
    if not shapes:
        return []
    first, rest = shapes[0], shapes[1:]
    for placed in _covers(avail, order, first):
        after = dict(avail)
        for u in placed:
            for c in u.cards:
                after[c] -= u.width
        more = cover_all(after, order, rest)
        if more is not None:
            return [placed, *more]
    return None


def _covers(avail: dict[int, int], order: CardOrder, shape: Shape):  # type: ignore[no-untyped-def]
    if not shape:
        yield []
        return
    (width, length), rest = shape[0], shape[1:]
    for unit in find_chains(avail, order, width, length):
        after = _take(avail, unit)
        for more in _covers(after, order, rest):
            yield [unit, *more]


def shape_size(shape: Shape) -> int:
    return sum(w * n for w, n in shape)


def best_value(avail: dict[int, int], order: CardOrder, kinds: list[tuple[int, int]]) -> int | None:
    """The highest top power of a unit of ``kinds[0]`` in a covering of all structured
    ``kinds`` from ``avail``; ``None`` if they cannot all be covered (ruling 7). Memoised."""
    power = order.power  # the value depends only on the powers and copies (adjacency is by power)
    singles = True
    for w, _ in kinds:
        if w != 1:
            singles = False
            break
    if singles:  # no structure: the highest card, as _best_value finds it
        top = -1
        for c, n in avail.items():
            if n > 0 and power[c] > top:
                top = power[c]
        return None if top < 0 else top
    codes = [w * 256 + n for w, n in kinds]
    codes.append(-1)
    ranks: dict[int, int] = {}
    shape_codes(avail, power, 1, codes, ranks)
    key = tuple(codes)  # flat ints: cheap to hash
    found = _VALUES.get(key, -2)
    if found == -2:
        if len(_VALUES) > _MEMO_LIMIT:
            _VALUES.clear()
        value = _best_value(avail, order, kinds)
        _VALUES[key] = -1 if value is None else ranks[value]
        return value
    if found == -1:
        return None
    for p, rank in ranks.items():  # the power at that rank in this holding
        if rank == found:
            return p
    raise AssertionError("a memoised rank outside the holding")


def shape_codes(avail: dict[int, int], power: tuple[int, ...], least: int, codes: list[int],
                ranks: dict[int, int] | None = None) -> None:
    """Append to ``codes`` what decides every unit question about ``avail`` (the cards with
    at least ``least`` copies): their copies and how their powers touch, as ``rank * 64 +
    copies`` in power order, where the ranks keep equal powers equal and adjacent powers
    adjacent and put a gap of two for any wider gap. So holdings alike but for where they sit
    in the suit share a memo entry. Fills ``ranks`` (power -> rank) when given."""
    found = sorted([power[c] * 64 + n for c, n in avail.items() if n >= least])
    rank = 0
    last = -2
    for code in found:
        p = code >> 6
        if p != last:
            rank += 1 if p == last + 1 else 2
            last = p
            if ranks is not None:
                ranks[p] = rank
        codes.append(rank * 64 + (code & 63))


def _best_value(avail: dict[int, int], order: CardOrder, kinds: list[tuple[int, int]]
                ) -> int | None:
    structured = tuple(k for k in kinds if k != (1, 1))
    if not structured:  # singles only: the highest card
        return max((order.power[c] for c in avail if avail[c] > 0), default=None)
    (width, length), rest = structured[0], structured[1:]
    for unit in find_chains(avail, order, width, length, descending=True):
        if cover(_take(avail, unit), order, rest) is not None:
            return unit.top
    return None


def beats_unit(avail: dict[int, int], order: CardOrder, unit: Unit) -> Unit | None:
    """A unit in ``avail`` that beats ``unit``: as many copies, as long, starting strictly
    higher (rulings 1 and 3); ``None`` if there is none."""
    width = unit.width
    if unit.length == 1:  # a single, pair, ...: the highest card with the copies, as
        power = order.power  # find_chains picks it (the first of equal powers)
        top_power, top_card = -1, -1
        for card, n in avail.items():
            if n >= width and power[card] > top_power:
                top_power, top_card = power[card], card
        return Unit(width, 1, top_power, (top_card,)) if top_power > unit.low else None
    for candidate in find_chains(avail, order, width, unit.length, descending=True):
        if candidate.low > unit.low:
            return candidate
        break
    return None
