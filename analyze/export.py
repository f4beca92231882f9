"""Export the metrics tables as Parquet (or CSV) files; schemas in docs/export.md."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from analyze.metrics import Collector
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
        handles: dict[str, Any] = {}
        try:
            for piece in slices:
                frames = piece.drain() if isinstance(piece, Collector) else piece
                for name, frame in frames.items():
                    path = build / f"{name}.{suffix}"
                    if csv:
                        first = name not in handles
                        if first:
                            handles[name] = open(path, "wb")  # noqa: SIM115 - closed below
                        _csv_safe(frame).write_csv(handles[name], include_header=first)
                    else:
                        table = frame.to_arrow()
                        writer = writers.get(name)
                        if writer is None:
                            writer = writers[name] = pq.ParquetWriter(path, table.schema,
                                                                      compression="zstd")
                        writer.write_table(table.cast(writer.schema))
                    counts[name] = counts.get(name, 0) + frame.height
        finally:
            for writer in writers.values():
                writer.close()
            for handle in handles.values():
                handle.close()
    return [(out / f"{name}.{suffix}", rows) for name, rows in counts.items()]


def collector_slices(reports: Iterable[Any], *, anonymize: bool = False, every: int = 500
                     ) -> Iterable[Collector]:
    """One collector, handed out every ``every`` hands for :func:`write_tables` to drain."""
    collector = Collector(anonymize=anonymize)
    for report in reports:
        collector.add(report)
        if collector.pending_hands >= every:
            yield collector
    yield collector


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
