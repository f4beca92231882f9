"""Replaying on several cores, with results identical to one process and in input order.

Hands go to the workers in batches cut at hand boundaries (inside a match too, so memory stays
flat however long a match is), as compact MessagePack. A hand depends on the hands before it in
its match (levels, dealer, 打万分's running scores), so a batch that continues a match carries
that match's last few hands, which its worker replays unreported to learn that context; the
parent checks that the context the batch started from equals the one the previous batch ended
with, and replays the batch again from the right context when it does not. SIGTERM and Ctrl-C
end the workers with the parent.
"""

from __future__ import annotations

import copy
import signal
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from gamelog import files
from gamelog.model import Hand
from replay.results import HandReport, MatchContext

Context = tuple[tuple[str | None, str], MatchContext]


def in_order(jobs: int, work: Callable[..., Any], tasks: Iterable[tuple[Any, ...]], *,
             keep_tasks: bool = False) -> Iterator[Any]:
    """``work(*task)`` for every task in ``jobs`` processes, results in the tasks' order, at
    most two tasks a process in flight (so memory stays flat); with ``keep_tasks``, each result
    comes as ``(task, result)``. On any exception (Ctrl-C, SIGTERM under
    :class:`terminate_on_sigterm`) the workers are ended, not left running."""
    from concurrent.futures import ProcessPoolExecutor

    def done(entry: tuple[tuple[Any, ...], Any]) -> Any:
        task, future = entry
        return (task, future.result()) if keep_tasks else future.result()

    pool = ProcessPoolExecutor(max_workers=jobs)
    try:
        pending: deque = deque()
        for task in tasks:
            pending.append((task, pool.submit(work, *task)))
            if len(pending) >= 2 * jobs:
                yield done(pending.popleft())
        while pending:
            yield done(pending.popleft())
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        raise
    else:
        pool.shutdown()


class terminate_on_sigterm:
    """SIGTERM ends the run as Ctrl-C does (a KeyboardInterrupt in the main thread), so that
    :func:`in_order` ends its workers on the way out."""

    def __enter__(self) -> None:
        self._previous: Any = signal.getsignal(signal.SIGTERM)

        def stop(_signum: int, _frame: Any) -> None:
            raise KeyboardInterrupt

        try:
            signal.signal(signal.SIGTERM, stop)
        except ValueError:  # not the main thread
            self._previous = None

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)


def _replay_batch(packed: bytes, first: int, ruleset: str | None, options: dict[str, Any],
                  start: Context | None = None
                  ) -> tuple[list[HandReport], Context | None, Context | None]:
    """A worker: replay the hands of ``packed``; the first ``first`` are warm-up hands (the
    context of a match the batch continues), replayed and not returned. With ``start``, the
    first returned hand starts from that context instead."""
    from replay import validate_hands

    hands = files.unpack_hands(packed)
    contexts: OrderedDict = OrderedDict()
    at_start: list[Context] = []

    def feed() -> Iterator[Hand]:
        for i, hand in enumerate(hands):
            if i == first:
                key = (hand.source, hand.match)
                if start is not None and start[0] == key:
                    contexts[key] = copy.deepcopy(start[1])
                if key in contexts:
                    at_start.append((key, copy.deepcopy(contexts[key])))
            yield hand

    out: list[HandReport] = []
    last_key = None
    for i, report in enumerate(validate_hands(feed(), ruleset=ruleset, options=options,
                                              contexts=contexts)):
        if i < first:
            continue
        if report.record is not None:
            last_key = (report.record.source, report.match)
        out.append(report)
    end = (last_key, copy.deepcopy(contexts[last_key])) if last_key in contexts else None
    return out, (at_start[0] if at_start else None), end


def replay_in_processes(hands: Iterable[Hand], jobs: int, *, ruleset: str | None = None,
                        options: dict[str, Any] | None = None, batch_hands: int = 200,
                        warm_hands: int = 8) -> Iterator[HandReport]:
    """Every hand's report, in input order, replayed in ``jobs`` processes: identical to
    :func:`replay.validate_hands` in one (see the module's docstring)."""
    options = options or {}

    def tasks() -> Iterator[tuple[Any, ...]]:
        batch: list[Hand] = []
        warm = 0
        for hand in hands:
            if len(batch) - warm >= batch_hands:
                yield files.pack_hands(batch), warm, ruleset, options
                same = [h for h in batch[-warm_hands:] if h.match == hand.match
                        and h.source == hand.source]
                batch, warm = same, len(same)
            batch.append(hand)
        if len(batch) > warm:
            yield files.pack_hands(batch), warm, ruleset, options

    previous_end: Context | None = None
    with terminate_on_sigterm():
        for task, (reports, start, end) in in_order(jobs, _replay_batch, tasks(),
                                                    keep_tasks=True):
            if start is not None and previous_end is not None and \
                    start[0] == previous_end[0] and start[1] != previous_end[1]:
                reports, start, end = _replay_batch(*task, start=previous_end)
            previous_end = end
            yield from reports
