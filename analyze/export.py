"""Export the metrics tables as Parquet (or CSV) files; schemas in docs/export.md."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from analyze.metrics import Collector
from gamelog.jsonl import atomic_output


def export_tables(collector: Collector, directory: str | os.PathLike[str], *, csv: bool = False
                  ) -> Iterator[tuple[Path, int]]:
    """Write each table atomically; yields (path, rows)."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    for name, frame in collector.frames().items():
        path = out / f"{name}.{'csv' if csv else 'parquet'}"
        with atomic_output(path) as f:
            if csv:
                flat = frame.with_columns(
                    pl.col(c).list.join(" ") for c, t in frame.schema.items()
                    if isinstance(t, pl.List) and t.inner == pl.String)
                flat = flat.with_columns(
                    pl.col(c).cast(pl.List(pl.String)).list.join(" ")
                    for c, t in flat.schema.items() if isinstance(t, pl.List))
                flat.write_csv(f)
            else:
                frame.write_parquet(f, compression="zstd")
        yield path, frame.height
