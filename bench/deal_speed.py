"""Benchmark: what one determinized deal costs, with the seat's knowledge read per deal and
read once per decision (``replay.deals.knowledge``, session 15).

    python bench/deal_speed.py            # two-deck sample hand 1, every tenth decision
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gamelog  # noqa: E402
import replay  # noqa: E402
from gamelog.model import Play  # noqa: E402
from replay.deals import determinize, knowledge  # noqa: E402
from replay.engine import HandReplay  # noqa: E402
from replay.search import clone, to_play  # noqa: E402


def main() -> None:
    hand = next(iter(gamelog.read_hands(ROOT / "samples" / "matches" / "tractor-2deck.jsonl")))
    state = HandReplay(replay.ruleset_for(hand.header), hand)
    spots, seen = [], 0
    for ev in hand.events:
        if isinstance(ev, Play) and to_play(state) == ev.seat and not state.log.items:
            seen += 1
            if seen % 10 == 5:
                spots.append((clone(state), ev.seat))
        state.apply(ev)
    deals = 400
    for label, shared in (("knowledge read per deal", False), ("read once a decision", True)):
        started = time.process_time()
        for st, seat in spots:
            rng = random.Random(1)
            known = knowledge(st, seat) if shared else None
            for _ in range(deals):
                determinize(st, seat, rng, known)
        spent = time.process_time() - started
        print(f"{label}: {1e3 * spent / (deals * len(spots)):.3f} ms a deal "
              f"({len(spots)} decisions x {deals} deals)", flush=True)


if __name__ == "__main__":
    main()
