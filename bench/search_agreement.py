"""Benchmark: the exact search against a brute force that shares nothing with it (issue 23:
"the exact search agrees with an independent brute force ... on thousands of random small
positions, throws of 3+ units included, at one, two and three decks").

Random small positions of four-seat tractor (one to three cards a seat; every second one
three cards a seat, the leader's three of one plain suit, so that throws of three units come
up), each solved by the review's exact search (``replay.search.solve``)
and by plain minimax over every play the engine itself accepts
(``tests/test_review.py``'s ``_independent_value``: each sub-multiset of the holding,
applied and kept where the engine logs no violation; no part of ``replay.legal`` or the
search's move generator). The positions are those of
``test_the_search_agrees_with_an_independent_brute_force_throws_included`` (the same
generators), drawn from a seed printed at the start (fresh unless ``--seed``). Printed per
pack: positions, those whose leader may throw three units or more, disagreements (each
printed with its position's number), seconds.

    python bench/search_agreement.py                     # 2,000 positions a pack, 1-3 decks
    python bench/search_agreement.py --positions 300 --decks 2 --seed 5
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from replay.parallel import in_order, terminate_on_sigterm  # noqa: E402
from replay.search import solve  # noqa: E402
from replay.units import decompose  # noqa: E402
from tests.test_review import (  # noqa: E402
    _independent_moves,
    _independent_value,
    _throw_position,
    small_position,
)


def check(seed: int, decks: int, first: int, count: int) -> tuple[int, int, list[int]]:
    """Positions ``first`` .. ``first + count - 1`` of the pack's stream: (positions, those
    with a throw of three units or more among the plays the engine accepts from the leader,
    the disagreeing ones)."""
    throws, wrong = 0, []
    for i in range(first, first + count):
        rng = random.Random(f"agreement:{seed}:{decks}:{i}")
        if i % 2:
            state = _throw_position(rng, decks, cards=3)
        else:
            state = small_position(rng, "tractor", 4, decks, cards=1 + (i // 2) % 3)
        order = state.order
        throws += any(len(decompose(m, order)) >= 3 for m in _independent_moves(state, state.leader))
        if solve(state) != _independent_value(state):
            wrong.append(i)
    return count, throws, wrong


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=2000, help="positions a pack")
    ap.add_argument("--decks", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--seed", type=int, help="the positions' seed (default: drawn fresh)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    if args.positions < 1 or args.jobs < 1:
        ap.error("--positions and --jobs must be at least 1")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**7)
    print(f"seed {seed}; {args.positions} positions a pack", flush=True)
    chunk = 50
    for decks in args.decks:
        started = time.perf_counter()
        tasks = [(seed, decks, first, min(chunk, args.positions - first))
                 for first in range(0, args.positions, chunk)]
        done = throws = 0
        wrong: list[int] = []
        with terminate_on_sigterm():
            results = in_order(args.jobs, check, tasks) if args.jobs > 1 \
                else (check(*t) for t in tasks)
            for n, t, w in results:
                done, throws, wrong = done + n, throws + t, wrong + w
                if sys.stderr.isatty():  # progress on a terminal, quiet in a pipe
                    print(f"  {decks} decks: {done} of {args.positions}", file=sys.stderr,
                          end="\r", flush=True)
        print(f"{decks} deck{'s' if decks > 1 else ''}: {done} positions, {throws} with a "
              f"throw of 3+ units among the leader's legal plays; disagreements {len(wrong)}"
              + (f" (positions {', '.join(map(str, wrong))})" if wrong else "")
              + f"; {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
