"""Validation and export on a Ray cluster (``--engine ray``): one machine is not enough.

The driver reads the records (files or a partitioned Parquet data set, as every reader does)
and cuts them into chunks of whole matches (hands depend on the hands before them, so a match
is never split), packed as MessagePack. Ray Data maps the chunks over a pool of workers, each
holding one replayer (rulesets are built once per worker and reused); a worker replays its
chunk and, for an export, computes the export tables' rows there (``analyze.metrics.Collector``,
as Arrow IPC). The driver keeps the chunks' order, so the reports and rows are those of the
local engine, and writes the tables as Parquet partitioned by ruleset and a match-id bucket.
See docs/scale.md.
"""

from __future__ import annotations

import logging
import os
import pickle
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as pads

from analyze.batches import from_ipc, to_ipc
from gamelog import files
from gamelog.errors import RecordError
from gamelog.model import Hand

BUCKETS = 16
"""Match-id buckets per ruleset in a partitioned export (``bucket=0..15``)."""
ROWS_PER_FILE = 1_000_000
"""At most this many rows in one file of a partitioned export (files of bounded size)."""


def _chunks(hands: Iterable[Hand], batch_hands: int) -> Iterator[bytes]:
    batch: list[Hand] = []
    for hand in hands:
        if batch and len(batch) >= batch_hands and hand.match != batch[-1].match:
            yield files.pack_hands(batch)
            batch = []
        batch.append(hand)
    if batch:
        yield files.pack_hands(batch)


class _Replayer:
    """A Ray Data worker: replays chunks of whole matches; with ``tables``, also computes the
    export rows. One per worker process, so its rulesets (cached by ``replay``) are reused."""

    def __init__(self, ruleset: str | None, options: dict[str, Any], tables: bool) -> None:
        self.ruleset = ruleset
        self.options = options
        self.tables = tables

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        import replay
        from analyze.metrics import Collector

        out_index, out_reports, out_tables = [], [], []
        for index, packed in zip(batch["index"], batch["packed"], strict=True):
            reports = list(replay.validate_hands(files.unpack_hands(bytes(packed)),
                                                 ruleset=self.ruleset, options=self.options))
            tables = b""
            if self.tables:
                collector = Collector()
                for report in reports:
                    if not any(isinstance(i, replay.RulesetProblem)
                               for i in report.record_issues):
                        collector.add(report)
                tables = to_ipc(collector.frames())
            out_index.append(int(index))
            out_reports.append(zlib.compress(pickle.dumps(reports, protocol=5), 1))
            out_tables.append(tables)
        return {"index": out_index, "reports": out_reports, "tables": out_tables}


def _started(address: str | None, jobs: int) -> bool:
    """Connect to the cluster at ``address`` (or ``RAY_ADDRESS``), or start a local Ray for the
    run; ``True`` when this call started it (and must shut it down)."""
    import ray

    if ray.is_initialized():
        return False
    for name in ("ray", "ray.data", "ray._private"):
        logging.getLogger(name).setLevel(logging.ERROR)
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")  # no C++ chatter on stderr
    address = address or os.environ.get("RAY_ADDRESS") or None
    kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.ERROR,
                              "log_to_driver": False, "configure_logging": False}
    if address is None:
        kwargs["num_cpus"] = jobs
    else:
        reachable(address)
    ray.init(address=address, **kwargs)
    return True


CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a cluster's head to answer before giving up (Ray itself retries for
minutes, silently)."""


def reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Check that the head at ``address`` (``host:port`` or ``ray://host:port``; ``auto`` and
    ``local`` are left to Ray) accepts a connection; raise ``ConnectionError`` (an ``OSError``:
    a clean message and exit 2 at the command line) if not."""
    import socket

    target = address.removeprefix("ray://")
    if target in ("auto", "local") or ":" not in target:
        return
    host, _, port = target.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except (OSError, ValueError) as exc:
        raise ConnectionError(f"cannot reach the Ray cluster at {address!r} within "
                              f"{timeout:.0f} s: {getattr(exc, 'strerror', None) or exc}"
                              ) from None


def replay_on_ray(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *,
                  address: str | None = None, jobs: int = 2, ruleset: str | None = None,
                  options: dict[str, Any] | None = None, tables: bool = False,
                  issues: list[RecordError] | None = None, batch_hands: int = 200
                  ) -> Iterator[tuple[list[Any], dict[str, pa.Table] | None]]:
    """For each chunk of whole matches, in input order: its hand reports and (``tables``) its
    export tables, computed on the Ray workers."""
    import ray
    import ray.data

    started = _started(address, jobs)
    try:
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True
        context.enable_progress_bars = False
        chunks = list(_chunks(files.read_hands(paths, issues=issues), batch_hands))
        if not chunks:
            return
        dataset = ray.data.from_items([{"index": i, "packed": c} for i, c in enumerate(chunks)],
                                      override_num_blocks=len(chunks))
        mapped = dataset.map_batches(
            _Replayer, fn_constructor_args=(ruleset, options or {}, tables), batch_size=1,
            concurrency=max(1, jobs), batch_format="numpy")
        for row in mapped.iter_rows():
            reports = pickle.loads(zlib.decompress(bytes(row["reports"])))
            yield reports, (from_ipc(bytes(row["tables"])) if tables else None)
    finally:
        if started:
            ray.shutdown()


def bucket_of(match: str) -> int:
    """The match-id bucket of a partitioned export: stable across runs and machines."""
    return zlib.crc32(match.encode("utf-8", "surrogatepass")) % BUCKETS


def write_partitioned(pieces: Iterable[dict[str, pa.Table]], directory: Path
                      ) -> list[tuple[Path, int]]:
    """Each table under ``directory/NAME/ruleset=R/bucket=B/part-K-I.parquet`` (hive
    partitioning, the partition values taken from each row's match), piece by piece (so only one
    piece is in memory), replacing an earlier export whole."""
    from gamelog.outputs import owned_directory

    counts: dict[str, int] = {}
    rulesets: dict[str, str] = {}
    with owned_directory(directory, "export") as build:
        for k, tables in enumerate(pieces):
            matches_table = tables.get("matches")
            if matches_table is not None:
                for match, name in zip(matches_table.column("match").to_pylist(),
                                       matches_table.column("ruleset").to_pylist(), strict=True):
                    rulesets[match] = name
            for name, table in tables.items():
                counts.setdefault(name, 0)
                if not table.num_rows:
                    continue
                matches = table.column("match").to_pylist()
                if "ruleset" not in table.schema.names:
                    table = table.append_column("ruleset", pa.array(
                        [rulesets.get(m, "?") for m in matches], pa.string()))
                table = table.append_column("bucket", pa.array(
                    [bucket_of(m) for m in matches], pa.int32()))
                pads.write_dataset(table, build / name, format="parquet",
                                   partitioning=["ruleset", "bucket"],
                                   partitioning_flavor="hive",
                                   existing_data_behavior="overwrite_or_ignore",
                                   basename_template=f"part-{k}-{{i}}.parquet",
                                   max_rows_per_file=ROWS_PER_FILE,
                                   max_rows_per_group=min(ROWS_PER_FILE, 100_000))
                counts[name] += table.num_rows
    return [(directory / name, rows) for name, rows in counts.items()]
