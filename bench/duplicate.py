"""What the benchmarks that play a deal twice share (``agent_duel``, ``marks_pay``,
``plant_cost``): a deal's first hand among given agents, a side's final points in it, and a
run over many deals on one core or several, with progress on a terminal."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from multiprocessing import Pool
from typing import Any, TypeVar

import gamelog
from gamelog.model import Hand, KittyTake, Result
from replay.simulate import simulate_match

T = TypeVar("T")


def first_hand(rules: Any, match: str, deal: int,
               agents: Callable[[int, random.Random], Any]) -> Hand:
    """The first hand of the match ``match`` simulated from the seed ``deal`` with ``agents``
    (by seat), read back as a recorded hand."""
    events = simulate_match(rules, match, deal, hands=1, agents=agents)
    return gamelog.loads(gamelog.dumps(events))[0].hands[0]


def side_points(hand: Hand, seat: int) -> int:
    """The final points of ``seat``'s side (seats of its parity): the defenders' points, counted
    for the defenders and against the declarer's side."""
    result = next(e for e in reversed(hand.events) if isinstance(e, Result))
    declarer = next(e.seat for e in hand.events if isinstance(e, KittyTake))
    return (-1 if declarer % 2 == seat % 2 else 1) * (result.defender_points or 0)


def over_deals(work: Callable[[int], T], deals: Iterable[int], total: int, jobs: int,
               start: Callable[[dict], None], settings: dict, what: str = "deals",
               note: Callable[[], str] | None = None) -> Iterator[T]:
    """``work(deal)`` for each deal, in order, on ``jobs`` processes (each set up by
    ``start(settings)``) or in this one; a count of the deals done on a terminal (``note``:
    more to show beside it), none in a pipe."""
    started = time.perf_counter()

    def shown(done: int) -> None:
        if sys.stderr.isatty():  # progress on a terminal, quiet in a pipe
            extra = f", {note()}" if note is not None else ""
            print(f"\r  {done} of {total} {what} ({time.perf_counter() - started:.0f} s{extra})",
                  end="", file=sys.stderr, flush=True)

    if jobs > 1:
        with Pool(jobs, initializer=start, initargs=(settings,)) as pool:
            for done, row in enumerate(pool.imap(work, deals), 1):
                yield row
                shown(done)
    else:
        start(settings)
        for done, deal in enumerate(deals, 1):
            yield work(deal)
            shown(done)
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)
