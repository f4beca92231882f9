"""Cards, suits, ranks and seats: the small value types of the record.

A :class:`Card` is one of the 54 distinct faces (52 suited cards and two jokers). Copies from
several decks are the same card, so a holding is a multiset: :func:`count_vector` turns a list
of cards into 54 counts. ``str(card)`` is the one canonical ASCII spelling, rank first, with
``T`` for ten (``AS``, ``TH``, ``2C``) and ``BJ`` / ``LJ`` for the big and little joker
(大王 / 小王). :func:`parse_card` reads every common spelling people paste: suit symbols
(♠♥♦♣ and ♤♡♢♧), ``10`` or ``T``, either case, suit first or rank first, Chinese suit names
(黑桃 红桃 梅花 方块) and 大王 / 小王.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator
from typing import Final

from gamelog.errors import AmbiguousCardError, MalformedCardError


class Suit(enum.StrEnum):
    """A printed suit. The value is the canonical ASCII letter."""

    SPADES = "S"
    HEARTS = "H"
    CLUBS = "C"
    DIAMONDS = "D"

    @property
    def index(self) -> int:
        return _SUIT_INDEX[self]

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOL[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def chinese(self) -> str:
        return _SUIT_CHINESE[self]


SUITS: Final = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}
_SUIT_SYMBOL = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.CLUBS: "♣", Suit.DIAMONDS: "♦"}
_SUIT_CHINESE = {Suit.SPADES: "黑桃", Suit.HEARTS: "红桃", Suit.CLUBS: "梅花", Suit.DIAMONDS: "方块"}


class Rank(enum.IntEnum):
    """A printed rank, 2 (low) to ace (14)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    def __str__(self) -> str:
        return _RANK_ASCII[self]

    @property
    def label(self) -> str:
        """The rank as people print it: ``10`` rather than ``T``."""
        return "10" if self is Rank.TEN else _RANK_ASCII[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Read ``2``-``10``, ``T``, ``J``, ``Q``, ``K``, ``A`` in either case."""
        try:
            return _RANK_TOKENS[text.strip().upper()]
        except KeyError:
            raise MalformedCardError(f"unknown rank {text!r}") from None


RANKS: Final = tuple(Rank)
_RANK_ASCII = {r: ("T" if r == 10 else ["J", "Q", "K", "A"][r - 11] if r > 10 else str(int(r)))
               for r in Rank}
_RANK_TOKENS = {str(r): r for r in Rank} | {"10": Rank.TEN}

LITTLE_JOKER_INDEX: Final = 52
BIG_JOKER_INDEX: Final = 53
DISTINCT_CARDS: Final = 54
UNKNOWN: Final = "?"
"""The token for a card that exists but is hidden from the record (mjai's ``?``)."""


class Card(int):
    """One of the 54 distinct cards; the int value is its index in a count vector.

    Index = suit index × 13 + (rank − 2) for ♠♥♣♦, then 52 little joker, 53 big joker.
    """

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if not isinstance(index, int) or not 0 <= index < DISTINCT_CARDS:
            raise MalformedCardError(f"no card has index {index!r}")
        return _ALL[index]

    @classmethod
    def of(cls, rank: Rank | int, suit: Suit | str) -> Card:
        """The suited card of ``rank`` and ``suit``."""
        return _ALL[Suit(suit).index * 13 + int(rank) - 2]

    @property
    def is_joker(self) -> bool:
        return self >= LITTLE_JOKER_INDEX

    @property
    def suit(self) -> Suit | None:
        """The printed suit; ``None`` for a joker."""
        return None if self >= LITTLE_JOKER_INDEX else SUITS[self // 13]

    @property
    def rank(self) -> Rank | None:
        """The printed rank; ``None`` for a joker."""
        return None if self >= LITTLE_JOKER_INDEX else RANKS[self % 13]

    @property
    def is_red(self) -> bool:
        """Red on the table: hearts, diamonds and the big joker."""
        if self >= LITTLE_JOKER_INDEX:
            return self == BIG_JOKER_INDEX
        return SUITS[self // 13].is_red

    @property
    def points(self) -> int:
        """Face points in the tractor family: 5 → 5, 10 and K → 10 (rulesets may differ)."""
        r = self.rank
        return 5 if r == Rank.FIVE else 10 if r in (Rank.TEN, Rank.KING) else 0

    def __str__(self) -> str:
        return _ASCII[self]

    def __repr__(self) -> str:
        return f"Card({_ASCII[self]!r})"

    @property
    def symbol(self) -> str:
        """Terminal / HTML text: suit symbol then rank (``♠10``), or 大王 / 小王 in ``zh``."""
        return _SYMBOL[self]

    def display(self, lang: str = "en") -> str:
        """The symbol form, with Chinese joker names when ``lang == "zh"``."""
        if lang == "zh" and self >= LITTLE_JOKER_INDEX:
            return "大王" if self == BIG_JOKER_INDEX else "小王"
        return _SYMBOL[self]

    def ansi(self) -> str:
        """The symbol form coloured for a terminal (red or default)."""
        return f"\x1b[31m{_SYMBOL[self]}\x1b[0m" if self.is_red else _SYMBOL[self]

    @classmethod
    def parse(cls, text: str) -> Card:
        return parse_card(text)


def _ascii(i: int) -> str:
    if i == LITTLE_JOKER_INDEX:
        return "LJ"
    if i == BIG_JOKER_INDEX:
        return "BJ"
    return f"{_RANK_ASCII[RANKS[i % 13]]}{SUITS[i // 13].value}"


def _symbol(i: int) -> str:
    if i == LITTLE_JOKER_INDEX:
        return "LJ"
    if i == BIG_JOKER_INDEX:
        return "BJ"
    return f"{SUITS[i // 13].symbol}{RANKS[i % 13].label}"


_ASCII: Final = tuple(_ascii(i) for i in range(DISTINCT_CARDS))
_SYMBOL: Final = tuple(_symbol(i) for i in range(DISTINCT_CARDS))
_ALL: Final = tuple(int.__new__(Card, i) for i in range(DISTINCT_CARDS))
CARDS: Final = _ALL
CARD_TOKENS: Final = _ASCII
"""The canonical spellings, in index order: the only card tokens a record file holds."""
CARD_BY_TOKEN: Final = {t: _ALL[i] for i, t in enumerate(_ASCII)}
LITTLE_JOKER: Final = _ALL[LITTLE_JOKER_INDEX]
BIG_JOKER: Final = _ALL[BIG_JOKER_INDEX]

# --- parsing every common spelling -------------------------------------------------------------

_SUIT_ALIASES: Final = {
    "S": Suit.SPADES, "♠": Suit.SPADES, "♤": Suit.SPADES, "黑桃": Suit.SPADES, "黑": Suit.SPADES,
    "H": Suit.HEARTS, "♥": Suit.HEARTS, "♡": Suit.HEARTS, "红桃": Suit.HEARTS, "红心": Suit.HEARTS,
    "红": Suit.HEARTS, "♥️": Suit.HEARTS,
    "C": Suit.CLUBS, "♣": Suit.CLUBS, "♧": Suit.CLUBS, "梅花": Suit.CLUBS, "草花": Suit.CLUBS,
    "梅": Suit.CLUBS,
    "D": Suit.DIAMONDS, "♦": Suit.DIAMONDS, "♢": Suit.DIAMONDS, "方块": Suit.DIAMONDS,
    "方片": Suit.DIAMONDS, "方": Suit.DIAMONDS, "♦️": Suit.DIAMONDS,
}
_JOKER_ALIASES: Final = {
    "BJ": BIG_JOKER, "RJ": BIG_JOKER, "大王": BIG_JOKER, "大鬼": BIG_JOKER, "DW": BIG_JOKER,
    "BIGJOKER": BIG_JOKER, "BIG": BIG_JOKER, "JOKER+": BIG_JOKER, "JO+": BIG_JOKER,
    "LJ": LITTLE_JOKER, "小王": LITTLE_JOKER, "小鬼": LITTLE_JOKER, "XW": LITTLE_JOKER,
    "LITTLEJOKER": LITTLE_JOKER, "SMALLJOKER": LITTLE_JOKER, "SMALL": LITTLE_JOKER,
    "LITTLE": LITTLE_JOKER, "JOKER-": LITTLE_JOKER, "JO-": LITTLE_JOKER,
}
_AMBIGUOUS: Final = {
    "SJ": "'SJ' is the small joker in some logs and ♠J (suit first) in others; "
          "write 'LJ' for the little joker or 'JS' for the jack of spades",
    "JOKER": "'joker' does not say which joker; write 'BJ' (大王) or 'LJ' (小王)",
    "JO": "'jo' does not say which joker; write 'BJ' (大王) or 'LJ' (小王)",
    "王": "'王' does not say which joker; write 大王 or 小王",
}
# Longest aliases first so that 黑桃 wins over 黑.
_SUIT_KEYS: Final = sorted(_SUIT_ALIASES, key=len, reverse=True)


def parse_card(text: str) -> Card:
    """Read one card in any common spelling.

    Raises :class:`MalformedCardError` when the text names no card and
    :class:`AmbiguousCardError` when it could name two.
    """
    card = CARD_BY_TOKEN.get(text)
    if card is not None:
        return card
    key = "".join(text.split()).upper().replace("_", "").replace("-JOKER", "JOKER")
    if not key:
        raise MalformedCardError("empty card")
    if key in _AMBIGUOUS:
        raise AmbiguousCardError(_AMBIGUOUS[key])
    joker = _JOKER_ALIASES.get(key)
    if joker is not None:
        return joker
    matches: set[Card] = set()
    for alias in _SUIT_KEYS:
        suit = _SUIT_ALIASES[alias]
        if key.startswith(alias):
            rank = _RANK_TOKENS.get(key[len(alias):])
            if rank is not None:
                matches.add(Card.of(rank, suit))
        if key.endswith(alias):
            rank = _RANK_TOKENS.get(key[: -len(alias)])
            if rank is not None:
                matches.add(Card.of(rank, suit))
    if len(matches) == 1:
        return matches.pop()
    if len(matches) > 1:
        names = " or ".join(sorted(str(c) for c in matches))
        raise AmbiguousCardError(f"{text!r} could be {names}")
    raise MalformedCardError(f"{text!r} is not a card (try 'AS', '10H', '♠Q', '黑桃A', 'BJ')")


_SEPARATORS: Final = re.compile(r"[\s,;/|]+")
_CONCATENATED: Final = re.compile(
    r"(黑桃|红桃|红心|梅花|草花|方块|方片|[♠♤♥♡♣♧♦♢]️?)(10|[2-9TJQKAtjqka])|大王|小王"
)


def parse_cards(text: str) -> list[Card]:
    """Read a list of cards separated by spaces or commas, or glued as ``♠Q♠Q`` / ``黑桃A红桃10``."""
    cards: list[Card] = []
    for chunk in _SEPARATORS.split(text.strip()):
        if not chunk:
            continue
        try:
            cards.append(parse_card(chunk))
        except MalformedCardError:
            pieces = [m.group(0) for m in _CONCATENATED.finditer(chunk)]
            if not pieces or "".join(pieces) != chunk:
                raise
            cards.extend(parse_card(p) for p in pieces)
    return cards


def suggest_token(text: str) -> str | None:
    """The canonical token for a non-canonical spelling, or ``None`` if it names no one card."""
    try:
        return str(parse_card(text))
    except MalformedCardError:
        return None
    except AmbiguousCardError:
        return None


# --- multisets ---------------------------------------------------------------------------------


def count_vector(cards: Iterable[Card | int]) -> list[int]:
    """The 54 copy counts of a multiset of cards."""
    counts = [0] * DISTINCT_CARDS
    for c in cards:
        counts[c] += 1
    return counts


def cards_from_tokens(tokens: Iterable[str]) -> list[Card]:
    """Canonical tokens to cards (``?`` is rejected: it is no card)."""
    try:
        return [CARD_BY_TOKEN[t] for t in tokens]
    except KeyError as exc:
        raise MalformedCardError(f"{exc.args[0]!r} is not a canonical card token") from None


def tokens(cards: Iterable[Card]) -> list[str]:
    """Cards to their canonical tokens."""
    return [_ASCII[c] for c in cards]


def full_deck(decks: int = 1) -> list[Card]:
    """Every card of ``decks`` decks, in index order."""
    return [c for c in _ALL for _ in range(decks)]


def sort_key_by_suit(card: Card) -> tuple[int, int]:
    """A plain display order: jokers first, then ♠♥♣♦, high ranks first."""
    if card >= LITTLE_JOKER_INDEX:
        return (0, -int(card))
    return (1 + card // 13, -(card % 13))


def format_cards(cards: Iterable[Card], style: str = "symbol") -> str:
    """Cards as text: ``symbol`` (♠A ♥10), ``ascii`` (AS TH) or ``ansi`` (coloured symbols)."""
    if style == "ascii":
        return " ".join(_ASCII[c] for c in cards)
    if style == "ansi":
        return " ".join(Card(c).ansi() for c in cards)
    return " ".join(_SYMBOL[c] for c in cards)


def iter_distinct(counts: list[int]) -> Iterator[tuple[Card, int]]:
    """``(card, copies)`` for every card present in a count vector."""
    for i, n in enumerate(counts):
        if n:
            yield _ALL[i], n
