"""Validation, export and review on a Ray cluster (``--engine ray``): one machine is not enough.

The driver handles names and sizes, never records:

1. **Plan.** The driver lists the record files (``gamelog.files.record_files``) and their
   sizes. A first round of small tasks reads each file's match ids on the nodes (a byte scan of
   JSON Lines, the ``match`` column of Parquet) and returns them as 64-bit hashes. Files that
   share a match are one *group* (union-find): the local reader shares headers and the
   already-read hands between files by match id, so a match split across files (a header in
   one part, hands in another) is read as one, exactly as ``-j 1`` reads it. A hash collision
   only merges two groups, which is never wrong.
2. **Shares.** Each group is one task, or, when a group is a large part of the input, several
   *shares* of it: every share reads the whole group (so the reader's verdicts are those of one
   reader) and replays only its matches (validate, export: by match-id bucket, since a hand
   depends on the hands before it) or reviews only its hands (review: by position, every hand
   still replayed for its context).
3. **Workers read and write.** Each task opens its files itself (from the driver's working
   directory, so file names print as they do locally), replays them with the worker's replayer
   (rulesets are cached per worker process and reused), and returns only a small summary:
   validate's output lines and counts, review's hand reviews, export's row counts. An export's
   task writes its Parquet parts itself, partitioned by ruleset and match-id bucket, into its
   own attempt folder inside the export's build folder; the driver moves every task's parts
   into place once every task has finished and then swaps the build folder in whole
   (:func:`gamelog.outputs.owned_directory`). A task lost with its node is retried by Ray (its
   half-written attempt folder is never moved in); a run that fails leaves the earlier output
   as it was.
4. **Order.** The driver puts the summaries back in input order (file by file, hand by hand),
   with at most a few tasks a CPU in flight, so its memory stays flat however large the input.

Steps 1 and 2 (the plan, without Ray) are :mod:`analyze.shares`. See docs/scale.md.
"""

from __future__ import annotations

import logging
import os
import shutil
import uuid
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyze.shares import (
    Share,
    bucket_of,
    group_files,
    match_hashes,
    plan_shares,
)
from gamelog import files
from gamelog.errors import GamelogIOError, RecordError

ROWS_PER_FILE = 1_000_000
"""At most this many rows in one file of a partitioned export (files of bounded size)."""
SLICE_HANDS = 500
"""An export task turns its rows into Arrow every this many hands (compact until written)."""
RETRIES = 3
"""Times Ray runs a task again after its worker or node is lost."""
PARTS = ".parts"
"""The folder inside an export's build folder where each task attempt writes its parts."""


# -- the workers' side -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Job:
    """What every task of a run shares: the files (as the driver names them), the driver's
    working directory (where those names are read from), the ruleset and replay options."""

    paths: tuple[str, ...]
    cwd: str
    ruleset: str | None = None
    options: tuple[tuple[str, Any], ...] = ()


class _InDriversDirectory:
    """Read the files from the driver's working directory (restored after the task)."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd

    def __enter__(self) -> None:
        self.previous = os.getcwd()
        try:
            os.chdir(self.cwd)
        except OSError as exc:
            raise GamelogIOError(f"{self.cwd}: the driver's working directory is not on this "
                                 f"node ({exc.strerror or exc}); the input must be on storage "
                                 "every node sees, at the same path") from None

    def __exit__(self, *exc: object) -> None:
        os.chdir(self.previous)


def _share_hands(job: Job, share: Share, issues: list[RecordError]) -> Iterator[Any]:
    """The share's files read in order: ``(file index, position in the file, hand)``."""
    names = [job.paths[i] for i in share.files]
    index = {str(Path(p)): i for p, i in zip(names, share.files, strict=True)}
    position: dict[int, int] = {}
    for hand in files.read_hands(names, issues=issues):
        f = index.get(hand.source or "", share.files[0])
        pos = position.get(f, 0)
        position[f] = pos + 1
        yield f, pos, hand


def _mine(share: Share, match: str) -> bool:
    return share.shares == 1 or zlib.crc32(match.encode("utf-8", "surrogatepass")) \
        % share.shares == share.share


def _replayed(job: Job, share: Share, issues: list[RecordError]) -> Iterator[Any]:
    """``(file index, position, report)`` for the share's matches, in input order."""
    import replay

    places: deque[tuple[int, int]] = deque()

    def feed() -> Iterator[Any]:
        for f, pos, hand in _share_hands(job, share, issues):
            if _mine(share, hand.match):
                places.append((f, pos))
                yield hand

    for report in replay.validate_hands(feed(), ruleset=job.ruleset,
                                        options=dict(job.options)):
        f, pos = places.popleft()
        yield f, pos, report


def _issue_texts(share: Share, issues: list[RecordError]) -> list[tuple[str, str]]:
    """The reader's problems of a share's files as (kind, text); only the first share of a
    group sends them (every share reads the same files)."""
    from gamelog.reader import RecordWarning

    if share.share:
        return []
    return [("warning" if isinstance(i, RecordWarning) else "error", str(i)) for i in issues]


def validate_task(job: Job, share: Share, tally: Callable[..., str | None]
                  ) -> tuple[list[tuple[int, int, str]], dict[str, int], list[tuple[str, str]],
                             list[tuple[str, str]]]:
    """A worker: replay a share; ``tally(report, counts, found)`` counts each report and
    renders it. Returns the rendered lines ``(file, position, line)``, the counts, the problems
    ``tally`` found, and the reader's problems."""
    from collections import defaultdict

    issues: list[RecordError] = []
    counts: dict[str, int] = defaultdict(int)
    found: list[tuple[str, str]] = []
    lines: list[tuple[int, int, str]] = []
    with _InDriversDirectory(job.cwd):
        for f, pos, report in _replayed(job, share, issues):
            line = tally(report, counts, found)
            if line is not None:
                lines.append((f, pos, line))
    return lines, dict(counts), found, _issue_texts(share, issues)


def export_task(job: Job, share: Share, task: int, build: str
                ) -> tuple[str, dict[str, int], list[tuple[str, str]], list[tuple[str, str]], int]:
    """A worker: replay a share and write its export rows as Parquet parts under
    ``build/.parts/ATTEMPT/`` (partitioned by ruleset and bucket). Returns the attempt folder's
    name, the rows per table, the rulesets' problems, the reader's problems and the hands."""
    import replay
    from analyze.metrics import Collector

    attempt = f"{task:06d}-{uuid.uuid4().hex[:8]}"
    folder = Path(build) / PARTS / attempt
    issues: list[RecordError] = []
    problems: list[tuple[str, str]] = []
    counts: dict[str, int] = {}
    rulesets: dict[str, str] = {}
    hands = 0
    pending: dict[str, list[Any]] = {}
    with _InDriversDirectory(job.cwd):
        collector = Collector()

        def drain() -> None:  # rows kept as Arrow (compact) until the share is done
            for name, frame in collector.drain().items():
                pending.setdefault(name, []).append(frame.to_arrow())

        for _f, _pos, report in _replayed(job, share, issues):
            hands += 1
            bad = [i for i in report.record_issues if isinstance(i, replay.RulesetProblem)]
            problems.extend(("error", str(i)) for i in bad)
            if not bad:
                collector.add(report)
            if collector.pending_hands >= SLICE_HANDS:
                drain()
        drain()
    import pyarrow as pa

    tables = {name: pa.concat_tables(parts) for name, parts in pending.items()}
    # one part per table and partition for the whole share
    write_piece(tables, folder, f"part-{task:06d}", rulesets, counts)
    return attempt, counts, problems, _issue_texts(share, issues), hands


def review_task(job: Job, share: Share, budget: Any, keep: Callable[[Any], bool] | None,
                describe: Callable[[Any], Any] | None = None
                ) -> tuple[list[tuple[int, int, Any]], list[tuple[str, str]], int]:
    """A worker: review the hands of a share (every ``shares``-th hand ``keep`` accepts; every
    hand is still replayed for its context). Returns ``(file, position, (review,
    describe(hand)))`` per reviewed hand, the reader's problems and the hands read."""
    from replay.review import review_hands

    issues: list[RecordError] = []
    places: dict[int, tuple[int, int]] = {}
    kept: deque[tuple[int, int, Any]] = deque()
    chosen = [0]
    read = [0]

    def mine(hand: Any) -> bool:
        read[0] += 1
        f, pos = places.pop(id(hand))
        if keep is not None and not keep(hand):
            return False
        chosen[0] += 1
        if (chosen[0] - 1) % share.shares != share.share:
            return False
        kept.append((f, pos, hand))
        return True

    def feed() -> Iterator[Any]:
        for f, pos, hand in _share_hands(job, share, issues):
            places[id(hand)] = (f, pos)
            yield hand

    out: list[tuple[int, int, Any]] = []
    with _InDriversDirectory(job.cwd):
        for review in review_hands(feed(), ruleset=job.ruleset, budget=budget, keep=mine):
            f, pos, hand = kept.popleft()
            out.append((f, pos, (review, describe(hand) if describe is not None else None)))
    return out, _issue_texts(share, issues), read[0] if share.share == 0 else 0


def export_review_task(job: Job, share: Share, task: int, build: str, budget: Any
                       ) -> tuple[str, dict[str, int], list[tuple[str, str]], int]:
    """A worker: review a share's hands (as :func:`review_task`) and write their
    ``decisions``, ``bids`` and ``declarations`` rows as parts under ``build/.parts/ATTEMPT/``.
    Returns the attempt folder's name, the rows per table, the reader's problems and the hands
    reviewed."""
    from analyze.decisions import decision_slices

    attempt = f"r{task:06d}-{uuid.uuid4().hex[:8]}"
    folder = Path(build) / PARTS / attempt
    rulesets: dict[str, str] = {}

    def ruleset_of(hand: Any) -> None:
        if hand.header is not None:
            rulesets[hand.match] = hand.header.ruleset
        return None

    results, problems, _read = review_task(job, share, budget, None, ruleset_of)
    counts: dict[str, int] = {}
    for k, tables in enumerate(decision_slices(review for _f, _p, (review, _) in results)):
        write_piece({name: frame.to_arrow() for name, frame in tables.items()}, folder,
                    f"part-r{task:06d}-{k:05d}", rulesets, counts)
    return attempt, counts, problems, len(results)


def match_hashes_task(job: Job, index: int) -> list[int]:
    """A worker: the match hashes of one file of the run."""
    with _InDriversDirectory(job.cwd):
        return match_hashes(job.paths[index])


# -- the driver's side -----------------------------------------------------------------------------

def _started(address: str | None, jobs: int) -> bool:
    """Connect to the cluster at ``address`` (or ``RAY_ADDRESS``), or start a local Ray for the
    run; ``True`` when this call started it (and must shut it down)."""
    import ray

    if ray.is_initialized():
        return False
    for name in ("ray", "ray._private"):
        logging.getLogger(name).setLevel(logging.ERROR)
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")  # no C++ chatter on stderr
    address = address or os.environ.get("RAY_ADDRESS") or None
    kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.ERROR,
                              "log_to_driver": False, "configure_logging": False}
    if address is None:  # a Ray of our own, even when another runs on this machine
        address = "local"
        kwargs["num_cpus"] = jobs
    else:
        reachable(address)
    with _quiet_stderr():  # Ray's core logs a line or two at start-up, whatever the level
        ray.init(address=address, **kwargs)
    return True


class _quiet_stderr:
    """Standard error (the file descriptor, which Ray's C++ core writes to) sent to
    /dev/null for the duration."""

    def __enter__(self) -> None:
        import sys

        sys.stderr.flush()
        self.saved = os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)

    def __exit__(self, *exc: object) -> None:
        os.dup2(self.saved, 2)
        os.close(self.saved)


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


class Cluster:
    """A run on Ray: connects (or starts a local Ray) on entry, disconnects on exit; plans the
    run's tasks and runs them with a bounded number in flight, results in task order."""

    def __init__(self, paths: Iterable[str | os.PathLike[str]], *, address: str | None = None,
                 jobs: int = 2, ruleset: str | None = None,
                 options: dict[str, Any] | None = None) -> None:
        names = tuple(str(p) for p in files.record_files(list(paths)))
        self.job = Job(names, os.getcwd(), ruleset, tuple(sorted((options or {}).items())))
        self.address = address
        self.jobs = jobs
        self.started = False

    def __enter__(self) -> Cluster:
        self.started = _started(self.address, self.jobs)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.started:
            import ray

            ray.shutdown()

    @property
    def workers(self) -> int:
        import ray

        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def shares(self, per_hand: bool = False) -> list[Share]:
        """The run's tasks: groups of files that share a match (read on the nodes), cut into
        shares."""
        paths = self.job.paths
        if not paths:
            return []
        hashes = list(self.run(match_hashes_task, [(self.job, i) for i in range(len(paths))]))
        sizes = []
        for p in paths:
            try:
                sizes.append(os.path.getsize(p))
            except OSError:
                sizes.append(0)
        return plan_shares(group_files(hashes), sizes, self.workers, per_hand=per_hand)

    def run(self, fn: Callable[..., Any], tasks: Iterable[tuple[Any, ...]]) -> Iterator[Any]:
        """``fn(*task)`` for every task on the cluster, results in the tasks' order, at most
        three tasks a CPU in flight (lost workers' tasks retried by Ray)."""
        import ray

        remote = ray.remote(num_cpus=1, max_retries=RETRIES)(fn)
        window = 3 * self.workers
        pending: deque[Any] = deque()
        for task in tasks:
            pending.append(remote.remote(*task))
            if len(pending) >= window:
                yield _result(pending.popleft())
        while pending:
            yield _result(pending.popleft())


def _result(ref: Any) -> Any:
    """A task's result; an exception the task raised comes back as itself (its one-line
    message), not wrapped in Ray's task error with the remote traceback in its text."""
    import ray

    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        cause = unwrap_task_error(exc)
        if cause is exc:
            raise
        raise cause from None


def unwrap_task_error(exc: BaseException) -> BaseException:
    """The exception a Ray task raised, from the task error that wraps it (``cause``); the
    error itself when it wraps none (a lost worker, say)."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


def in_file_order(shares: list[Share], results: Iterable[Any],
                  items: Callable[[Any], Iterable[tuple[int, int, Any]]]
                  ) -> Iterator[tuple[Any, list[Any]]]:
    """Each task's result (in task order) with the items ``(file, position, value)`` that can
    now be given in input order: a file's items once every share that reads it is done, and
    only after every earlier file's (a group's files may be apart, a match split across
    distant files, and then wait for the files between them)."""
    owner = {f: share.files for share in shares for f in share.files}
    left = {share.files: share.shares for share in shares}
    by_file: dict[int, list[tuple[int, Any]]] = {}
    ready: set[int] = set()
    after = 0  # the first file not yet given
    last = max(owner, default=-1)
    for share, result in zip(shares, results, strict=True):
        for f, pos, value in items(result):
            by_file.setdefault(f, []).append((pos, value))
        left[share.files] -= 1
        if not left[share.files]:
            ready.update(share.files)
        out: list[Any] = []
        while after <= last and (after in ready or after not in owner):
            out.extend(value for _pos, value in sorted(by_file.pop(after, []),
                                                      key=lambda item: item[0]))
            after += 1
        yield result, out


def validate_on_ray(paths: Iterable[str | os.PathLike[str]], tally: Callable[..., str | None],
                    *, address: str | None = None, jobs: int = 2, ruleset: str | None = None,
                    options: dict[str, Any] | None = None
                    ) -> Iterator[tuple[list[str], dict[str, int], list[tuple[str, str]],
                                        list[tuple[str, str]]]]:
    """Validate on the cluster: per task, in input order, the lines ``tally`` rendered (see
    :func:`validate_task`), the counts, the problems ``tally`` found and the reader's
    problems."""
    with Cluster(paths, address=address, jobs=jobs, ruleset=ruleset, options=options) as run:
        shares = run.shares()
        results = run.run(validate_task, [(run.job, s, tally) for s in shares])
        for (_lines, counts, found, read), lines in in_file_order(
                shares, results, lambda r: r[0]):
            yield lines, counts, found, read


def review_on_ray(paths: Iterable[str | os.PathLike[str]], *, budget: Any,
                  keep: Callable[[Any], bool] | None,
                  describe: Callable[[Any], Any] | None = None,
                  address: str | None = None, jobs: int = 2, ruleset: str | None = None
                  ) -> Iterator[tuple[list[tuple[Any, Any]], list[tuple[str, str]], int]]:
    """Review on the cluster: per task, in input order, ``(review, describe(hand))`` of the
    hands reviewed, the reader's problems, and the hands read (of the task's share)."""
    with Cluster(paths, address=address, jobs=jobs, ruleset=ruleset) as run:
        shares = run.shares(per_hand=True)
        results = run.run(review_task, [(run.job, s, budget, keep, describe) for s in shares])
        for (_out, found, read), reviews in in_file_order(shares, results, lambda r: r[0]):
            yield reviews, found, read


def export_on_ray(paths: Iterable[str | os.PathLike[str]], directory: str | os.PathLike[str],
                  *, address: str | None = None, jobs: int = 2, ruleset: str | None = None,
                  review: Any = None, progress: Callable[[int], None] | None = None
                  ) -> tuple[list[tuple[Path, int]], list[tuple[str, str]]]:
    """Export on the cluster: every task writes its parts (with ``review``, a budget, the
    review's tasks their ``decisions``, ``bids`` and ``declarations`` parts too), then the
    driver moves them into place and swaps the new export in whole. Returns (table directory,
    rows) per table and the problems found (the rulesets' and the reader's)."""
    from gamelog.outputs import owned_directory

    out = Path(os.path.abspath(directory))
    counts: dict[str, int] = {}
    problems: list[tuple[str, str]] = []
    attempts: list[str] = []

    def tally(attempt: str, rows: dict[str, int], found: list[tuple[str, str]],
              hands: int) -> None:
        attempts.append(attempt)
        for name, n in rows.items():
            counts[name] = counts.get(name, 0) + n
        problems.extend(found)
        if progress is not None:
            progress(hands)

    with Cluster(paths, address=address, jobs=jobs, ruleset=ruleset) as run, \
            owned_directory(out, "export") as build:
        shares = run.shares()
        for attempt, rows, found, read, hands in run.run(
                export_task, [(run.job, s, k, str(build)) for k, s in enumerate(shares)]):
            tally(attempt, rows, found + read, hands)
        if review is not None:
            for attempt, rows, _read, hands in run.run(
                    export_review_task, [(run.job, s, k, str(build), review)
                                         for k, s in enumerate(run.shares(per_hand=True))]):
                tally(attempt, rows, [], hands)  # the reader's problems: told once, above
        _move_parts(build, attempts)
    return [(out / name, rows) for name, rows in sorted(counts.items())], problems


def _move_parts(build: Path, attempts: list[str]) -> None:
    """Every finished attempt's parts moved from ``build/.parts/ATTEMPT/`` to their place in
    ``build``; the folder of attempts (a lost task's half-written one too) then removed."""
    parts = build / PARTS
    for attempt in attempts:
        root = parts / attempt
        for folder, _dirs, names in os.walk(root):
            target = build / Path(folder).relative_to(root)
            target.mkdir(parents=True, exist_ok=True)
            for name in names:
                os.replace(Path(folder) / name, target / name)
    shutil.rmtree(parts, ignore_errors=True)


# -- partitioned Parquet ---------------------------------------------------------------------------

def write_piece(tables: dict[str, Any], directory: Path, basename: str,
                rulesets: dict[str, str], counts: dict[str, int]) -> None:
    """Write one slice of tables under ``directory/NAME/ruleset=R/bucket=B/BASENAME-I.parquet``
    (hive partitioning, the partition values from each row's match: its ruleset learned from
    the ``matches`` rows seen so far, in ``rulesets``); rows counted in ``counts``."""
    import pyarrow as pa
    import pyarrow.dataset as pads

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
        pads.write_dataset(table, directory / name, format="parquet",
                           partitioning=["ruleset", "bucket"], partitioning_flavor="hive",
                           existing_data_behavior="overwrite_or_ignore",
                           basename_template=f"{basename}-{{i}}.parquet",
                           max_rows_per_file=ROWS_PER_FILE,
                           max_rows_per_group=min(ROWS_PER_FILE, 100_000))
        counts[name] += table.num_rows


def write_partitioned(pieces: Iterable[dict[str, Any]], directory: Path
                      ) -> list[tuple[Path, int]]:
    """Each table under ``directory/NAME/ruleset=R/bucket=B/part-K-I.parquet`` (see
    :func:`write_piece`), piece by piece (so only one piece is in memory), replacing an
    earlier export whole (``export --partitioned`` on one machine)."""
    from gamelog.outputs import owned_directory

    counts: dict[str, int] = {}
    rulesets: dict[str, str] = {}
    with owned_directory(directory, "export") as build:
        for k, tables in enumerate(pieces):
            write_piece(tables, build, f"part-{k}", rulesets, counts)
    return [(directory / name, rows) for name, rows in counts.items()]
