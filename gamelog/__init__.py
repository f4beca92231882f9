"""gamelog: the standardized record of 升级 / 拖拉机 (Shengji) games, as JSON Lines and Parquet.

Cards and seats (:mod:`gamelog.cards`, :mod:`gamelog.seats`), the typed events
(:mod:`gamelog.model`), and readers and writers for both formats (:mod:`gamelog.files`).
This layer knows cards and records, not rules.
"""

from gamelog.cards import (
    BIG_JOKER,
    CARD_TOKENS,
    LITTLE_JOKER,
    UNKNOWN,
    Card,
    Rank,
    Suit,
    count_vector,
    format_cards,
    parse_card,
    parse_cards,
)
from gamelog.errors import (
    AmbiguousCardError,
    CardError,
    GamelogError,
    GamelogIOError,
    MalformedCardError,
    MalformedRecordError,
    RecordError,
    UnsupportedVersionError,
)
from gamelog.files import dump, dumps, load, loads, read, read_hands, record_files
from gamelog.model import (
    FORMAT_VERSION,
    AnyEvent,
    Bid,
    Blocker,
    Deal,
    Declare,
    Event,
    Hand,
    HandStart,
    KittyBury,
    KittyTake,
    Match,
    MatchStart,
    Pass,
    Play,
    Result,
    SeatInfo,
    Setup,
    Surrender,
    ThrowFail,
    TrickEnd,
    TrumpChosen,
)
from gamelog.reader import RecordWarning
from gamelog.seats import Seat

__all__ = [
    "BIG_JOKER", "CARD_TOKENS", "FORMAT_VERSION", "LITTLE_JOKER", "UNKNOWN",
    "AmbiguousCardError", "AnyEvent", "Bid", "Blocker", "Card", "CardError", "Deal", "Declare",
    "Event", "GamelogError", "GamelogIOError", "Hand", "HandStart", "KittyBury", "KittyTake",
    "MalformedCardError", "MalformedRecordError", "Match", "MatchStart", "Pass", "Play", "Rank",
    "RecordError", "RecordWarning", "Result", "Seat", "SeatInfo", "Setup", "Suit", "Surrender",
    "ThrowFail", "TrickEnd", "TrumpChosen", "UnsupportedVersionError", "count_vector", "dump",
    "dumps", "format_cards", "load", "loads", "parse_card", "parse_cards", "read", "read_hands",
    "record_files",
]
