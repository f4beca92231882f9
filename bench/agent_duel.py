"""Benchmark: is one simulator agent stronger than another? Duplicate play (as bridge clubs score
it): each deal is played twice, the agent under test (``--agent``: the simulator's, or the
heuristic agent alone) in seats 0 and 2 and then in seats 1 and 3, the other agent in the other
seats; the first hand of a match only, so both plays of a deal have the same deal, declarer and
kitty. Prints the points a hand the agent's side gains over the other agent's in the same seats
(half the difference of the two plays' side scores: the defenders' points, counted against the
declarer's side), and the levels, with their standard errors.
Independent of the review: nothing here is valued by rollouts.

    python bench/agent_duel.py --decks 1 --deals 3000 -j 2
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
from bench.duplicate import first_hand, over_deals, side_points  # noqa: E402
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
        print(f"agent_duel: cannot load {path}", file=sys.stderr)
        raise SystemExit(2)
    module = importlib.util.module_from_spec(spec)
    sys.modules["other_agents"] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # any error in the user's file is reported, not raised
        print(f"agent_duel: cannot load {path}: {type(exc).__name__}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    agent = getattr(module, "HeuristicAgent", None)
    if not isinstance(agent, type):
        print(f"agent_duel: {path} defines no HeuristicAgent class", file=sys.stderr)
        raise SystemExit(2)
    return agent


_settings: dict = {}
"""A worker's rules and the two agents' classes (set by :func:`_start`)."""


def _start(settings: dict) -> None:
    _settings.update(rules=settings["rules"], mine=_agent_from(settings["agent"]),
                     other=_agent_from(settings["against"]))


def _leg(deal: int, even: type, odd: type) -> tuple[int, int]:
    """Seats 0 and 2's points in the deal's first hand (+ as defenders, - as the declarer's
    side) and their levels gained less the other side's, ``even`` in those seats."""
    hand = first_hand(_settings["rules"], f"duel-{deal}", deal,
                      lambda s, rng: even(rng) if s % 2 == 0 else odd(rng))
    result = next(e for e in reversed(hand.events) if isinstance(e, Result))
    change = result.level_change or [0, 0]
    return side_points(hand, 0), change[0] - change[1]


def _deal(deal: int) -> tuple[float, float]:
    """The agent under test's gain on the deal, played both ways: (points, levels)."""
    mine, other = _settings["mine"], _settings["other"]
    first, second = _leg(deal, mine, other), _leg(deal, other, mine)
    return (first[0] - second[0]) / 2, (first[1] - second[1]) / 2


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
    ap.add_argument("-j", "--jobs", type=int, default=1, help="processes (default 1)")
    args = ap.parse_args()
    settings = {"rules": replay.get_ruleset("tractor", players=4, decks=args.decks),
                "agent": args.agent, "against": args.against}
    if args.against not in NAMED and not Path(args.against).is_file():
        ap.error(f"--against: {args.against} is neither an agent's name nor a file")
    _agent_from(args.against)  # an agents file that cannot be loaded stops here, not in a worker
    rows = list(over_deals(_deal, range(args.deals), args.deals, args.jobs, _start, settings))
    points = [p for p, _ in rows]
    levels = [lv for _, lv in rows]

    def shown(xs: list[float]) -> str:
        return f"{statistics.mean(xs):+.2f} ± {statistics.stdev(xs) / len(xs) ** 0.5:.2f}"

    print(f"tractor, {args.decks} deck(s), {args.deals} deals played both ways: "
          f"the {args.agent} agent against {args.against} gains "
          f"{shown(points)} points and {shown(levels)} levels a hand")


if __name__ == "__main__":
    main()
