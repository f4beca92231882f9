"""Benchmark: is one simulator agent stronger than another? Duplicate play (as bridge clubs score
it): each deal is played twice, the agent under test (``--agent``: the simulator's, or the
heuristic agent alone) in seats 0 and 2 and then in seats 1 and 3, the other agent in the other
seats; the first hand of a match only, so both plays of a deal have the same deal, declarer and
kitty. Prints the points a hand the agent's side gains over the other agent's in the same seats
(half the difference of the two plays' side scores: the defenders' points, counted against the
declarer's side), and the levels, with their standard errors.
Independent of the review: nothing here is valued by rollouts.

    python bench/agent_duel.py --decks 1 --deals 3000
    python bench/agent_duel.py --against heuristic --decks 2 --deals 800   # the lookahead's gain
    git show HEAD~1:replay/agents.py > /tmp/old_agents.py
    python bench/agent_duel.py --agent heuristic --against /tmp/old_agents.py --decks 2 --deals 1500
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import replay  # noqa: E402
from bench.duplicate import first_hand, side_points  # noqa: E402
from gamelog.model import Result  # noqa: E402
from replay.agents import HeuristicAgent, RandomAgent  # noqa: E402
from replay.lookahead import LookaheadAgent  # noqa: E402

NAMED = {"simulator": LookaheadAgent, "heuristic": HeuristicAgent, "random": RandomAgent}


def _agent_from(path: str) -> type:
    """An agent by name (``NAMED``), or the ``HeuristicAgent`` of an agents module given as a
    file (an earlier version, say)."""
    if path in NAMED:
        return NAMED[path]
    spec = importlib.util.spec_from_file_location("other_agents", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"agent_duel: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["other_agents"] = module
    spec.loader.exec_module(module)
    return module.HeuristicAgent


def _side_scores(rules, deals: int, even: type, odd: type, leg: str  # type: ignore[no-untyped-def]
                 ) -> list[tuple[int, int]]:
    """Per deal: seats 0 and 2's points (+ as defenders, - as the declarer's side) and their
    levels gained less the other side's; a count of the deals played on a terminal."""
    out = []
    for deal in range(deals):
        if sys.stderr.isatty() and deal % 100 == 0:
            print(f"\r  {leg}: {deal} of {deals} deals", end="", file=sys.stderr, flush=True)
        hand = first_hand(rules, f"duel-{deal}", deal,
                          lambda s, rng: even(rng) if s % 2 == 0 else odd(rng))
        result = next(e for e in reversed(hand.events) if isinstance(e, Result))
        change = result.level_change or [0, 0]
        out.append((side_points(hand, 0), change[0] - change[1]))
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--agent", choices=("simulator", "heuristic"), default="simulator",
                    help="the agent under test: the simulator's (replay.lookahead."
                         "LookaheadAgent) or the heuristic agent alone")
    ap.add_argument("--against", metavar="NAME|FILE", default="random",
                    help="simulator, heuristic, random, or an agents module whose "
                         "HeuristicAgent to play against (default: random)")
    ap.add_argument("--decks", type=int, default=1)
    ap.add_argument("--deals", type=int, default=2000)
    args = ap.parse_args()
    mine, other = NAMED[args.agent], _agent_from(args.against)
    rules = replay.get_ruleset("tractor", players=4, decks=args.decks)
    first = _side_scores(rules, args.deals, mine, other, "seats 0 and 2")
    second = _side_scores(rules, args.deals, other, mine, "seats 1 and 3")
    points = [(a[0] - b[0]) / 2 for a, b in zip(first, second, strict=True)]
    levels = [(a[1] - b[1]) / 2 for a, b in zip(first, second, strict=True)]

    def shown(xs: list[float]) -> str:
        return f"{statistics.mean(xs):+.2f} ± {statistics.stdev(xs) / len(xs) ** 0.5:.2f}"

    print(f"tractor, {args.decks} deck(s), {args.deals} deals played both ways: "
          f"the {args.agent} agent against {args.against} gains "
          f"{shown(points)} points and {shown(levels)} levels a hand")


if __name__ == "__main__":
    main()
