"""The typed game record: events, hands and matches.

A record is a flat sequence of *events*. Each event carries the id of its match, its hand
number (0 for the match header, then 1, 2, ...) and its sequence number within that hand, so
files can be concatenated, split, sorted and streamed. Events are immutable msgspec Structs in
one tagged union (the JSON field ``type`` names the kind), which gives fast strict decoding and
a JSON Schema for free.

Conventions, the same in every event:

- seats are 0-based in playing order; teams are 0 (seats 0, 2) and 1 (seats 1, 3) where fixed;
- cards are canonical tokens (``AS``, ``TH``, ``BJ``, ``LJ``); ``?`` is a card that exists but is
  hidden from the record (*unknown*), while a field that is absent or ``null`` does not apply;
- results recorded by the source (trick winners, points, multipliers, level changes, next
  dealer, settlement) are claims: the replayer recomputes and checks them, never trusts them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Annotated, Literal, TypeAlias, Union

import msgspec

from gamelog.cards import CARD_TOKENS, UNKNOWN

FORMAT_VERSION = "1.2"
"""``MAJOR.MINOR``. A reader accepts any minor of its major; see docs/format.md, *Versioning*."""

CardToken = Literal[CARD_TOKENS]  # type: ignore[valid-type]
"""A canonical card spelling."""
HiddenOrCard = Literal[(*CARD_TOKENS, UNKNOWN)]  # type: ignore[valid-type]
"""A card, or ``?`` for a card hidden from the record."""
LevelRank = Literal["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "NT"]
"""A level (级): the rank being played, or ``NT`` past the ace where a ruleset has it (打万分)."""
TrumpSuit = Literal["S", "H", "C", "D", "NT"]
"""The trump suit (主花色), or ``NT`` for no-trump (无主)."""
Int32 = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]
"""Every integer of the record fits a signed 32-bit Parquet column; a larger one is a located
error when read, never an overflow when written."""
OptionValue: TypeAlias = bool | Int32 | float | str

# gc=False: events hold no reference cycles, so the garbage collector need not track them
# (msgspec's advice for many small objects; it makes reading large files much faster).
_CONFIG = dict(frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True, gc=False)


class SeatInfo(msgspec.Struct, **_CONFIG):
    """Who sits where: a player id from the source system, a display name and a team."""

    seat: Int32
    player: str | None = None
    name: str | None = None
    team: Int32 | None = None


class Blocker(msgspec.Struct, **_CONFIG):
    """A seat that holds cards beating a unit of a thrown lead, and those cards."""

    seat: Int32
    cards: list[CardToken]


class Event(
    msgspec.Struct, tag_field="type", frozen=True, omit_defaults=True, forbid_unknown_fields=True,
    gc=False,
):
    """Fields every event carries: match id, hand number, sequence number, optional note."""

    match: str
    hand: Int32
    seq: Int32
    note: str | None = None


class MatchStart(Event, tag="match", kw_only=True):
    """The match header (hand 0, seq 0): format version, ruleset, options, seats, tags.

    ``options`` holds every ruleset option beyond players and decks as typed JSON values;
    ``levels`` the starting level of each team (index = team); ``tags`` any free-form
    ``name: value`` pairs (date, site, event, round...), kept as given.
    """

    version: str
    ruleset: str
    players: Int32
    decks: Int32
    options: dict[str, OptionValue] = {}
    seats: list[SeatInfo] = []
    levels: list[LevelRank] | None = None
    source: str | None = None
    tags: dict[str, str] = {}


class HandStart(Event, tag="hand", kw_only=True):
    """Start of a hand (seq 0 of every hand): who deals and declares, the level, who draws first.

    ``levels`` are the teams' levels as the hand starts; ``level`` the rank played this hand,
    when known before the declarations settle it.
    """

    dealer: Int32 | None = None
    declarer: Int32 | None = None
    level: LevelRank | None = None
    levels: list[LevelRank] | None = None
    first_draw: Int32 | None = None


class Deal(Event, tag="deal", kw_only=True):
    """The deal: each seat's cards in the order drawn, and the kitty (底牌) in dealt order.

    Drawing is round-robin from ``first_draw`` of the hand start, so the cards a seat held
    after ``n`` cards had been dealt in all follow from this order alone.
    """

    holdings: list[list[HiddenOrCard]]
    kitty: list[HiddenOrCard] | None = None


class Setup(Event, tag="setup", kw_only=True):
    """A set-up position (like chess's FEN), in place of a full deal.

    The hand starts at a trick boundary with these holdings, trump, level, declarer, leader,
    points already taken by the defenders and tricks already played; in an auction game, the
    contract (the winning bid) in place of the auction. Hidden cards are ``?``;
    ``kitty`` is ``null`` when the position has no kitty to account for.
    """

    holdings: list[list[HiddenOrCard]]
    kitty: list[HiddenOrCard] | None = None
    trump: TrumpSuit | None = None
    level: LevelRank | None = None
    declarer: Int32 | None = None
    leader: Int32 | None = None
    points: Int32 = 0
    tricks: Int32 = 0
    contract: Int32 | None = None
    """The winning bid of an auction game (标分) already decided (format 1.2)."""


class Declare(Event, tag="declare", kw_only=True):
    """A trump declaration, reinforcement or override (亮主 / 反主): the cards shown.

    ``drawn`` is how many cards had been dealt in all when it was made (``null``: after the
    deal), so the replayer can check the seat held them at that moment.
    """

    seat: Int32
    cards: list[CardToken]
    drawn: Int32 | None = None


class Bid(Event, tag="bid", kw_only=True):
    """A bid in an auction (标分): the points the defenders are allowed."""

    seat: Int32
    points: Int32


class Pass(Event, tag="pass", kw_only=True):
    """A pass in an auction."""

    seat: Int32


class TrumpChosen(Event, tag="trump", kw_only=True):
    """Trump fixed other than by declaration: named by a bidder, or turned up from the kitty.

    ``cards`` are the cards turned up to decide it, where that is how it was decided.
    """

    trump: TrumpSuit
    seat: Int32 | None = None
    cards: list[CardToken] | None = None


class KittyTake(Event, tag="kitty_take", kw_only=True):
    """The declarer picks up the kitty."""

    seat: Int32
    cards: list[HiddenOrCard]


class KittyBury(Event, tag="kitty_bury", kw_only=True):
    """The declarer buries a new kitty (扣底)."""

    seat: Int32
    cards: list[HiddenOrCard]


class Play(Event, tag="play", kw_only=True):
    """Cards played to a trick: a lead, a follow, or the forced part of a failed throw."""

    seat: Int32
    cards: list[CardToken]


class ThrowFail(Event, tag="throw_fail", kw_only=True):
    """A throw (甩牌) that failed: the cards attempted and, if the source knows, who could beat it.

    The forced play follows as a ``play`` event of the same seat.
    """

    seat: Int32
    cards: list[CardToken]
    blockers: list[Blocker] | None = None


class Surrender(Event, tag="surrender", kw_only=True):
    """The seat concedes the hand (投降) where the ruleset allows it."""

    seat: Int32


class TrickEnd(Event, tag="trick", kw_only=True):
    """The source's claim of a trick's winner and the points in it (trick numbers from 1)."""

    trick: Int32
    winner: Int32
    points: Int32 | None = None


class Result(Event, tag="result", kw_only=True):
    """The source's claim of the hand's outcome; every field optional.

    ``defender_points`` includes the kitty award; ``level_change`` and ``settlement`` are
    indexed by team and by seat; ``round_settlement`` (format 1.1) is the per-seat settlement of
    a round of hands closed by this one (标分's rounds of six).
    """

    defender_points: Int32 | None = None
    kitty_points: Int32 | None = None
    kitty_multiplier: Int32 | None = None
    level_change: list[Int32] | None = None
    next_dealer: Int32 | None = None
    settlement: list[Int32] | None = None
    round_settlement: list[Int32] | None = None


AnyEvent = Union[  # noqa: UP007 - msgspec needs a real Union of the classes
    MatchStart, HandStart, Deal, Setup, Declare, Bid, Pass, TrumpChosen, KittyTake, KittyBury,
    Play, ThrowFail, Surrender, TrickEnd, Result,
]
EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__  # type: ignore[attr-defined]
EVENT_BY_TAG: dict[str, type[Event]] = {t.__struct_config__.tag: t for t in EVENT_TYPES}


@dataclass(slots=True)
class Hand:
    """One deal played out: its events in order, the match header they belong to, and any
    problems found while reading them (a hand with issues is still returned)."""

    match: str
    number: Int32
    events: list[Event]
    header: MatchStart | None = None
    issues: list = field(default_factory=list)
    source: str | None = None
    first_line: Int32 | None = None

    @property
    def start(self) -> HandStart | None:
        first = self.events[0] if self.events else None
        return first if isinstance(first, HandStart) else None

    def of_type(self, kind: type[Event]) -> list[Event]:
        return [e for e in self.events if isinstance(e, kind)]


@dataclass(slots=True)
class Match:
    """A header and its hands, in order."""

    header: MatchStart
    hands: list[Hand] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.header.match

    def events(self) -> list[Event]:
        out: list[Event] = [self.header]
        for hand in self.hands:
            out.extend(hand.events)
        return out


def group_matches(items: Iterable[Hand | MatchStart]) -> list[Match]:
    """Hands (and headers) grouped into their matches, in the order met."""
    matches: dict[str, Match] = {}
    for item in items:
        if isinstance(item, MatchStart):
            matches.setdefault(item.match, Match(item))
        elif item.header is not None:
            matches.setdefault(item.match, Match(item.header)).hands.append(item)
    return list(matches.values())
