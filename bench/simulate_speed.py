"""Benchmark: the simulator's CPU seconds a hand, per ruleset, with the simulator's agent
(the heuristic agent, its plays checked on sampled deals and looking ahead in the last eight
tricks: replay.lookahead) and with the
heuristic agent alone (``shengji simulate --agent heuristic``).

    python bench/simulate_speed.py               # 6 hands of one match per ruleset
    python bench/simulate_speed.py --hands 12
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import replay  # noqa: E402
from replay.simulate import AGENTS, simulate  # noqa: E402

VARIANTS = [("tractor", {"decks": 1}), ("tractor", {"decks": 2}), ("tractor", {"decks": 3}),
            ("four-deck", {}), ("biaofen", {"players": 3}), ("biaofen", {"players": 4}),
            ("wanfen", {})]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=6)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    print(f"{'ruleset':<22} " + " ".join(f"{name + ' s/hand':>18}" for name in AGENTS))
    for name, options in VARIANTS:
        rules = replay.get_ruleset(name, **options)
        cells = []
        for agents in AGENTS.values():
            started = time.process_time()
            list(simulate(rules, matches=1, seed=args.seed, hands=args.hands, agents=agents))
            cells.append(f"{(time.process_time() - started) / args.hands:18.3f}")
        label = f"{name} {' '.join(f'{k}={v}' for k, v in options.items())}".strip()
        print(f"{label:<22} " + " ".join(cells), flush=True)


if __name__ == "__main__":
    main()
