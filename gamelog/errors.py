"""The error taxonomy of the record layer.

Everything a user can get wrong in a record is a :class:`ValueError` subclass, so that
``except ValueError`` catches bad input and nothing else:

- :class:`MalformedCardError` / :class:`AmbiguousCardError`: a card spelling that names no card,
  or that names two (``SJ`` is the small joker to some and the jack of spades to others);
- :class:`MalformedRecordError`: a line or row that is not a valid event (bad JSON, a wrong type,
  a missing field, an unknown card, a sequence number out of order);
- :class:`UnsupportedVersionError`: a record written by a newer major version of the format.

Failures to read or write at all (a missing file, a truncated gzip stream, a corrupt Parquet
footer) are :class:`GamelogIOError`, an :class:`OSError`.
"""

from __future__ import annotations


class GamelogError(Exception):
    """Base of every error raised by :mod:`gamelog`."""


class CardError(GamelogError, ValueError):
    """A card spelling could not be turned into a card."""


class MalformedCardError(CardError):
    """The text names no card."""


class AmbiguousCardError(CardError):
    """The text names more than one card (e.g. ``SJ``: small joker or ♠J?)."""


class RecordError(GamelogError, ValueError):
    """A record is not a valid game record.

    ``source`` is the file name (or ``<string>``), ``line`` the 1-based line of a JSON Lines
    file or the 0-based row of a Parquet file (``row`` is set instead), ``field`` a path such
    as ``$.cards[2]``.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        row: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.row = row
        self.field = field
        super().__init__(self.__str__())

    @property
    def place(self) -> str:
        """``file:line`` (or ``file row N``) and the field, as far as known."""
        parts = []
        if self.source is not None:
            parts.append(self.source)
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.field:
            parts.append(f"field {self.field}")
        return ", ".join(parts)

    def __str__(self) -> str:
        place = self.place
        return f"{place}: {self.message}" if place else self.message


class MalformedRecordError(RecordError):
    """A line or row that is not a valid event."""


class UnsupportedVersionError(RecordError):
    """The record's format version has a major number this reader does not know."""


class GamelogIOError(GamelogError, OSError):
    """A file could not be read or written at all."""


class FileReadError(RecordError):
    """A file that could not be read to its end (truncated, corrupt): reported like a bad line,
    with every record read before the failure kept, and the next file read."""

    @classmethod
    def of(cls, exc: BaseException, source: str) -> FileReadError:
        """The problem for ``exc`` (whose message may start with the file name) in ``source``."""
        text = str(exc)
        return cls(text.removeprefix(f"{source}: "), source=source)
