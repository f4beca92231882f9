"""The Parquet reader's fast path: the vectorised checks of a batch and the builders of its
events (used by :mod:`gamelog.parquet`'s reader).

Most rows are plays and trick results. For a batch that passes the vectorised checks below,
rows of the event types whose fields are all scalars or card lists are built directly with
the Struct constructor, skipping a dict and ``msgspec.convert`` per row. The checks reject
exactly what ``convert`` would reject for those types (wrong schema, a missing required
field, a value outside a Literal such as an unknown card, a null inside a list, a column set
that the event type does not have); any doubt sends the whole batch down the per-row path,
which then names the row and field. tests/test_parquet_fast_path.py holds the two paths to
the same results.
"""

from __future__ import annotations

import functools
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from gamelog.model import EVENT_TYPES, Event
from gamelog.parquet_schema import FIELDS_OF, SCHEMA


def _simple_field(t: msgspec.inspect.Type) -> bool:
    mi = msgspec.inspect
    if isinstance(t, mi.UnionType):
        return all(_simple_field(x) for x in t.types)
    if isinstance(t, mi.ListType):
        return _simple_field(t.item_type)
    return isinstance(t, (mi.NoneType, mi.IntType, mi.StrType, mi.LiteralType, mi.BoolType))


_Checks = dict[str, list[tuple[str, Any, bool]]]


def _constructor(kind: type[Event], values: list[str], env: dict[str, Any], at: str) -> str:
    """Source of a call building ``kind`` from the variables ``values`` (one per field, in
    field order; ``None`` means the field's default); default values go into ``env``."""
    args = []
    fields = msgspec.inspect.type_info(kind).fields  # type: ignore[attr-defined]
    for f, v in zip(fields, values, strict=True):
        if f.required or f.default is None:
            args.append(f"{f.name}={v}")
        else:
            env[f"d{at}_{f.name}"] = f.default
            args.append(f"{f.name}=(d{at}_{f.name} if {v} is None else {v})")
    env[f"K{at}"] = kind
    return f"K{at}({', '.join(args)})"


def _fast_plan() -> tuple[dict[str, list[str]], _Checks]:
    """The simple event types' columns (in field order) and the checks of their values."""
    columns: dict[str, list[str]] = {}
    checks: dict[str, list[tuple[str, Any, bool]]] = {}
    for kind in EVENT_TYPES:
        fields = msgspec.inspect.type_info(kind).fields  # type: ignore[attr-defined]
        if all(_simple_field(f.type) for f in fields):
            tag = kind.__struct_config__.tag
            columns[tag] = [f.encode_name for f in fields]
            checks[tag] = [(f.encode_name, f.type, f.required) for f in fields]
    return columns, checks


_FIELD_COLUMNS, _CHECKS = _fast_plan()
_KINDS = {kind.__struct_config__.tag: kind for kind in EVENT_TYPES}
_FAST_TYPES = frozenset(_FIELD_COLUMNS)
_TAG_LIST = sorted(FIELDS_OF)
_ALL_TAGS = pa.array(_TAG_LIST, pa.string())
_CODES_WITH: dict[str, set[int]] = {
    c: {k for k, t in enumerate(_TAG_LIST) if c in FIELDS_OF[t]} for c in SCHEMA.names
}


def _common_columns(common: tuple[int, ...]) -> list[str]:
    """The columns the event types ``common`` (codes) use, in schema order."""
    used = {name for code in common for name in _FIELD_COLUMNS[_TAG_LIST[code]]}
    return [name for name in SCHEMA.names if name in used]


@functools.cache
def _in_row_order(common: tuple[int, ...]) -> Any:
    """A function of the type codes and the :func:`_common_columns` of a batch (as lists)
    that builds the events of the types ``common`` in row order, ``None`` for other rows."""
    names = _common_columns(common)
    var = {name: f"c{k}" for k, name in enumerate(names)}
    env: dict[str, Any] = {}
    build = "None"
    for code in reversed(common):
        tag = _TAG_LIST[code]
        call = _constructor(_KINDS[tag], [var[name] for name in _FIELD_COLUMNS[tag]], env,
                            str(code))
        build = f"{call} if code == {code} else {build}"
    targets = ", ".join(["code", *var.values()])
    source = (f"def build(codes, {', '.join(var.values())}):\n"
              f"    return [{build} for {targets} in zip(codes, {', '.join(var.values())})]\n")
    exec(source, env)  # generated from the event types
    return env["build"]


def _values_ok(arr: pa.Array, t: msgspec.inspect.Type) -> bool:
    """Whether the non-null values of ``arr`` all fit the msgspec type ``t``."""
    mi = msgspec.inspect
    if isinstance(t, mi.UnionType):
        rest = [x for x in t.types if not isinstance(x, mi.NoneType)]
        return len(rest) == 1 and _values_ok(arr, rest[0])
    if isinstance(t, mi.ListType):
        inner = arr.flatten()
        return inner.null_count == 0 and _values_ok(inner, t.item_type)
    if isinstance(t, mi.LiteralType):
        if len(arr) == 0:
            return True
        allowed = pa.array([v for v in t.values if isinstance(v, str)], pa.string())
        return bool(pc.all(pc.is_in(arr.drop_null(), value_set=allowed)).as_py() is not False)
    return True


def _allowed_leaves(t: msgspec.inspect.Type) -> frozenset[Any] | None:
    """The values a Literal leaf allows, ``None`` when the leaf type is not a Literal (no value
    check), or an empty set when the check cannot be settled from distinct values alone."""
    mi = msgspec.inspect
    while True:
        if isinstance(t, mi.UnionType):
            rest = [x for x in t.types if not isinstance(x, mi.NoneType)]
            if len(rest) != 1:
                return frozenset()
            t = rest[0]
        elif isinstance(t, mi.ListType):
            t = t.item_type
        elif isinstance(t, mi.LiteralType):
            return frozenset(t.values)
        else:
            return None


_BASE = ("match", "hand", "seq", "type")
_REQUIRED_BY: dict[str, set[int]] = {  # column -> codes of fast types that require it
    c: {k for k, t in enumerate(_TAG_LIST) if t in _FAST_TYPES
        and any(name == c and req for name, _, req in _CHECKS[t])} for c in SCHEMA.names
}
_TYPE_AT: dict[str, dict[int, tuple[Any, frozenset[Any]]]] = {
    # column -> fast type code -> (its msgspec type, the values its Literal leaves allow), for
    # the fields whose values need checking (Literals: card tokens, suits, levels)
    c: {k: (ftype, allowed) for k, t in enumerate(_TAG_LIST) if t in _FAST_TYPES
        for name, ftype, _ in _CHECKS[t]
        if name == c and (allowed := _allowed_leaves(ftype)) is not None}
    for c in SCHEMA.names
}


def _leaves(arr: pa.Array) -> pa.Array | None:
    """The innermost values of a (nested) list column, or ``None`` if a list holds a null."""
    while pa.types.is_list(arr.type):
        arr = arr.flatten()  # null lists add nothing
        if arr.null_count:
            return None
    return arr


def _clean_codes(batch: pa.RecordBatch) -> pa.Array | None:
    """The rows' event type codes (indices into ``_TAG_LIST``) if the batch passes the
    vectorised checks of the fast path (the module docstring), else ``None``. Each column is
    looked at once for all event types (with bitmaps of the rows whose type has, or requires,
    it), and its values filtered by type only when its distinct values do not settle it."""
    schema = batch.schema
    for name in schema.names:
        if schema.field(name).type != SCHEMA.field(name).type:
            return None
    for base in _BASE:
        if batch.column(base).null_count:
            return None
    codes = pc.index_in(batch.column("type"), value_set=_ALL_TAGS)
    if codes.null_count:
        return None  # an unknown event type
    present = frozenset(pc.unique(codes).to_pylist())
    names = set(schema.names)
    for code in present:
        tag = _TAG_LIST[code]
        if tag in _FAST_TYPES and any(req and name not in names for name, _, req in _CHECKS[tag]):
            return None  # a required column is missing altogether
    masks: dict[frozenset[int], pa.Array] = {}

    def rows_of(types: frozenset[int]) -> pa.Array:
        """Whether each row's event type is one of ``types`` (a bitmap: cheap to combine)."""
        if types not in masks:
            if len(types) == 1:
                masks[types] = pc.equal(codes, pa.scalar(next(iter(types)), codes.type))
            else:
                masks[types] = functools.reduce(pc.or_, (rows_of(frozenset([k])) for k in types))
        return masks[types]

    n = batch.num_rows
    for name in schema.names:
        if name in _BASE:
            continue
        col = batch.column(name)
        nulls = col.null_count
        others = present - _CODES_WITH[name]
        if nulls < n and others and \
                pc.any(pc.and_(pc.is_valid(col), rows_of(others))).as_py():
            return None  # a column set that its event type does not have
        required = present & _REQUIRED_BY[name]
        if required and nulls and pc.any(pc.and_(pc.is_null(col), rows_of(required))).as_py():
            return None  # a required field left null
        checked = {code: value for code, value in _TYPE_AT[name].items() if code in present}
        if not checked or nulls == n:
            continue  # nothing but the nulls and column types checked above
        leaves = _leaves(col)
        distinct = None if leaves is None else set(pc.unique(leaves).to_pylist())
        for code, (ftype, allowed) in checked.items():
            if distinct is not None and allowed and distinct - {None} <= allowed:
                continue
            if not _values_ok(col.filter(pc.equal(codes, code)), ftype):
                return None
    return codes


def _int_view(column: pa.Array) -> memoryview:
    """The values of an int32 column without a copy (whatever lies under its nulls)."""
    data = column.buffers()[1]
    if data is None:  # an empty column
        return memoryview(b"").cast("i")
    return memoryview(data)[column.offset * 4:(column.offset + len(column)) * 4].cast("i")
