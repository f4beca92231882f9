"""Export the metrics tables as Parquet (or CSV) files; schemas in docs/export.md."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from analyze.batches import batch_results, first_match_rows, to_ipc
from analyze.metrics import Collector, fill_from_batch
from gamelog.outputs import owned_directory


def export_tables(collector: Collector, directory: str | os.PathLike[str], *, csv: bool = False
                  ) -> list[tuple[Path, int]]:
    """Write every table of a finished collector; returns (path, rows) for each."""
    return write_tables([collector], directory, csv=csv)


def write_tables(slices: Iterable[Collector | dict[str, pl.DataFrame]],
                 directory: str | os.PathLike[str], *, csv: bool = False
                 ) -> list[tuple[Path, int]]:
    """Write the tables from slices of rows (collectors, drained as they come, or frames):
    each slice is appended to its table, so an export of any size holds only one slice in
    memory. Returns (path, rows) for each table.

    The set of tables is built beside ``directory`` and swapped in whole (a killed run or a full
    disk leaves the earlier set as it was, never new tables beside old ones); an existing
    directory that is not an earlier export of ours is refused
    (:func:`gamelog.outputs.owned_directory`). CSV cells that a spreadsheet would run as a
    formula (starting ``=``, ``+``, ``-``, ``@``, tab or carriage return) get a leading ``'``."""
    out = Path(directory)
    suffix = "csv" if csv else "parquet"
    counts: dict[str, int] = {}
    with owned_directory(out, "export") as build:
        writers: dict[str, Any] = {}
        pending: dict[str, list[Any]] = {}  # rows not yet written, whole row groups at a time
        handles: dict[str, Any] = {}
        try:
            for piece in slices:
                frames = piece.drain() if isinstance(piece, Collector) else piece
                for name, frame in frames.items():
                    path = build / f"{name}.{suffix}"
                    is_arrow = isinstance(frame, pa.Table)
                    if csv and is_arrow:
                        frame = pl.from_arrow(frame)
                        is_arrow = False
                    if csv:
                        first = name not in handles
                        if first:
                            handles[name] = open(path, "wb")  # noqa: SIM115 - closed below
                        _csv_safe(frame).write_csv(handles[name], include_header=first)
                    else:
                        table = frame if is_arrow else frame.to_arrow()
                        writer = writers.get(name)
                        if writer is None:
                            writer = writers[name] = pq.ParquetWriter(path, table.schema,
                                                                      compression="zstd")
                        held = pending.setdefault(name, [])
                        held.append(table.cast(writer.schema))
                        if sum(t.num_rows for t in held) >= group_rows(name):
                            pending[name] = _write_groups(writer, held, final=False,
                                                          rows=group_rows(name))
                        elif len(held) >= COMPACT_SLICES:
                            # a slice read from a worker's IPC shares that whole message's
                            # memory: copied together into compact buffers, the rows waiting
                            # for a full row group keep only their own bytes
                            pending[name] = [pa.concat_tables(held).combine_chunks()]
                    counts[name] = counts.get(name, 0) + len(frame)
            for name, held in pending.items():
                _write_groups(writers[name], held, final=True, rows=group_rows(name))
        finally:
            for writer in writers.values():
                writer.close()
            for handle in handles.values():
                handle.close()
    return [(out / f"{name}.{suffix}", rows) for name, rows in counts.items()]


COMPACT_SLICES = 16
"""Slices of one table waiting for a full row group before they are copied into one."""

GROUP_ROWS = 100_000
"""Rows per Parquet row group of an export: fixed, so that the files are the same bytes however
the rows arrived (one process or several)."""
WIDE_GROUP_ROWS = 20_000
"""Rows per row group of the tables with a row per hand or per match (``hands``, ``matches``,
``auctions``): their rows are wide and few, and the rows waiting for a full group are the
export's largest buffer (100,000 hands' rows held about 100 MB)."""


def group_rows(table: str) -> int:
    """Rows per Parquet row group of an export table."""
    return WIDE_GROUP_ROWS if table in ("hands", "matches", "auctions") else GROUP_ROWS


def _write_groups(writer: Any, held: list[Any], *, final: bool, rows: int) -> list[Any]:
    """Write whole row groups of ``held`` (the rest too when ``final``); returns what is left."""
    import pyarrow as pa

    table = pa.concat_tables(held) if len(held) > 1 else held[0]
    whole = table.num_rows if final else table.num_rows - table.num_rows % rows
    if whole:
        writer.write_table(table.slice(0, whole), row_group_size=rows)
    return [] if final else [table.slice(whole)]


def collector_slices(reports: Iterable[Any], *, anonymize: bool = False, every: int = 500
                     ) -> Iterable[dict[str, pl.DataFrame]]:
    """The export's rows, a slice of tables every ``every`` hands (so memory stays flat)."""
    collector = Collector(anonymize=anonymize)
    for report in reports:
        collector.add(report)
        if collector.pending_hands >= every:
            yield collector.drain()
    yield collector.drain()


def table_slices_in_processes(paths: Any, jobs: int, *, ruleset: str | None = None,
                              issues: list | None = None, progress: Any = None,
                              anonymize: bool = False, keep: Any = None
                              ) -> Iterable[dict[str, pl.DataFrame]]:
    """The export's rows computed in ``jobs`` processes: each worker replays a batch of hands
    (with the warm-up and context checks of :mod:`replay.parallel`) and returns its table rows
    as Arrow IPC, never the reports, with raw player keys that get their labels (anonymized
    ones too) here, in input order; so the tables are those of one process. ``keep`` (a
    picklable predicate on a hand's report) chooses the hands that get rows; every hand is
    still replayed. A match whose ruleset cannot be built is reported in ``issues``."""
    labels = Collector(anonymize=anonymize)
    listed: set[str] = set()
    for tables, (raw_keys,) in batch_results(paths, jobs, _table_batch,
                                             (ruleset, anonymize, keep),
                                             issues=issues, progress=progress, arrow=True):
        # kept in Arrow from the worker's IPC to the Parquet file: no polars frame per slice
        _, mapping = labels.relabel({}, raw_keys)
        yield first_match_rows(relabel_tables(tables, mapping), listed)


def relabel_tables(tables: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any]:
    """Arrow tables with the raw player keys of their player columns replaced by labels."""
    import pyarrow as pa

    from analyze.metrics import PLAYER_COLUMNS

    if not mapping:
        return tables
    out = {}
    for name, table in tables.items():
        for column in PLAYER_COLUMNS.get(name, ()):
            i = table.schema.get_field_index(column)
            if i < 0:
                continue
            values = table.column(i)
            labelled = pa.array([mapping.get(v, v) if v is not None else None
                                 for v in values.to_pylist()], type=values.type)
            table = table.set_column(i, table.schema.field(i), labelled)
        out[name] = table
    return out


def _table_batch(packed: bytes, first: int, ruleset: str | None, anonymize: bool = False,
                 keep: Any = None, start: Any = None
                 ) -> tuple[bytes, list[str], int, tuple[list[str]], Any, Any]:
    """A worker: replay a batch of hands and compute its export rows, for the hands ``keep``
    accepts (see :func:`table_slices_in_processes`)."""
    collector = Collector(defer_labels=True, anonymize=anonymize)
    problems, count, at_start, end = fill_from_batch(collector, packed, first, ruleset, start,
                                                     keep=keep)
    return to_ipc(collector.drain()), problems, count, (list(collector.raw_keys),), at_start, end


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_safe(frame: pl.DataFrame) -> pl.DataFrame:
    """Lists joined by spaces, and text cells that start like a formula prefixed with ``'``
    (OWASP's advice against CSV injection); numbers are left alone."""
    flat = frame.with_columns(
        pl.col(c).list.join(" ") for c, t in frame.schema.items()
        if isinstance(t, pl.List) and t.inner == pl.String)
    flat = flat.with_columns(
        pl.col(c).cast(pl.List(pl.String)).list.join(" ")
        for c, t in flat.schema.items() if isinstance(t, pl.List))
    texts = [c for c, t in frame.schema.items()  # text from records; joined numbers stay as is
             if t == pl.String or (isinstance(t, pl.List) and t.inner == pl.String)]
    pattern = "^[" + "".join("\\" + ch if ch in "-+" else ch for ch in _FORMULA_START) + "]"
    return flat.with_columns(
        pl.when(pl.col(c).str.contains(pattern)).then(pl.lit("'") + pl.col(c))
        .otherwise(pl.col(c)).alias(c) for c in texts)
