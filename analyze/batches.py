"""Tables made in worker processes and brought back: hand batches run in order
(:func:`batch_results`), a match's row kept once when its hands span two batches
(:func:`first_match_rows`), and frames as Arrow IPC payloads (:func:`to_ipc`,
:func:`from_ipc`). Used by the export, the report's collector and the Ray engine."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import polars as pl


def batch_results(paths: Any, jobs: int, work: Any,
                  args: tuple[Any, ...] | Callable[[], tuple[Any, ...]], *,
                  issues: list | None = None, progress: Any = None, arrow: bool = False
                  ) -> Iterator[tuple[dict[str, Any], tuple[Any, ...]]]:
    """Hand batches of ``paths`` run through ``work(packed, warm, *args)`` in ``jobs``
    processes, in input order (:mod:`replay.parallel`): each batch's frames (from the Arrow IPC
    its worker returned) and the rest of its result. ``args`` may be a function, called as
    each batch is sent (so that later batches can be asked for less). With ``arrow`` the
    tables are Arrow tables, else polars frames. A worker returns ``(payload, problems,
    hands, rest, at_start, end)``; each problem (a ruleset that cannot be built) is reported
    once in ``issues``, and ``progress(hands)`` after each batch."""
    from gamelog import files
    from gamelog.errors import RecordError
    from replay.parallel import checked_in_order, hand_batches, in_order, terminate_on_sigterm

    seen: set[str] = set()
    tasks = ((packed, warm, *(args() if callable(args) else args)) for packed, warm in
             hand_batches(files.read_hands(paths, issues=issues)))
    with terminate_on_sigterm():
        for payload, problems, hands, rest in checked_in_order(
                in_order(jobs, work, tasks, keep_tasks=True), work):
            for problem in problems:
                if problem not in seen and issues is not None:
                    seen.add(problem)
                    issues.append(RecordError(problem))
            if progress is not None:
                progress(hands)
            tables = from_ipc(payload)
            yield (tables if arrow else
                   {name: pl.from_arrow(table) for name, table in tables.items()}, rest)


def first_match_rows(frames: dict[str, Any], listed: set[str]) -> dict[str, Any]:
    """``frames`` with the ``matches`` rows of matches already listed by an earlier slice left
    out (a match split across two workers' batches is one row, as in one process)."""
    import pyarrow as pa

    matches = frames.get("matches")
    if matches is None or len(matches) == 0:
        return frames
    arrow = isinstance(matches, pa.Table)
    ids = matches.column("match").to_pylist() if arrow else matches["match"].to_list()
    keep = [m not in listed for m in ids]
    listed.update(ids)
    if all(keep):
        return frames
    return {**frames, "matches": matches.filter(pa.array(keep) if arrow else pl.Series(keep))}


def to_ipc(frames: dict[str, pl.DataFrame]) -> bytes:
    """Frames as one payload a worker can return: each table's Arrow IPC stream, pickled."""
    import io
    import pickle

    import pyarrow as pa

    parts = {}
    for name, frame in frames.items():
        sink = io.BytesIO()
        table = frame.to_arrow()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        parts[name] = sink.getvalue()
    return pickle.dumps(parts, protocol=5)


def from_ipc(payload: bytes) -> dict[str, Any]:
    """The Arrow tables of a :func:`to_ipc` payload."""
    import pickle

    import pyarrow as pa

    return {name: pa.ipc.open_stream(data).read_all()
            for name, data in pickle.loads(payload).items()}
