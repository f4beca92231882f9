"""Parquet: the same events as rows of one Arrow table.

Every event is one row. The columns are ``match``, ``hand``, ``seq``, ``type`` and then the
union of all event fields, each with the same name and meaning as in JSON; a field that an
event type does not have is null. Cards are ``list<string>`` of canonical tokens, holdings
``list<list<string>>``; the header's ``options`` (typed values of many kinds) are JSON text and
its ``tags`` a ``map<string, string>``. Plain polars, pyarrow and DuckDB read it without this
package. The schema is derived from the event types, so the two cannot drift apart.

Row groups end on hand boundaries, so no hand is split between groups or files, and writing
holds one row group in memory at a time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.parquet as pq

from gamelog.errors import GamelogIOError, MalformedRecordError, RecordError
from gamelog.jsonl import atomic_output, flatten
from gamelog.model import EVENT_TYPES, FORMAT_VERSION, Event, Hand, Match
from gamelog.reader import EventDecoder, Item

_JSON_COLUMNS: set[str] = set()
_MAP_COLUMNS: set[str] = set()


def _arrow_type(t: msgspec.inspect.Type, name: str) -> pa.DataType:
    mi = msgspec.inspect
    if isinstance(t, mi.UnionType):
        rest = [x for x in t.types if not isinstance(x, mi.NoneType)]
        if len(rest) == 1:
            return _arrow_type(rest[0], name)
        raise TypeError(f"field {name!r}: unions other than X | None need a JSON column")
    if isinstance(t, mi.IntType):
        return pa.int32()
    if isinstance(t, mi.BoolType):
        return pa.bool_()
    if isinstance(t, mi.FloatType):
        return pa.float64()
    if isinstance(t, (mi.StrType, mi.LiteralType)):
        return pa.string()
    if isinstance(t, mi.ListType):
        return pa.list_(_arrow_type(t.item_type, name))
    if isinstance(t, mi.StructType):
        return pa.struct([pa.field(f.encode_name, _arrow_type(f.type, f.name),
                                   nullable=not f.required) for f in t.fields])
    if isinstance(t, mi.DictType):
        if isinstance(t.value_type, mi.StrType):
            _MAP_COLUMNS.add(name)
            return pa.map_(pa.string(), pa.string())
        _JSON_COLUMNS.add(name)
        return pa.string()
    raise TypeError(f"field {name!r}: no Arrow type for {t!r}")


def _build_schema() -> tuple[pa.Schema, dict[str, tuple[str, ...]]]:
    columns: dict[str, pa.DataType] = {"type": pa.string()}
    fields_of: dict[str, tuple[str, ...]] = {}
    for kind in EVENT_TYPES:
        info = msgspec.inspect.type_info(kind)
        names = []
        for f in info.fields:  # type: ignore[attr-defined]
            arrow = _arrow_type(f.type, f.encode_name)
            known = columns.get(f.encode_name)
            if known is not None and known != arrow:
                raise TypeError(f"field {f.encode_name!r} has two types: {known} and {arrow}")
            columns[f.encode_name] = arrow
            names.append(f.encode_name)
        fields_of[kind.__struct_config__.tag] = tuple(names)  # type: ignore[index]
    order = ["match", "hand", "seq", "type"]
    order += [c for c in columns if c not in order]
    required = {"match", "hand", "seq", "type"}
    schema = pa.schema(
        [pa.field(c, columns[c], nullable=c not in required) for c in order],
        metadata={b"gamelog.version": FORMAT_VERSION.encode(),
                  b"gamelog.json_columns": ",".join(sorted(_JSON_COLUMNS)).encode()},
    )
    return schema, fields_of


SCHEMA, FIELDS_OF = _build_schema()
"""The Arrow schema of a game record, and the columns each event type uses."""
JSON_COLUMNS = frozenset(_JSON_COLUMNS)
MAP_COLUMNS = frozenset(_MAP_COLUMNS)

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
    with atomic_output(path) as out, pq.ParquetWriter(out, SCHEMA, compression="zstd") as writer:
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
    """Write a directory of ``part-NNNNN.parquet`` files, none splitting a hand."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    batch: list[Event] = []

    def flush() -> None:
        path = directory / f"part-{len(paths):05d}.parquet"
        write(batch, path, rows_per_group=rows_per_group)
        paths.append(path)
        batch.clear()

    for _ in _hand_boundaries(flatten(events), rows_per_file, batch):
        flush()
    if batch or not paths:
        flush()
    return paths


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
    except (OSError, pa.ArrowInvalid) as exc:
        raise GamelogIOError(f"{path}: not a readable Parquet file: {exc}") from None
    present = set(pf.schema_arrow.names)
    missing = {"match", "hand", "seq", "type"} - present
    if missing:
        raise GamelogIOError(f"{path}: not a game record: no column(s) {', '.join(sorted(missing))}")
    columns = [c for c in SCHEMA.names if c in present]
    row0 = 0
    try:
        for batch in pf.iter_batches(batch_size=batch_size, columns=columns):
            data = {name: batch.column(i).to_pylist() for i, name in enumerate(batch.schema.names)}
            yield from _rows(data, batch.num_rows, row0, decoder)
            row0 += batch.num_rows
    except (OSError, pa.ArrowInvalid) as exc:
        raise GamelogIOError(f"{path}: read failed near row {row0}: {exc}") from None


def _rows(data: dict[str, list[Any]], n: int, row0: int, decoder: EventDecoder) -> Iterator[Item]:
    types = data["type"]
    for i in range(n):
        tag = types[i]
        names = FIELDS_OF.get(tag)
        if names is None:
            names = tuple(c for c in data if c != "type")
        row: dict[str, Any] = {"type": tag}
        try:
            for name in names:
                col = data.get(name)
                if col is None:
                    continue
                value = col[i]
                if value is None:
                    continue
                if name in MAP_COLUMNS:
                    value = dict(value)
                elif name in JSON_COLUMNS:
                    value = msgspec.json.decode(value)
                row[name] = value
            yield row0 + i, decoder.decode_dict(row)
        except msgspec.DecodeError as exc:
            yield row0 + i, MalformedRecordError(f"not valid JSON text ({exc})", field=f"$.{name}")
        except RecordError as err:
            yield row0 + i, err


__all__ = ["SCHEMA", "iter_items", "write", "write_dataset"]
