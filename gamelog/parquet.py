"""Parquet: the same events as rows of one Arrow table.

Every event is one row. The columns are ``match``, ``hand``, ``seq``, ``type`` and then the
union of all event fields, each with the same name and meaning as in JSON; a field that an
event type does not have is null. Cards are ``list<string>`` of canonical tokens, holdings
``list<list<string>>``; the header's ``options`` (typed values of many kinds) are JSON text and
its ``tags`` a ``map<string, string>``. Plain polars, pyarrow and DuckDB read it without this
package. The schema is derived from the event types, so the two cannot drift apart.

Row groups end on hand boundaries, so no hand is split between groups or files, and writing
holds one row group in memory at a time.

The schema lives in :mod:`gamelog.parquet_schema` and the reader's fast path (the vectorised
checks of a batch and the builders of its events) in :mod:`gamelog.parquet_fast`; this module
writes, reads, and keeps the per-row path that names a bad row and field.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import os
import re
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from gamelog.errors import GamelogIOError, MalformedRecordError, RecordError
from gamelog.gcpause import gc_paused
from gamelog.jsonl import flatten
from gamelog.model import Event, Hand, Match
from gamelog.outputs import atomic_output, owned_directory
from gamelog.parquet_fast import (
    _FAST_TYPES,
    _FIELD_COLUMNS,
    _KINDS,
    _REQUIRED_BY,
    _TAG_LIST,
    _clean_codes,
    _common_columns,
    _in_row_order,
    _int_view,
)
from gamelog.parquet_schema import FIELDS_OF, JSON_COLUMNS, MAP_COLUMNS, SCHEMA
from gamelog.reader import (
    SUPPORTED_MAJOR,
    SUPPORTED_MINOR,
    EventDecoder,
    EventRun,
    Item,
    RecordWarning,
)

_ROWS_PER_GROUP = 100_000


def _row(ev: Event) -> dict[str, Any]:
    row = msgspec.to_builtins(ev)
    for c in JSON_COLUMNS:
        if c in row:
            row[c] = msgspec.json.encode(row[c]).decode()
    return row


def write(
    events: Iterable[Event | Hand | Match],
    path: str | os.PathLike[str],
    *,
    rows_per_group: int = _ROWS_PER_GROUP,
) -> int:
    """Write events to one Parquet file atomically; row groups end on hand boundaries."""
    count = 0
    with atomic_output(path, "parquet") as out, pq.ParquetWriter(out, SCHEMA, compression="zstd") as writer:
        for rows in _groups(flatten(events), rows_per_group):
            writer.write_table(pa.Table.from_pylist(rows, schema=SCHEMA))
            count += len(rows)
    return count


def write_dataset(
    events: Iterable[Event | Hand | Match],
    directory: str | os.PathLike[str],
    *,
    rows_per_file: int = 1_000_000,
    rows_per_group: int = _ROWS_PER_GROUP,
) -> list[Path]:
    """Write a directory of ``part-NNNNN.parquet`` files, none splitting a hand.

    The set is built beside ``directory`` and replaces it whole (no part of an earlier data set
    survives); an existing directory holding anything but an earlier data set of ours is
    refused (:func:`gamelog.outputs.owned_directory`)."""
    directory = Path(directory)
    names: list[str] = []
    batch: list[Event] = []
    with owned_directory(directory, "Parquet data set") as build:

        def flush() -> None:
            name = f"part-{len(names):05d}.parquet"
            write(batch, build / name, rows_per_group=rows_per_group)
            names.append(name)
            batch.clear()

        for _ in _hand_boundaries(flatten(events), rows_per_file, batch):
            flush()
        if batch or not names:
            flush()
    return [directory / name for name in names]


def _hand_boundaries(events: Iterator[Event], limit: int, batch: list[Event]) -> Iterator[None]:
    """Fill ``batch``; yield whenever it holds at least ``limit`` events and a hand just ended."""
    key = None
    for ev in events:
        k = (ev.match, ev.hand)
        if k != key and len(batch) >= limit:
            yield None
        key = k
        batch.append(ev)


def _groups(events: Iterator[Event], limit: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[Event] = []
    for _ in _hand_boundaries(events, limit, batch):
        yield [_row(e) for e in batch]
        batch.clear()
    if batch:
        yield [_row(e) for e in batch]


def iter_items(path: Path, decoder: EventDecoder, batch_size: int = 65_536) -> Iterator[Item]:
    """``(row number, event or error)`` for every row of a Parquet file."""
    try:
        pf = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise GamelogIOError(f"{path}: not a readable Parquet file: {exc}") from None
    present = set(pf.schema_arrow.names)
    missing = {"match", "hand", "seq", "type"} - present
    if missing:
        raise GamelogIOError(f"{path}: not a game record: no column(s) {', '.join(sorted(missing))}")
    columns = [c for c in SCHEMA.names if c in present]
    row0 = 0
    try:
        unknown = _unknown_cells(pf, sorted(present - set(SCHEMA.names)))
        if isinstance(unknown, RecordError):
            yield None, unknown
            unknown = {}
        for checked in _checked_batches(pf, columns, batch_size):
            items = _batch_items(checked, row0, decoder)
            if unknown:
                items = _rejecting(items, unknown)
            yield from items
            row0 += checked.batch.num_rows
    except (OSError, pa.ArrowException) as exc:
        raise GamelogIOError(f"{path}: read failed near row {row0}: {exc}") from None


def _rejecting(items: Iterator[Item], bad: dict[int, RecordError]) -> Iterator[Item]:
    """``items`` with the rows in ``bad`` replaced by their errors (runs taken apart)."""
    for row, item in items:
        if type(item) is EventRun:
            if any(r in bad for r in range(row, row + len(item))):
                for k, ev in enumerate(item, row):
                    yield k, bad.pop(k, ev)
                continue
            yield row, item
        else:
            yield row, bad.pop(row, item)


def _unknown_cells(pf: pq.ParquetFile, extra: list[str]) -> dict[int, RecordError] | RecordError:
    """Columns this version of the format does not define are treated as unknown JSON fields
    are: a row that sets one is rejected (an error for that row, naming the column), unless
    the file was written by a newer minor version, whose columns are dropped with one
    warning. Null cells are absent fields."""
    if not extra:
        return {}
    meta = pf.schema_arrow.metadata or {}
    version = meta.get(b"gamelog.version", b"").decode("ascii", "replace")
    m = re.fullmatch(r"(\d{1,6})\.(\d{1,6})", version)
    if m and int(m.group(1)) == SUPPORTED_MAJOR and int(m.group(2)) > SUPPORTED_MINOR:
        return RecordWarning(f"column(s) {', '.join(map(repr, extra))} of the newer format "
                             f"version {version} dropped")
    bad: dict[int, RecordError] = {}
    row0 = 0
    for batch in pf.iter_batches(columns=extra, batch_size=65_536):
        for name in extra:
            column = batch.column(name)
            if column.null_count == len(column):
                continue
            for row in pc.indices_nonzero(pc.is_valid(column)).to_pylist():
                bad.setdefault(row0 + row, MalformedRecordError(
                    f"unknown column {name!r} is set (this version of the format has no such "
                    "field); the row is rejected", field=f"$.{name}"))
        row0 += batch.num_rows
    return bad


class _Checked(NamedTuple):
    """A batch and what Arrow works out about it (in the prefetch thread, see
    :func:`_checked_batches`): its rows' event type codes if it passed the fast path's checks
    (else ``None``, and nothing more), the rows that start runs (:func:`_run_starts`), its
    common event types (see :class:`_BatchEvents`), the rows of each other type with their
    own columns, and the runs of its match column."""

    batch: pa.RecordBatch
    codes: pa.Array | None
    starts: tuple[int, ...] = ()
    common: tuple[int, ...] = ()
    others: tuple[tuple[str, pa.Array, pa.RecordBatch], ...] = ()
    match_runs: pa.Array | None = None


def _check(batch: pa.RecordBatch) -> _Checked:
    """Everything Arrow can work out about a batch before its events are built."""
    codes = _clean_codes(batch)
    if codes is None:
        return _Checked(batch, None)
    n = batch.num_rows
    counts = {g["values"]: g["counts"] for g in pc.value_counts(codes).to_pylist()}
    common = tuple(sorted((code for code, count in counts.items()
                           if _TAG_LIST[code] in _FAST_TYPES and count * 16 >= n),
                          key=lambda code: -counts[code]))
    others = []
    for code in counts.keys() - set(common):
        tag = _TAG_LIST[code]
        where = pc.indices_nonzero(pc.equal(codes, pa.scalar(code, codes.type)))
        names = [name for name in FIELDS_OF[tag] if name in batch.schema.names]
        others.append((tag, where, batch.select(names).take(where)))
    return _Checked(batch, codes, tuple(_run_starts(batch)) if n > 1 else (), common, tuple(others),
                    pc.run_end_encode(batch.column("match")))


def _checked_batches(pf: pq.ParquetFile, columns: list[str], batch_size: int
                     ) -> Iterator[_Checked]:
    """The file's record batches, checked. Row groups of a usual size (this package writes
    them to end on hand boundaries) are read whole, very large ones in batches of
    ``batch_size``. The next batch is read and checked in a thread while the caller converts
    this one: Arrow decodes and computes without holding the GIL."""
    count = pf.num_row_groups
    batches: Iterator[pa.RecordBatch]
    if any(pf.metadata.row_group(i).num_rows > 4 * batch_size for i in range(count)):
        batches = pf.iter_batches(batch_size=batch_size, columns=columns)
    else:
        batches = (batch for i in range(count)
                   for batch in pf.read_row_group(i, columns=columns).combine_chunks().to_batches())

    def step() -> _Checked | None:
        batch = next(batches, None)
        return None if batch is None else _check(batch)

    with ThreadPoolExecutor(1) as pool:
        ahead = pool.submit(step)
        while (checked := ahead.result()) is not None:
            ahead = pool.submit(step)
            yield checked


_NOT_IN_RUNS = pa.array(["match", "hand"], pa.string())


def _run_starts(batch: pa.RecordBatch) -> list[int]:
    """The rows that do not continue the row before them (same match and hand, the next
    sequence number, not a header or hand start), vectorised: the rest join runs."""
    n = batch.num_rows
    match, hand, seq, kind = (batch.column(c) for c in ("match", "hand", "seq", "type"))
    later, earlier = (lambda a: a.slice(1)), (lambda a: a.slice(0, n - 1))
    continues = pc.and_(
        pc.and_(pc.equal(later(match), earlier(match)), pc.equal(later(hand), earlier(hand))),
        pc.and_(pc.equal(later(seq), pc.add(earlier(seq), 1)),
                pc.invert(pc.is_in(later(kind), value_set=_NOT_IN_RUNS))))
    breaks = pc.indices_nonzero(pc.invert(pc.fill_null(continues, False))).to_pylist()
    return [0, *(i + 1 for i in breaks)]


_PIECE_ROWS = 512
"""Rows whose Python objects are made at a time. A row group is checked and planned as a
whole, but its events are built a few hands at a time as the caller takes them, so that they
are made and used while they are in the CPU's cache, the garbage collector (which counts the
lists made and not yet freed) seldom runs, and the allocator does not hand memory back to the
system to fault it in again for the next row group, as it did when a row group's 100,000
events were made at once (1.3-1.4x faster than 8,192 rows at a time, in fresh processes;
see docs/performance.md)."""


def _batch_items(checked: _Checked, row0: int, decoder: EventDecoder) -> Iterator[Item]:
    """``(row, event or error)`` for the rows of a checked batch; in a clean batch each hand's
    events after its first go to the assembler as one :class:`EventRun`."""
    batch, codes, starts = checked[:3]
    n = batch.num_rows
    if codes is None:
        with gc_paused():
            items = list(_rows(_materialize(batch), n, row0, decoder))
        yield from items
        return
    built = _BatchEvents(checked, decoder)
    if not built.clean or n < 2:
        for start in range(0, n, _PIECE_ROWS):
            stop = min(n, start + _PIECE_ROWS)
            yield from zip(range(row0 + start, row0 + stop), built.events(start, stop),
                           strict=True)
        return
    starts = [*starts, n]
    piece = [0]
    for start in starts[1:]:
        piece.append(start)
        if start - piece[0] < _PIECE_ROWS and start < n:
            continue
        first = piece[0]
        events = built.events(first, start)
        for s, e in itertools.pairwise(piece):
            yield row0 + s, events[s - first]
            if e - s > 1:
                yield row0 + s + 1, EventRun(events[s - first + 1:e - first])  # type: ignore[misc]
        piece = [start]


def _convert(batch: pa.RecordBatch, row0: int, decoder: EventDecoder) -> list[Item]:
    """``(row, event or error)`` of every row of a batch, in row order (runs taken apart)."""
    out: list[Item] = []
    for row, item in _batch_items(_check(batch), row0, decoder):
        if isinstance(item, EventRun):
            out.extend(zip(itertools.count(row), item))
        else:
            out.append((row, item))
    return out


class _BatchEvents:
    """The events of a clean batch (see :mod:`gamelog.parquet_fast`), built a piece at a time.

    The rows of the common simple event types (each at least 1/16 of the batch: plays and
    trick results, usually) are built in one pass in row order, a piece at a time, from the
    int columns' buffers (no conversion), the match ids' runs (one string per match) and the
    other columns' slices. The rows of the other types (a few per hand) are built up front
    per type: those of simple types from their rows taken out of each column, the rest
    (headers, failed throws) through ``msgspec.convert``; the pieces take them up in passing."""

    def __init__(self, checked: _Checked, decoder: EventDecoder) -> None:
        batch, codes, _, common, others_of, runs = checked
        assert codes is not None and runs is not None
        n = batch.num_rows
        present = {name for name in batch.schema.names if batch.column(name).null_count < n}
        self.type_codes = _int_view(codes)
        self.common = _in_row_order(common)
        self.common_columns = _common_columns(common)
        # An int column is read straight from its buffer where no null can be read: it has
        # none, or every common type with the field requires it (a row with a null there is
        # of another type, which does not read it).
        self.columns: dict[str, memoryview | pa.Array] = {}
        for name in set(self.common_columns) & present - {"match"}:
            column = batch.column(name)
            having = {code for code in common if name in _FIELD_COLUMNS[_TAG_LIST[code]]}
            if column.type == pa.int32() and (
                    column.null_count == 0 or having <= _REQUIRED_BY[name]):
                self.columns[name] = _int_view(column)
            else:
                self.columns[name] = column
        self.match_ends: list[int] = runs.run_ends.to_pylist()
        self.match_ids: list[str] = runs.values.to_pylist()
        self.clean = True
        others: list[tuple[int, Event | RecordError]] = []
        with gc_paused():
            for tag, where, rows in others_of:
                if tag in _FAST_TYPES:  # the same builder, for rows all of one type
                    code = _TAG_LIST.index(tag)
                    items = _in_row_order((code,))(itertools.repeat(code, rows.num_rows), *[
                        rows.column(name).to_pylist() if name in rows.schema.names
                        else itertools.repeat(None) for name in _common_columns((code,))])
                else:
                    items = _convert_type(rows, tag, decoder)
                    self.clean = self.clean and not any(isinstance(i, RecordError) for i in items)
                others.extend(zip(where.to_pylist(), items, strict=True))
        others.sort(key=operator.itemgetter(0))
        self.others = others
        self.others_taken = 0

    def events(self, start: int, stop: int) -> list[Any]:
        """The events of rows ``start`` to ``stop``; pieces are asked for in row order."""
        columns: dict[str, Any] = {"match": self._match_ids(start, stop)}
        with gc_paused():
            for name, column in self.columns.items():
                columns[name] = (column[start:stop].tolist() if isinstance(column, memoryview)
                                 else column.slice(start, stop - start).to_pylist())
            nones = itertools.repeat(None)
            out = self.common(self.type_codes[start:stop].tolist(),
                              *[columns.get(name, nones) for name in self.common_columns])
        others, k = self.others, self.others_taken
        while k < len(others) and others[k][0] < stop:
            row, item = others[k]
            out[row - start] = item
            k += 1
        self.others_taken = k
        return out

    def _match_ids(self, start: int, stop: int) -> list[str]:
        """The match column of rows ``start`` to ``stop``: one string object per match."""
        ends, ids = self.match_ends, self.match_ids
        k = bisect.bisect_right(ends, start)
        out: list[str] = []
        while start < stop:
            end = min(ends[k], stop)
            out += itertools.repeat(ids[k], end - start)
            start = end
            k += 1
        return out


def _convert_type(sub: pa.RecordBatch, tag: str, decoder: EventDecoder) -> list[Any]:
    """Rows of one event type of a clean batch through ``msgspec.convert`` in one call; on
    any error, row by row (which names the row and field)."""
    fields = [name for name in FIELDS_OF[tag] if name in sub.schema.names and name != "type"]
    columns = []
    for name in fields:
        values = sub.column(name).to_pylist()
        if name in MAP_COLUMNS:
            values = [None if v is None else dict(v) for v in values]
        columns.append(values)
    try:
        rows = []
        for row in zip(*columns, strict=True):
            data = {name: v for name, v in zip(fields, row, strict=True) if v is not None}
            for name in JSON_COLUMNS.intersection(data):
                data[name] = msgspec.json.decode(data[name])
            data["type"] = tag
            rows.append(data)
        return msgspec.convert(rows, list[_KINDS[tag]])  # type: ignore[name-defined]
    except (msgspec.MsgspecError, TypeError, RecursionError):
        data = _materialize(sub)
        data["type"] = [tag] * sub.num_rows
        return [item for _, item in _rows(data, sub.num_rows, 0, decoder)]


def _materialize(batch: pa.RecordBatch) -> dict[str, list[Any]]:
    """Python lists of every column; mostly-null columns (each event type uses a few) are
    filled in only where set."""
    n = batch.num_rows
    out: dict[str, list[Any]] = {}
    for i, name in enumerate(batch.schema.names):
        col = batch.column(i)
        nulls = col.null_count
        if nulls == n:
            out[name] = [None] * n
        elif nulls * 2 > n:
            values = [None] * n
            where = pc.indices_nonzero(pc.is_valid(col))
            for k, v in zip(where.to_pylist(), col.take(where).to_pylist(), strict=True):
                values[k] = v
            out[name] = values
        else:
            out[name] = col.to_pylist()
    return out


def _rows(data: dict[str, list[Any]], n: int, row0: int, decoder: EventDecoder) -> Iterator[Item]:
    """The per-row path: a dict per row through ``msgspec.convert``, with exact errors."""
    types = data["type"]
    for i in range(n):
        tag = types[i]
        names = FIELDS_OF.get(tag)
        row: dict[str, Any] = {"type": tag}
        name = "type"
        try:
            for name, col in data.items():
                if name == "type":
                    continue
                value = col[i]
                if value is None:
                    continue
                if names is not None and name not in names:
                    raise MalformedRecordError(
                        f"column {name!r} is set, but a {tag!r} event has no such field",
                        field=f"$.{name}")
                if name in MAP_COLUMNS:
                    value = dict(value)
                elif name in JSON_COLUMNS:
                    value = msgspec.json.decode(value)
                row[name] = value
            yield row0 + i, decoder.decode_dict(row)
        except msgspec.DecodeError as exc:
            yield row0 + i, MalformedRecordError(f"not valid JSON text ({exc})", field=f"$.{name}")
        except RecursionError:
            yield row0 + i, MalformedRecordError("JSON text nested too deeply", field=f"$.{name}")
        except RecordError as err:
            yield row0 + i, err


__all__ = ["SCHEMA", "iter_items", "write", "write_dataset"]
