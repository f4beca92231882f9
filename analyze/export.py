"""Export the metrics tables as Parquet (or CSV) files; schemas in docs/export.md."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from analyze.metrics import Collector
from gamelog.jsonl import atomic_output
from gamelog.outputs import owned_directory


def export_tables(collector: Collector, directory: str | os.PathLike[str], *, csv: bool = False
                  ) -> list[tuple[Path, int]]:
    """Write every table; returns (path, rows) for each.

    The set of tables is built beside ``directory`` and swapped in whole (a killed run or a full
    disk leaves the earlier set as it was, never new tables beside old ones); an existing
    directory that is not an earlier export of ours is refused
    (:func:`gamelog.outputs.owned_directory`). CSV cells that a spreadsheet would run as a
    formula (starting ``=``, ``+``, ``-``, ``@``, tab or carriage return) get a leading ``'``."""
    out = Path(directory)
    written: list[tuple[Path, int]] = []
    with owned_directory(out, "export") as build:
        for name, frame in collector.frames().items():
            file = f"{name}.{'csv' if csv else 'parquet'}"
            with atomic_output(build / file) as f:
                if csv:
                    _csv_safe(frame).write_csv(f)
                else:
                    frame.write_parquet(f, compression="zstd")
            written.append((out / file, frame.height))
    return written


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
