"""The Parquet schema of a game record, derived from the event types (:mod:`gamelog.model`),
so the two cannot drift apart: one row per event, the columns ``match``, ``hand``, ``seq``,
``type`` and then the union of all event fields (see :mod:`gamelog.parquet`). Shared by the
writer and the two readers (:mod:`gamelog.parquet`, :mod:`gamelog.parquet_fast`)."""

from __future__ import annotations

import msgspec
import pyarrow as pa

from gamelog.model import EVENT_TYPES, FORMAT_VERSION

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

__all__ = ["FIELDS_OF", "JSON_COLUMNS", "MAP_COLUMNS", "SCHEMA"]
