"""Reading and writing record files of either format, by name: ``load`` / ``dump`` and friends.

``.jsonl``, ``.ndjson`` and ``.json`` (optionally ``.gz``) are JSON Lines; ``.parquet`` is
Parquet; a directory stands for every record file below it, in name order (a Parquet dataset
directory is one). Every reader is the streaming reader plus ``list()``, so there is one code
path.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec

from gamelog import jsonl
from gamelog.errors import GamelogIOError, RecordError
from gamelog.jsonl import loads  # noqa: F401  (files.loads, as documented)
from gamelog.model import AnyEvent, Event, Hand, Match, MatchStart, group_matches
from gamelog.reader import EventDecoder, HandAssembler, HandsSeen, HeaderStore


def _parquet():  # type: ignore[no-untyped-def]
    """gamelog.parquet, imported on first use (pyarrow takes a while to load)."""
    from gamelog import parquet

    return parquet

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json", ".jsonl.gz", ".ndjson.gz", ".json.gz")
PARQUET_SUFFIXES = (".parquet", ".pq")
TEXT_SUFFIXES = (".sjn", ".txt")
"""The typed text notation (what ``shengji show`` prints; :mod:`gamelog.notation`)."""
SIDE_FILES = (".labels.jsonl",)
"""Files beside records that are not records (injected-violation labels): skipped when a
directory is expanded."""


def record_format(path: str | os.PathLike[str]) -> str:
    """``"jsonl"`` or ``"parquet"`` from a file name (a directory or no suffix: parquet dataset
    when written, contents when read)."""
    name = str(path).lower()
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl"
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(TEXT_SUFFIXES):
        return "text"
    raise GamelogIOError(
        f"{path}: cannot tell the format from the name (use .jsonl, .jsonl.gz, .parquet or "
        ".sjn)")


def record_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files named, with directories expanded to the record files below them."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file()
                           and f.name.lower().endswith(JSONL_SUFFIXES + PARQUET_SUFFIXES
                                                       + (".sjn",))
                           and not f.name.lower().endswith(SIDE_FILES)
                           and not f.name.startswith("."))
            out.extend(found)
        elif p.exists():
            record_format(p)
            out.append(p)
        else:
            raise GamelogIOError(f"{p}: no such file or directory")
    return out


def _utf16_hint(file: Path) -> str | None:
    """What to say of a text file that is UTF-16 (or UTF-32), not UTF-8, else ``None``."""
    try:
        with open(file, "rb") as f:
            head = f.read(4096)
    except OSError as exc:
        raise GamelogIOError(f"{file}: cannot open: {exc.strerror or exc}") from None
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or head.count(b"\x00") > len(head) // 4 > 0:
        return ("the file is UTF-16 (or UTF-32) text, not UTF-8; save it as UTF-8 (for example "
                "iconv -f UTF-16 -t UTF-8 FILE > NEW.sjn)")
    return None


def read(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    strict: bool = False,
    issues: list[RecordError] | None = None,
    with_headers: bool = False,
) -> Iterator[Hand | MatchStart]:
    """Stream hands (and, with ``with_headers``, match headers) from files or directories.

    Collect mode (default) appends every problem to ``issues`` and to the hand it concerns and
    goes on; ``strict=True`` raises the first. Headers carry over from file to file, so a
    dataset split into parts needs its header only once.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    decoder = EventDecoder()
    headers = HeaderStore()
    seen = HandsSeen()
    for file in record_files(paths):
        kind = record_format(file)
        asm = HandAssembler(str(file), "row" if kind == "parquet" else "line",
                            strict=strict, decoder=decoder, headers=headers, seen=seen)
        try:
            if kind == "text":
                try:
                    utf16 = _utf16_hint(file)
                    if utf16:
                        raise GamelogIOError(f"{file}: {utf16}")
                    stream = jsonl.open_binary(file)
                except GamelogIOError as exc:
                    asm.file_problem(exc)
                    continue
                from gamelog import notation  # only for .sjn input (start-up)

                with stream:
                    yield from asm.feed(notation.iter_items(notation.file_lines(stream,
                                                                                str(file))),
                                        with_headers=with_headers)
            elif asm.place_kind == "line":
                try:
                    stream = jsonl.open_binary(file)
                except GamelogIOError as exc:
                    asm.file_problem(exc)
                    continue
                with stream:
                    yield from asm.feed(jsonl.iter_items(stream, decoder, str(file)),
                                        with_headers=with_headers)
            else:
                yield from asm.feed(_parquet().iter_items(file, decoder),
                                    with_headers=with_headers)
        finally:
            if issues is not None:
                issues.extend(asm.issues)


def read_hands(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    strict: bool = False,
    issues: list[RecordError] | None = None,
) -> Iterator[Hand]:
    """Stream only the hands (each knows its header)."""
    for item in read(paths, strict=strict, issues=issues):
        if isinstance(item, Hand):
            yield item


def load(path: str | os.PathLike[str], *, strict: bool = True,
         issues: list[RecordError] | None = None) -> list[Match]:
    """Every match of a file or directory (strict by default: the first problem raises)."""
    return group_matches(read(path, strict=strict, issues=issues, with_headers=True))


def dump(items: Iterable[Event | Hand | Match], path: str | os.PathLike[str]) -> int:
    """Write events, hands or matches to ``path`` in the format its name says; atomic.

    A path with no record suffix (or an existing directory) becomes a Parquet dataset
    directory. Returns the number of events written.
    """
    p = Path(path)
    if p.is_dir() or (not p.suffix and not p.exists()):
        paths = _parquet().write_dataset(items, p)
        return sum(_rows(f) for f in paths)
    kind = record_format(p)
    if kind == "jsonl":
        return jsonl.write(items, p)
    if kind == "text":
        from gamelog import notation
        from gamelog.outputs import atomic_output

        events = list(jsonl.flatten(items))
        with atomic_output(p, "notation") as out:
            out.write(notation.dumps(events).encode())
        return len(events)
    return _parquet().write(items, p)


def _rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_rows


def dumps(items: Iterable[Event | Hand | Match]) -> bytes:
    """Canonical JSON Lines bytes."""
    return jsonl.dumps(items)


class _PackedHand(msgspec.Struct, array_like=True, gc=False):
    match: str
    number: int
    events: list[AnyEvent]  # type: ignore[valid-type]
    header: MatchStart | None
    issues: list[str]
    source: str | None
    first_line: int | None


_PACK = msgspec.msgpack.Encoder()


def pack_hands(hands: Iterable[Hand]) -> bytes:
    """Hands as compact MessagePack, for handing them to another process: about 30x faster
    than pickle both ways. A hand's issues travel as their messages (text)."""
    return _PACK.encode([_PackedHand(h.match, h.number, h.events, h.header,
                                     [str(i) for i in h.issues], h.source, h.first_line)
                         for h in hands])


def unpack_hands(data: bytes) -> list[Hand]:
    """The hands of :func:`pack_hands`."""
    return [Hand(match=p.match, number=p.number, events=p.events, header=p.header,
                 issues=list(p.issues), source=p.source, first_line=p.first_line)
            for p in _unpacker().decode(data)]


def pack_events(events: Iterable[Event]) -> bytes:
    """Events (a match's header among them) as compact MessagePack, as :func:`pack_hands`."""
    return _PACK.encode(list(events))


def unpack_events(data: bytes) -> list[Event]:
    """The events of :func:`pack_events`."""
    return _event_unpacker().decode(data)


@functools.cache
def _event_unpacker() -> msgspec.msgpack.Decoder:
    return msgspec.msgpack.Decoder(list[AnyEvent])  # type: ignore[valid-type]


@functools.cache
def _unpacker() -> msgspec.msgpack.Decoder:
    """Made on first use: it resolves every event type, which start-up need not pay for."""
    return msgspec.msgpack.Decoder(list[_PackedHand])


def events_of(items: Iterable[Hand | MatchStart]) -> Iterator[Event]:
    """Events back out of what :func:`read` yields, in file order."""
    for item in items:
        if isinstance(item, MatchStart):
            yield item
        else:
            yield from item.events


def count_hands(paths: Iterable[str | os.PathLike[str]]) -> int:
    """How many hands the record files hold, counted cheaply (for a progress bar's length):
    ``hand`` events, by their canonical spelling in JSON Lines (gzip too) and from the
    ``type`` column in Parquet. A file that cannot be read counts 0: the reader reports it."""
    total = 0
    needle = b'"type":"hand"'
    try:
        found = record_files(paths)
    except GamelogIOError:
        return 0
    for file in found:
        try:
            if record_format(file) == "jsonl":
                with jsonl.open_binary(file) as stream:
                    tail = b""
                    while block := stream.read(1 << 20):
                        chunk = tail + block
                        total += chunk.count(needle)
                        tail = chunk[-(len(needle) - 1):]  # shorter than the needle
            else:
                import pyarrow.compute as pc
                import pyarrow.parquet as pq

                column = pq.ParquetFile(file).read(columns=["type"]).column("type")
                total += pc.sum(pc.equal(column, "hand")).as_py() or 0
        except Exception:
            continue
    return total


def _read_text(text: str, issues: list[RecordError] | None = None) -> Iterator[Hand | MatchStart]:
    """What :func:`read` yields for notation text given as a string (tests, tools)."""
    from gamelog import notation

    asm = HandAssembler("<string>", "line", strict=False, decoder=EventDecoder())
    try:
        yield from asm.feed(notation.iter_items(text), with_headers=True)
    finally:
        if issues is not None:
            issues.extend(asm.issues)
