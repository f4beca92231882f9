"""JSON Lines: one event per line, in one canonical serialisation.

The canonical form is what :func:`dumps` writes: msgspec's compact JSON of the event, fields in
declaration order, fields equal to their default left out, UTF-8 unescaped, ``\\n`` after every
line. Reading is streaming and constant-memory; gzip input is detected by its magic bytes.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, BinaryIO

import msgspec

from gamelog.errors import GamelogIOError, MalformedRecordError, RecordError
from gamelog.model import Event, Hand, Match
from gamelog.reader import EventDecoder, Item

_ENCODER = msgspec.json.Encoder()


def encode_event(event: Event) -> bytes:
    """The canonical line of one event, without the newline."""
    return _ENCODER.encode(event)


def dumps(events: Iterable[Event | Hand | Match]) -> bytes:
    """The canonical JSON Lines bytes of events, hands or matches, in the order given."""
    buf = bytearray()
    for ev in flatten(events):
        buf += _ENCODER.encode(ev)
        buf += b"\n"
    return bytes(buf)


def flatten(items: Iterable[Event | Hand | Match]) -> Iterator[Event]:
    """Events of a mixed sequence of events, hands and matches, in order."""
    for item in items:
        if isinstance(item, Event):
            yield item
        elif isinstance(item, Hand):
            yield from item.events
        elif isinstance(item, Match):
            yield from item.events()
        else:
            raise TypeError(f"cannot write {type(item).__name__} as a game record")


def open_binary(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a file for reading, gunzipping it transparently when it starts with gzip's magic."""
    try:
        raw = open(path, "rb")  # noqa: SIM115 - returned to the caller
    except OSError as exc:
        raise GamelogIOError(f"{path}: cannot open: {exc.strerror or exc}") from None
    if raw.peek(2)[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    return raw


def iter_items(stream: IO[bytes], decoder: EventDecoder, source: str) -> Iterator[Item]:
    """``(line number, event or error)`` for every non-blank line of a stream."""
    return items_of_lines(numbered_lines(stream, source), decoder)


def numbered_lines(stream: IO[bytes], source: str) -> Iterator[tuple[int, bytes]]:
    """``(line number, raw line)`` of a stream; a failed read (a truncated gzip file, say) is a
    :class:`GamelogIOError` naming the file and the last line read."""
    number = 0
    try:
        for number, line in enumerate(stream, 1):
            yield number, line
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise GamelogIOError(f"{source}: read failed after line {number}: {exc}") from None


def items_of_lines(lines: Iterable[tuple[int, bytes]], decoder: EventDecoder) -> Iterator[Item]:
    """:func:`iter_items` for lines already read: ``(line number, raw line)`` pairs."""
    for number, line in lines:
        yield from _items_of_line(decoder, number, line)


def _items_of_line(decoder: EventDecoder, number: int, line: bytes) -> Iterator[Item]:
    try:
        yield number, decoder.fast_decode(line)
        return
    except msgspec.MsgspecError:
        pass
    try:  # the slow path: lenient decoding for newer minors, or a precise error
        yield number, decoder.decode_line(line)
    except RecordError as err:
        if not line.strip():
            return
        if not line.endswith(b"\n") and isinstance(err, MalformedRecordError):
            err.message = f"truncated last line: {err.message}"
        yield number, err


def write(events: Iterable[Event | Hand | Match], path: str | os.PathLike[str]) -> int:
    """Write canonical JSON Lines atomically (gzip when the name ends in ``.gz``); returns lines."""
    count = 0
    with atomic_output(path) as out:
        stream: IO[bytes] = (gzip.GzipFile(fileobj=out, mode="wb", mtime=0)
                             if str(path).endswith(".gz") else out)
        buf = bytearray()
        for ev in flatten(events):
            buf += _ENCODER.encode(ev)
            buf += b"\n"
            count += 1
            if len(buf) > 1 << 20:
                stream.write(buf)
                buf.clear()
        stream.write(buf)
        if stream is not out:
            stream.close()
    return count


class atomic_output:
    """A binary file written beside ``path`` and moved over it only when the block succeeds."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")

    def __enter__(self) -> BinaryIO:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.file = open(self.tmp, "wb")
        except OSError as exc:
            raise GamelogIOError(f"{self.path}: cannot write: {exc.strerror or exc}") from None
        return self.file

    def __exit__(self, kind, value, tb) -> None:  # type: ignore[no-untyped-def]
        self.file.close()
        if kind is None:
            os.replace(self.tmp, self.path)
        else:
            self.tmp.unlink(missing_ok=True)


def write_objects(objects: Iterable[object], path: str | os.PathLike[str]) -> int:
    """Any msgspec-encodable objects as JSON Lines, atomically (labels, reports)."""
    count = 0
    with atomic_output(path) as out:
        for obj in objects:
            out.write(_ENCODER.encode(obj) + b"\n")
            count += 1
    return count
