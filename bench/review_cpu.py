"""Benchmark: CPU seconds of reviewing a few sample hands at the default budget, one core.

    python bench/review_cpu.py            # tractor-1deck hands 1-2, tractor-2deck hand 1
    python bench/review_cpu.py --out marks.json
    python bench/review_cpu.py --sample tractor-2deck --hands 1-2 --out after.json
    python bench/review_cpu.py --sample tractor-2deck --at 2:18,2:4,1:5 --set deep_cards=5

Prints whether the engine runs compiled, then per sample the CPU seconds and decisions; with
``--out`` writes every decision's mark, swing and best play, so that two builds (compiled or
not, before or after a change) can be shown to give the same review (``cmp`` the files).
``--at HAND:CARDS,...`` reviews only, for each pair, the first play of that hand made where a
seat holds at most CARDS cards (each alone, ``review_decision``): a few decisions to count
instructions on (valgrind's callgrind) when a whole hand takes too long there. ``--set
FIELD=VALUE``: a budget field (as ``bench/review_stability.py``'s).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gamelog  # noqa: E402
import replay  # noqa: E402
from bench.json_out import check_json_out, write_json  # noqa: E402
from bench.review_stability import budget_fields  # noqa: E402
from gamelog.model import Play  # noqa: E402
from replay._native import greedy_build  # noqa: E402
from replay.review import Budget, positions, review_decision, review_hands  # noqa: E402
from replay.rollouts import most_held  # noqa: E402

CASES = (("tractor-1deck", {1, 2}), ("tractor-2deck", {1}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, help="write the marks here (JSON)")
    ap.add_argument("--sample", help="one sample match file's name instead of the default cases")
    ap.add_argument("--hands", default="1-2", help="its hands, N-M (with --sample; default 1-2)")
    ap.add_argument("--at", help="HAND:CARDS,... (with --sample): only these decisions")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="a budget field, as FIELD=VALUE (repeatable)")
    args = ap.parse_args()
    check_json_out(args.out)  # refused before the work, not after it
    try:
        budget = Budget(**budget_fields(args.set))
    except ValueError as err:
        ap.error(str(err))
    if args.at:
        if not args.sample:
            ap.error("--at needs --sample")
        try:
            wanted = [(int(h), int(c)) for h, c in (pair.split(":") for pair in args.at.split(","))]
        except ValueError:
            ap.error(f"--at {args.at}: give HAND:CARDS pairs, comma-separated (as 2:18,1:5)")
        at_decisions(args.sample, wanted, budget, args.out)
        return
    first, last = (int(x) for x in args.hands.split("-"))
    cases = ((args.sample, set(range(first, last + 1))),) if args.sample else CASES
    print(f"compiled engine: {'yes' if replay.NATIVE else 'no'}; C core: {greedy_build()}")
    marks = []
    for name, numbers in cases:
        path = ROOT / "samples" / "matches" / f"{name}.jsonl"
        t0 = time.process_time()
        reviews = list(review_hands(gamelog.read_hands(path), budget=budget,
                                    keep=lambda h, chosen=numbers: h.number in chosen))
        spent = time.process_time() - t0
        decisions = sum(len(r.decisions) for r in reviews)
        print(f"{name:<15} hands {sorted(numbers)}  {spent:6.1f} s CPU  {decisions} decisions")
        marks.append([[d.mark, round(d.swing, 3), d.best, d.alternatives] for r in reviews
                      for d in r.decisions])
    if args.out:
        write_json(args.out, marks)


def at_decisions(sample: str, wanted: list[tuple[int, int]], budget: Budget,
                 out: Path | None) -> None:
    """``--at``: each chosen decision reviewed alone; CPU and marks as for whole hands."""
    path = ROOT / "samples" / "matches" / f"{sample}.jsonl"
    found = {}
    spent = 0.0
    for hand, state, ev in positions(gamelog.read_hands(path),
                                     keep=lambda h: any(h.number == w for w, _ in wanted)):
        held = most_held(state) if state.order is not None else -1
        if isinstance(ev, Play) and (hand.number, held) in wanted \
                and (hand.number, held) not in found:
            t0 = time.process_time()
            d = review_decision(state, ev, budget=budget)
            spent += time.process_time() - t0
            if d is not None:
                found[(hand.number, held)] = [d.mark, round(d.swing, 3), d.best, d.alternatives]
                if sys.stderr.isatty():  # progress on a terminal, quiet in a pipe
                    print(f"  {len(found)} of {len(wanted)} decisions: {spent:.1f} s",
                          file=sys.stderr, flush=True)
    print(f"{sample:<15} decisions {len(found)} of {len(wanted)}  {spent:6.1f} s CPU")
    if out:
        write_json(out, [found.get(w) for w in wanted])


if __name__ == "__main__":
    main()
