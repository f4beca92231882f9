"""Benchmark: decision review (issue 17), one core.

    python bench/review_speed.py                 # all three parts
    python bench/review_speed.py --only speed    # seconds per hand per ruleset
    python bench/review_speed.py --only agreement --only weak

speed: CPU seconds per hand at each named level (quick, standard; --level) on the first hands of
each sample match (samples/matches/*.jsonl). Target: a two-deck hand under 30 s.

agreement: the same hands reviewed with the default budget and with three times the deals;
how often the two give the same mark, and the mean absolute difference of the swings.

weak: simulated matches of 16 hands (--weak-hands) in which seat 1 plays random legal plays
(replay.agents.RandomAgent) and the others the simulator's agent (--seats), over 20 match seeds drawn fresh
(printed; --seed to give them): each seat's mistake rate (mistakes and blunders per decision),
inaccuracy-or-worse rate, mean swing and accuracy, and in how many seeds the random seat's
accuracy is the lowest.

    python bench/review_speed.py --only weak -j 2               # one deck, 20 fresh seeds
    python bench/review_speed.py --only weak --decks 2 --seeds 6 -j 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gamelog  # noqa: E402
import replay  # noqa: E402
from bench.lookahead import whole_hand  # noqa: E402
from replay.agents import HeuristicAgent, RandomAgent  # noqa: E402
from replay.lookahead import LookaheadAgent  # noqa: E402
from replay.review import Budget, accuracy, review_hands  # noqa: E402
from replay.simulate import simulate_match  # noqa: E402

SAMPLES = ["tractor-1deck", "tractor-2deck", "tractor-3deck", "four-deck", "biaofen-3p",
           "biaofen-4p", "wanfen"]


def speed(hands_each: int, levels: list[str], samples: list[str] | None = None) -> None:
    """CPU seconds per hand, per ruleset and per named level (``shengji review --level``)."""
    from replay._native import greedy_build
    from replay.review import budget_at

    print(f"compiled engine: {'yes' if replay.NATIVE else 'no'}; C core: {greedy_build()}")
    print(f"{'ruleset (sample)':<18} {'level':<9} {'hands':>5} {'decisions':>9} "
          f"{'s/hand':>7} {'s/decision':>10}")
    for name in samples or SAMPLES:
        hands = list(gamelog.read_hands(ROOT / "samples" / "matches" / f"{name}.jsonl"))
        for level in levels:
            started = time.process_time()
            reviews = list(review_hands(iter(hands), keep=lambda h: h.number <= hands_each,
                                        budget=budget_at(level)))
            took = time.process_time() - started
            done = [r for r in reviews if r.decisions]
            decisions = sum(len(r.decisions) for r in done)
            print(f"{name:<18} {level:<9} {len(done):5} {decisions:9} "
                  f"{took / max(len(done), 1):7.1f} {took / max(decisions, 1):10.3f}",
                  flush=True)


def agreement(hands_each: int) -> None:
    for name in ("tractor-1deck", "tractor-2deck"):
        hands = list(gamelog.read_hands(ROOT / "samples" / "matches" / f"{name}.jsonl"))
        keep = lambda h: h.number <= hands_each  # noqa: E731
        small = [d for r in review_hands(iter(hands), keep=keep) for d in r.decisions]
        big = [d for r in review_hands(iter(hands), keep=keep,
                                       budget=Budget(samples=24, confirm=72, seed=1))
               for d in r.decisions]
        same = sum(a.mark == b.mark for a, b in zip(small, big, strict=True))
        diff = statistics.mean(abs(a.swing - b.swing) for a, b in zip(small, big, strict=True))
        marked = sum(a.mark is not None for a in small), sum(b.mark is not None for b in big)
        print(f"{name}: {len(small)} decisions; same mark {100 * same / len(small):.1f} %; "
              f"mean |swing difference| {diff:.2f} points; marked {marked[0]} (8 deals) vs "
              f"{marked[1]} (24 deals)", flush=True)


def weak(decks: int, seeds: list[int], hands: int, jobs: int = 1,
         rollout: str = "greedy", seats: str = "simulator") -> None:
    rules = replay.get_ruleset("tractor", players=4, decks=decks)

    def others(rng):  # type: ignore[no-untyped-def]
        if seats == "lookahead":
            return whole_hand(rng)
        return LookaheadAgent(rng) if seats == "simulator" else HeuristicAgent(rng)

    by: dict[int, list] = {s: [] for s in range(4)}
    per_seed: dict[int, list[float]] = {s: [] for s in range(4)}
    scale = 1.0
    for seed in seeds:
        events = simulate_match(rules, f"weak-{seed}", seed, hands=hands, agents=lambda seat, rng:
                                RandomAgent(rng) if seat == 1 else others(rng))
        played = [h for m in gamelog.loads(gamelog.dumps(events)) for h in m.hands]
        seed_by: dict[int, list] = {s: [] for s in range(4)}
        for r in review_hands(iter(played), budget=Budget(seed=seed, rollout=rollout),
                              jobs=jobs):
            scale = r.scale
            for d in r.decisions:
                by[d.seat].append(d)
                seed_by[d.seat].append(d)
        for s in range(4):
            per_seed[s].append(accuracy(seed_by[s], scale) or 0.0)
        if sys.stderr.isatty():  # progress on a terminal, quiet in a pipe
            print(f"  seed {len(per_seed[0])} of {len(seeds)} ({seed}) reviewed",
                  file=sys.stderr, flush=True)
    print(f"tractor, {decks} deck(s), seeds {' '.join(map(str, seeds))}, {hands} hands each; "
          f"seat 1 plays at random, the others {seats}; {rollout} rollouts")
    print(f"{'seat':>4} {'decisions':>9} {'mistake rate':>12} {'marked rate':>11} "
          f"{'mean swing':>10} {'accuracy':>8}  accuracy per seed")
    for s in range(4):
        ds = by[s]
        bad = sum(d.mark in ("mistake", "blunder") for d in ds) / len(ds)
        any_mark = sum(d.mark is not None for d in ds) / len(ds)
        print(f"{s:>4} {len(ds):9} {bad:12.3f} {any_mark:11.3f} "
              f"{statistics.mean(d.swing for d in ds):10.2f} {accuracy(ds, scale):8.1f}  "
              + " ".join(f"{a:.1f}" for a in per_seed[s]), flush=True)

    def rate(seats: list[int], marks: tuple[str | None, ...]) -> float:
        ds = [d for s in seats for d in by[s]]
        return sum(d.mark in marks for d in ds) / max(len(ds), 1)

    for label, marks in (("mistake", ("mistake", "blunder")),
                         ("marked", ("inaccuracy", "mistake", "blunder"))):
        weak_rate, rest = rate([1], marks), rate([0, 2, 3], marks)
        ratio = f"{weak_rate / rest:.1f}x" if rest else "inf"
        print(f"{label} rate: random seat {weak_rate:.3f}, {seats} seats {rest:.3f} "
              f"({ratio})", flush=True)
    lowest = [seed for i, seed in enumerate(seeds)
              if per_seed[1][i] < min(per_seed[s][i] for s in (0, 2, 3))]
    missed = [seed for seed in seeds if seed not in lowest]
    print(f"random seat's accuracy the lowest in {len(lowest)} of {len(seeds)} seeds"
          + (f" (not in {' '.join(map(str, missed))})" if missed else ""), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", choices=["speed", "agreement", "weak"])
    ap.add_argument("--sample", action="append", choices=SAMPLES,
                    help="speed: only these samples (repeatable; default every one)")
    ap.add_argument("--hands", type=int, default=2, help="hands per sample match (speed)")
    ap.add_argument("--level", action="append", choices=["quick", "standard", "thorough"],
                    help="named budgets for the speed table (default: quick and standard)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="processes (weak)")
    ap.add_argument("--rollout", default="greedy", choices=["greedy", "heuristic"])
    ap.add_argument("--seeds", type=int, default=20,
                    help="match seeds of the weak run, drawn fresh and printed (default 20)")
    ap.add_argument("--seed", type=int, action="append", dest="seed_list",
                    help="a given match seed of the weak run (repeat; instead of fresh ones)")
    ap.add_argument("--decks", type=int, action="append",
                    help="deck counts of the weak run (default: 1)")
    ap.add_argument("--weak-hands", type=int, default=16,
                    help="hands a match (weak; 8 until session 30: over 8 hands a heuristic "
                         "seat's accuracy spreads so that the random seat's was not the lowest "
                         "in one seed of ten)")
    ap.add_argument("--seats", choices=("simulator", "heuristic", "lookahead"),
                    default="simulator",
                    help="who plays the other seats of the weak run: the simulator's agent "
                         "(the heuristic agent, its plays checked, looking ahead in the last "
                         "eight tricks), the "
                         "heuristic agent alone (before session 34), or the lookahead agent of "
                         "the whole hand (bench/lookahead.py: plays as the review judges)")
    args = ap.parse_args()
    parts = args.only or ["speed", "agreement", "weak"]
    if "speed" in parts:
        speed(args.hands, args.level or ["quick", "standard"], args.sample)
    if "agreement" in parts:
        agreement(args.hands)
    if "weak" in parts:
        import random

        seeds = args.seed_list or random.SystemRandom().sample(range(10_000, 10**7), args.seeds)
        for decks in args.decks or [1]:
            weak(decks, seeds, args.weak_hands, args.jobs, args.rollout, args.seats)


if __name__ == "__main__":
    main()
