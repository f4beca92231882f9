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
from gamelog.gcpause import gc_paused
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

    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_start_context())
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
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
        raise
    else:
        pool.shutdown()


def _start_context() -> Any:
    """Workers start from a fresh server process (forkserver), not a fork of this one: a fork
    of a process whose polars or Arrow thread pools are running can deadlock in the child."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


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


def replay_after_warmup(hands: Iterable[Hand], reported: Callable[[int, Hand], bool],
                        ruleset: str | None, options: dict[str, Any],
                        start: Context | None = None,
                        on_report: Callable[[HandReport], None] | None = None
                        ) -> tuple[list[HandReport], Context | None, Context | None]:
    """Replay ``hands``; those before the first one ``reported(index, hand)`` accepts only
    warm up the context of a match the batch continues, and are not returned. With
    ``start``, the first returned hand starts from that context instead. Returns the reports,
    the context the first returned hand started from (when warm-up hands of its match came
    before it) and the context of the last match at the end. With ``on_report``, each report
    is handed to it as it comes and not kept (the returned list is then empty)."""
    from replay import validate_hands

    contexts: OrderedDict = OrderedDict()
    at_start: list[Context] = []
    first: list[int] = []

    def feed() -> Iterator[Hand]:
        for i, hand in enumerate(hands):
            if not first and reported(i, hand):
                first.append(i)
                key = (hand.source, hand.match)
                if start is not None and start[0] == key:
                    contexts[key] = copy.deepcopy(start[1])
                if key in contexts:
                    at_start.append((key, copy.deepcopy(contexts[key])))
            yield hand

    out: list[HandReport] = []
    last_key = None
    # The collector paused for the whole batch: its lines and events, held for the batch, would
    # otherwise be rescanned at every collection (the replay makes no lasting cycles).
    with gc_paused():
        for i, report in enumerate(validate_hands(feed(), ruleset=ruleset, options=options,
                                                  contexts=contexts)):
            if not first or i < first[0]:
                continue  # warm-up only
            if report.record is not None:
                last_key = (report.record.source, report.match)
            if on_report is not None:
                on_report(report)
            else:
                out.append(report)
    end = (last_key, copy.deepcopy(contexts[last_key])) if last_key in contexts else None
    return out, (at_start[0] if at_start else None), end


def checked_in_order(results: Iterator[tuple[tuple[Any, ...], Any]],
                     rerun: Callable[..., Any], *, with_tasks: bool = False) -> Iterator[Any]:
    """Results of batches (``(task, (payload, start, end))``, from :func:`in_order` with
    ``keep_tasks``), each batch that continued a match checked against the context the
    previous batch ended with, and run again from it (``rerun(*task, start=...)``) if its
    warm-up did not reach the same context. Yields the payloads (``(task, payload)`` with
    ``with_tasks``)."""
    previous_end: Context | None = None
    for task, result in results:
        payload, start, end = result[:-2], result[-2], result[-1]
        if start is not None and previous_end is not None and start[0] == previous_end[0] \
                and start[1] != previous_end[1]:
            rerun_result = rerun(*task, start=previous_end)
            payload, end = rerun_result[:-2], rerun_result[-1]
        previous_end = end
        out = payload[0] if len(payload) == 1 else payload
        yield (task, out) if with_tasks else out


def _replay_batch(packed: bytes, first: int, ruleset: str | None, options: dict[str, Any],
                  start: Context | None = None
                  ) -> tuple[list[HandReport], Context | None, Context | None]:
    """A worker: replay the hands of ``packed``, the first ``first`` only as warm-up. The
    reports go back without their records (the parent sent the hands and puts them back):
    pickling every event back would cost more than the replay."""
    reports, at_start, end = replay_after_warmup(files.unpack_hands(packed),
                                                 lambda i, _h: i >= first, ruleset, options,
                                                 start)
    for report in reports:
        report.record = None
    return reports, at_start, end


def _with_records(reports: list[HandReport], packed: bytes, first: int) -> list[HandReport]:
    """The batch's reports with their hands put back (one report per hand after the
    warm-up, in order)."""
    hands = files.unpack_hands(packed)[first:]
    if len(hands) == len(reports):
        for report, hand in zip(reports, hands, strict=True):
            if (hand.match, hand.number) == (report.match, report.hand):
                report.record = hand
    return reports


def replay_in_processes(hands: Iterable[Hand], jobs: int, *, ruleset: str | None = None,
                        options: dict[str, Any] | None = None, batch_hands: int = 200,
                        warm_hands: int = 8) -> Iterator[HandReport]:
    """Every hand's report, in input order, replayed in ``jobs`` processes: identical to
    :func:`replay.validate_hands` in one (see the module's docstring)."""
    tasks = ((packed, warm, ruleset, options or {})
             for packed, warm in hand_batches(hands, batch_hands, warm_hands))
    with terminate_on_sigterm():
        for task, reports in checked_in_order(
                in_order(jobs, _replay_batch, tasks, keep_tasks=True), _replay_batch,
                with_tasks=True):
            yield from _with_records(reports, task[0], task[1])


def hand_batches(hands: Iterable[Hand], batch_hands: int = 200, warm_hands: int = 8
                 ) -> Iterator[tuple[bytes, int]]:
    """Hands packed in batches cut at hand boundaries: ``(packed, warm)``, where the first
    ``warm`` hands are the last hands of a match the batch continues (context only)."""
    batch: list[Hand] = []
    warm = 0
    for hand in hands:
        if len(batch) - warm >= batch_hands:
            yield files.pack_hands(batch), warm
            same = [h for h in batch[-warm_hands:] if h.match == hand.match
                    and h.source == hand.source]
            batch, warm = same, len(same)
        batch.append(hand)
    if len(batch) > warm:
        yield files.pack_hands(batch), warm
