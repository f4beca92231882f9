"""JSON Lines: one event per line, in one canonical serialisation.

The canonical form is what :func:`dumps` writes: msgspec's compact JSON of the event, fields in
declaration order, fields equal to their default left out, UTF-8 unescaped, ``\\n`` after every
line. Reading is streaming and constant-memory; gzip input is detected by its magic bytes.
"""

from __future__ import annotations

import functools
import gzip
import io
import itertools
import operator
import os
import re
import zlib
from collections.abc import Generator, Iterable, Iterator
from typing import IO, BinaryIO

import msgspec

from gamelog.errors import GamelogIOError, MalformedRecordError, RecordError
from gamelog.model import Event, Hand, HandStart, Match, MatchStart, group_matches
from gamelog.reader import (
    KEY_BASE,
    EventDecoder,
    EventRun,
    HandAssembler,
    Item,
    duplicate_key_error,
    has_duplicate_keys,
    keys_add_up,
)

_ENCODER = msgspec.json.Encoder()


def loads(data: bytes | str, *, strict: bool = True,
          issues: list[RecordError] | None = None) -> list[Match]:
    """Every match of JSON Lines text."""
    raw = data.encode() if isinstance(data, str) else data
    decoder = EventDecoder()
    asm = HandAssembler("<string>", "line", strict=strict, decoder=decoder)
    try:
        return group_matches(asm.feed(iter_items(io.BytesIO(raw), decoder, "<string>"),
                                 with_headers=True))
    finally:
        if issues is not None:
            issues.extend(asm.issues)


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


MAX_LINE_BYTES = 16 << 20
"""The longest line read (16 MiB; a real event is at most a few KB). A longer line is skipped
as it streams past, with an error naming it, so a hostile file cannot exhaust memory."""

_CHUNK = 1 << 20


class UnterminatedLine(bytes):
    """The last line of a file that does not end in a newline (perhaps cut off)."""

    __slots__ = ()


class OversizedLine(bytes):
    """Stands for a line longer than :data:`MAX_LINE_BYTES`; holds its length as text."""

    __slots__ = ()


def iter_items(stream: IO[bytes], decoder: EventDecoder, source: str
               ) -> Iterator[Item | tuple[int, EventRun]]:
    """``(line number, event or error)`` for every non-blank line of a stream; the events
    of a hand after its first may come as one :class:`~gamelog.reader.EventRun` (see
    :func:`canonical_block`, tried until a block turns out to come from another writer: its
    lines all decode but are spelled otherwise, and then so will the rest be)."""
    writer = _Writer()
    blocks = numbered_blocks(stream, source)
    told: int | None = None  # the lines of the block just read, when its events said so
    while True:
        try:
            number, lines = blocks.send(told)
        except StopIteration:
            return
        told = None
        if type(lines) is memoryview:
            found = canonical_block(number, lines, decoder, writer) if writer.canonical \
                else None
            if found is not None:
                last, item = found[-1]  # a canonical block: one event a line, none blank
                told = last - number + (len(item) if type(item) is EventRun else 1)
                yield from found
                continue
            yield from items_of_lines(lines_of(number, bytes(lines)), decoder)
        else:
            yield from items_of_lines(((number, lines),), decoder)


class _Writer:
    """What the blocks of one stream showed of the writer: whether it writes canonically."""

    __slots__ = ("canonical",)

    def __init__(self) -> None:
        self.canonical = True


def canonical_block(number: int, block: memoryview, decoder: EventDecoder,
                    writer: _Writer | None = None) -> list[Item | tuple[int, EventRun]] | None:
    """The items of a block of lines (the first is line ``number``) when every line is an
    event in the canonical form (what :func:`write` writes); ``None`` otherwise, and the
    block is then read line by line.

    The fast path of the reader, checked as a whole: one decode of the block, and one
    comparison with the block encoded back. A line that is the canonical encoding of the
    event it decodes to holds each key once, no blank line and nothing the strict decoder
    would not take, so the per-line checks have nothing to find. The events of each hand
    after its ``hand`` event come as one run when they are consecutive (same match and hand,
    sequence numbers one apart), checked on whole columns."""
    try:
        events = decoder.fast_decode_lines(block)
    except (msgspec.MsgspecError, RecordError, RecursionError, ValueError):
        return None
    encoded = _ENCODER.encode_lines(events)  # each line and its newline: no copy to compare
    if len(encoded) != len(block) + 1 or not encoded.startswith(block):
        if writer is not None:
            writer.canonical = False  # every line decoded, spelled another way
        return None
    out: list[Item | tuple[int, EventRun]] = []
    types = list(map(type, events))
    starts = _positions(types, HandStart)
    if MatchStart in types:
        starts = sorted(starts + _positions(types, MatchStart))
    bounds = [0, *starts, len(events)] if not starts or starts[0] else [*starts, len(events)]
    seqs = list(map(_SEQ, events))
    for a, b in itertools.pairwise(bounds):
        head = a
        if types[a] is HandStart or types[a] is MatchStart:
            out.append((number + a, events[a]))
            head = a + 1
        if head >= b:
            continue
        run = events[head:b]
        first = run[0]
        if (b - head > 1 and seqs[head:b] == list(range(first.seq, first.seq + b - head))
                and list(map(_HAND, run)).count(first.hand) == b - head
                and list(map(_MATCH, run)).count(first.match) == b - head):
            out.append((number + head, EventRun(run)))
        else:
            out.extend(zip(range(number + head, number + b), run, strict=True))
    return out


def _positions(items: list[type], wanted: type) -> list[int]:
    """Where ``wanted`` stands in ``items`` (list.index does the scanning, in C)."""
    found: list[int] = []
    at = -1
    try:
        while True:
            at = items.index(wanted, at + 1)
            found.append(at)
    except ValueError:
        return found


_SEQ = operator.attrgetter("seq")
_HAND = operator.attrgetter("hand")
_MATCH = operator.attrgetter("match")


def numbered_lines(stream: IO[bytes], source: str) -> Iterator[tuple[int, bytes]]:
    """``(line number, raw line without its newline)`` of every non-blank line of a stream
    (:func:`numbered_blocks`, each block taken line by line)."""
    for number, lines in numbered_blocks(stream, source):
        if type(lines) is memoryview:
            yield from lines_of(number, bytes(lines))
        else:
            yield number, lines


def lines_of(number: int, block: bytes) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of the non-empty lines of a block whose first line is line
    ``number`` (a line of spaces only is kept: the slow path skips it)."""
    for n, line in enumerate(block.split(b"\n"), number):
        if line:
            yield n, line


CANONICAL_START = b'{"type":"'
"""How every line our writer writes begins."""


def numbered_runs(stream: IO[bytes], source: str, heads: tuple[bytes, ...]
                  ) -> Iterator[tuple[int, bytes, int]]:
    """:func:`numbered_lines`, with consecutive lines that begin as our writer writes them
    (:data:`CANONICAL_START`) and with none of ``heads`` joined into one run:
    ``(first line number, the lines joined by \n, how many)``. The other lines come one
    at a time (``how many`` 1). A caller that must look at a few lines (a hand's first) and
    only pass the rest on (to a worker, whose :func:`items_of_runs` decodes them) so touches
    each of those lines only in C."""
    for number, lines in numbered_blocks(stream, source):
        if type(lines) is not memoryview:
            yield number, lines, 1
            continue
        block = bytes(lines)
        # one pass finds the heads and any line spelled otherwise (a mark that is no head)
        marks = [m.start() + 1 for m in _heads_pattern(heads).finditer(block)]
        if not block.startswith(CANONICAL_START) or (marks and not all(
                block.startswith(heads, at) for at in marks)):
            yield from ((n, line, 1) for n, line in lines_of(number, block))
            continue
        if block.startswith(heads):
            marks.insert(0, 0)
        at = 0  # the start of the next line to yield
        for mark in marks:
            if mark > at:
                count = block.count(b"\n", at, mark)
                yield number, block[at:mark - 1], count
                number += count
            end = block.find(b"\n", mark)
            end = len(block) if end < 0 else end
            yield number, block[mark:end], 1
            number += 1
            at = end + 1
        if at < len(block):
            yield number, block[at:], block.count(b"\n", at) + 1


@functools.cache
def _heads_pattern(heads: tuple[bytes, ...]) -> re.Pattern[bytes]:
    """A line (after a block's first) that begins with one of ``heads``, or not as our writer
    writes."""
    return re.compile(b"\n(?:" + b"|".join(map(re.escape, heads))
                      + b"|(?!" + re.escape(CANONICAL_START) + b"))")


def items_of_runs(runs: Iterable[tuple[int, bytes]], decoder: EventDecoder
                  ) -> Iterator[Item | tuple[int, EventRun]]:
    """:func:`items_of_lines` for the lines and runs of :func:`numbered_runs` (a run's
    lines decoded as one block when they are canonical, else one by one)."""
    for number, data in runs:
        if b"\n" not in data:
            yield from items_of_lines(((number, data),), decoder)
            continue
        found = canonical_block(number, memoryview(data), decoder)
        if found is not None:
            yield from found
        else:
            yield from items_of_lines(lines_of(number, data), decoder)


def numbered_blocks(stream: IO[bytes], source: str
                    ) -> Generator[tuple[int, bytes | memoryview], int | None, None]:
    """``(line number, raw line without its newline)`` of every non-blank line of a stream,
    where whole lines read together come as one ``memoryview`` of the block read (joined by
    ``\n``, without the last one's; numbered by its first line; it may hold blank lines): no
    copy of the block is made, so no fresh pages are touched for one. A caller that knows how
    many lines the block held (the events of a canonical block) may ``send`` the number back
    for the next block instead of having them counted.

    Read in 1 MiB blocks: runs of blank lines cost nothing per line, a line longer than
    :data:`MAX_LINE_BYTES` is skipped as it streams past (an :class:`OversizedLine`), a UTF-8
    byte order mark at the start is dropped. A failed read (a truncated or corrupt gzip
    stream, say) is a :class:`GamelogIOError` naming the file and the last line read; every
    line before it has been yielded."""
    number = 0  # lines completed so far
    pending = b""  # the start of a line that continues into the next block
    skipping = 0  # > 0: the length so far of an oversized line being skipped
    first = True
    # read1: one underlying read at a time, so that a failure (a bad CRC at the end of a gzip
    # stream) loses no block decoded before it
    read = getattr(stream, "read1", stream.read)
    try:
        while True:
            block = read(_CHUNK)
            if not block:
                break
            if first:
                first = False
                if block.startswith(b"\xef\xbb\xbf"):
                    block = block[3:]
            cut = block.rfind(b"\n")
            if cut < 0:  # no line ends in this block
                if skipping:
                    skipping += len(block)
                elif len(pending) + len(block) > MAX_LINE_BYTES:
                    skipping = len(pending) + len(block)
                    pending = b""
                else:
                    pending += block
                continue
            tail = block[cut + 1:]
            start = 0  # the block's whole lines are block[start:cut]
            if skipping or pending:
                nl = block.find(b"\n", 0, cut)
                first_part = block[:cut] if nl < 0 else block[:nl]
                start = cut if nl < 0 else nl + 1
                number += 1
                if skipping or len(pending) + len(first_part) > MAX_LINE_BYTES:
                    yield number, OversizedLine(str(skipping + len(pending) + len(first_part)),
                                                "ascii")
                    skipping = 0
                else:
                    line = pending + first_part
                    if line.strip():
                        yield number, line
                pending = b""
                if nl < 0:
                    pending = tail
                    if len(pending) > MAX_LINE_BYTES:
                        skipping, pending = len(pending), b""
                    continue
            told = None
            if _has_text(block, start, cut):  # not a block of blank lines
                # the reader may say how many lines the block held (its events): no count
                told = yield number + 1, memoryview(block)[start:cut]
            number += told if told else block.count(b"\n", start, cut) + 1
            pending = tail
            if len(pending) > MAX_LINE_BYTES:
                skipping, pending = len(pending), b""
    except (OSError, EOFError, zlib.error) as exc:
        raise GamelogIOError(f"{source}: read failed after line {number}: {exc}") from None
    if skipping:
        yield number + 1, OversizedLine(str(skipping), "ascii")
    elif pending.strip():
        yield number + 1, UnterminatedLine(pending)


_BLANK = b" \t\n\r\x0b\x0c"
"""What ``bytes.strip`` strips."""


def _has_text(block: bytes, start: int, end: int) -> bool:
    """Whether ``block[start:end]`` holds more than blanks (its first byte says so, but for a
    block that starts with a blank line)."""
    if start < end and block[start] not in _BLANK:
        return True
    return bool(block[start:end].strip())


def items_of_lines(lines: Iterable[tuple[int, bytes]], decoder: EventDecoder) -> Iterator[Item]:
    """:func:`iter_items` for lines already read: ``(line number, raw line)`` pairs."""
    fast = decoder.fast_decode
    base = KEY_BASE.__getitem__  # made per type on first use
    for number, line in lines:
        try:
            event = fast(line)
        except (msgspec.MsgspecError, RecursionError):
            yield from _slow_line(decoder, number, line)
            continue
        if line.count(b":") == base(type(event)):  # no key twice: the hot loop's whole check
            yield number, event
        elif not keys_add_up(line, event) and has_duplicate_keys(line):
            yield number, duplicate_key_error()
        else:
            yield number, event


def _slow_line(decoder: EventDecoder, number: int, line: bytes) -> Iterator[Item]:
    if type(line) is OversizedLine:
        yield number, MalformedRecordError(
            f"line of {int(line):,} bytes is longer than the {MAX_LINE_BYTES >> 20} MiB "
            "limit; skipped")
        return
    try:  # the slow path: lenient decoding for newer minors, or a precise error
        yield number, decoder.decode_line(line)
    except RecordError as err:
        if not line.strip():
            return
        if (type(line) is UnterminatedLine and isinstance(err, MalformedRecordError)
                and err.field is None):
            err.message = f"truncated last line: {err.message}"
        yield number, err


def write(events: Iterable[Event | Hand | Match], path: str | os.PathLike[str]) -> int:
    """Write canonical JSON Lines atomically (gzip when the name ends in ``.gz``); returns lines."""
    from gamelog.outputs import atomic_output  # only writers need it (start-up)

    count = 0
    with atomic_output(path) as out:
        stream: IO[bytes] = (gzip.GzipFile(filename="", fileobj=out, mode="wb", mtime=0)
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


def write_objects(objects: Iterable[object], path: str | os.PathLike[str],
                  kind: str = "labels") -> int:
    """Any msgspec-encodable objects as JSON Lines, atomically (labels, reports)."""
    from gamelog.outputs import atomic_output

    count = 0
    with atomic_output(path, kind) as out:
        for obj in objects:
            out.write(_ENCODER.encode(obj) + b"\n")
            count += 1
    return count
