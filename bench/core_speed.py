"""Benchmark: the rule core's speed where the review spends it (issue 27): rollouts played to
the end of a hand, and the exact search of the last tricks.

    python bench/core_speed.py                 # 6 rulesets, 20 hands each
    python bench/core_speed.py --hands 50 --repeat 5
    python bench/core_speed.py --instructions     # instruction counts (valgrind), 3 hands
    python bench/core_speed.py --dump out.json    # and every playout and search, to cmp builds
    python bench/core_speed.py --cards 4          # searches of four cards a seat

For each ruleset (tractor with 1, 2 and 3 decks, four-deck, 打万分, 标分 with four players) it
simulates ``--hands`` hands (fixed seeds) and takes two positions from each:

- the position before the first lead: the rollout player (``replay.playout.greedy_play``, in C
  where ``replay/_greedy.c`` is built) plays a copy of it to the end of the hand, as every
  rollout of the review does (``replay.rollouts.play_value``: the hand settled, its plays not
  applied; ``SHENGJI_NATIVE_PLAYOUT=0`` for the Python player); printed as **playouts per
  second** and cards played per second;
- the first lead where every seat holds at most ``--cards`` cards (2, as the review's exact
  search): the exact search (``replay.search.solve``, on the C core where ``replay/_core_search.h``
  is built; ``SHENGJI_NATIVE_PLAYOUT=0`` for the Python search) values a copy of it; printed as
  **searches per second** and **positions per second** (the positions the search stored in
  its table: each one it expanded).

Best of ``--repeat`` passes over the same positions; one core; the compiled engine when it is
installed (``SHENGJI_PURE=1`` for the Python sources). Wall-clock rates on a shared machine
drift by up to 2x from minute to minute; ``--instructions`` counts instructions instead
(valgrind's callgrind, which must be installed): for each ruleset the same positions are made
three times in fresh processes, once alone, once with every playout and once with every
search, and the differences are printed per playout and per search. Those do not drift.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RULESETS = [("tractor-1deck", "tractor", {"decks": 1}), ("tractor-2deck", "tractor", {"decks": 2}),
            ("tractor-3deck", "tractor", {"decks": 3}), ("four-deck", "four-deck", {}),
            ("wanfen", "wanfen", {}), ("biaofen-4p", "biaofen", {"players": 4})]


def positions(name: str, options: dict, hands: int, cards: int = 2) -> tuple[list, list]:
    """(positions before the first lead, positions with at most ``cards`` cards a seat)."""
    from gamelog.model import Hand, Play
    from replay import get_ruleset
    from replay.engine import HandReplay
    from replay.simulate import heuristic_agents, simulate_match

    rules = get_ruleset(name, **options)
    rng = random.Random(f"core:{name}:{options}")
    starts, ends = [], []
    match = 0
    while len(starts) < hands:
        match += 1
        events = simulate_match(rules, f"c{match}", rng.randrange(1 << 30), hands=1, agents=heuristic_agents)
        hand_events = [e for e in events if e.hand == 1]
        hand = Hand(match=events[0].match, number=1, events=hand_events, header=events[0])
        plays = [i for i, e in enumerate(hand_events) if isinstance(e, Play)]
        if not plays:
            continue
        state = HandReplay(rules, hand)
        taken_end = False
        for i, ev in enumerate(hand_events):
            if i == plays[0]:
                start = _copy(state)
                if start.start_play():  # the card order fixed, as at the first lead
                    starts.append(start)
            if i in plays and not taken_end and state.order is not None and \
                    (state.trick is None or not state.trick.plays) and \
                    max(sum(h) for h in state.held) <= cards and state.pending_forced is None:
                ends.append(_copy(state))
                taken_end = True
            state.apply(ev)
    return starts, ends


def _copy(state):  # type: ignore[no-untyped-def]
    from replay.search import clone

    return clone(state)


def work(label: str, what: str, hands: int, cards: int = 2) -> None:
    """The positions of one ruleset, and with ``what`` their playouts or searches (one pass)."""
    from replay.playout import native_result
    from replay.rollouts import play_value
    from replay.search import clone, solve

    name, options = next((n, o) for lab, n, o in RULESETS if lab == label)
    starts, ends = positions(name, options, hands, cards)
    if starts:  # the C player's tables (made once a process) made in every run alike
        native_result(clone(starts[0]))
    for state in starts if what == "play" else []:
        play_value(clone(state))
    for state in ends if what == "search" else []:
        solve(clone(state), {})
    print(f"positions {len(starts)} {len(ends)}")


def instructions(hands: int, cards: int = 2) -> None:
    """Instructions per playout and per search, by differences of whole runs (callgrind); the
    C rollout player's tables, made once a process, are made in each run before the count."""
    def count(label: str, what: str) -> tuple[int, str]:
        done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                               sys.executable, __file__, "--work", what, "--only", label,
                               "--hands", str(hands), "--cards", str(cards)], capture_output=True, text=True)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode or not found:
            raise SystemExit(f"valgrind failed: {done.stderr[-300:]}")
        return int(found.group(1)), done.stdout.split()[-2:]

    import replay

    print(f"compiled engine: {'yes' if replay.NATIVE else 'no (pure Python)'}; {hands} hands "
          "per ruleset; instructions (millions)")
    print(f"{'ruleset':<14} {'per playout':>12} {'per search':>11}")
    for label, _, _ in RULESETS:
        alone, (starts, ends) = count(label, "none")
        play, _ = count(label, "play")
        search, _ = count(label, "search")
        print(f"{label:<14} {(play - alone) / max(1, int(starts)) / 1e6:>12.2f} "
              f"{(search - alone) / max(1, int(ends)) / 1e6:>11.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hands", type=int, default=None, help="20 (3 with --instructions)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cards", type=int, default=2,
                    help="search positions with at most this many cards a seat (2)")
    ap.add_argument("--instructions", action="store_true", help="count instructions (valgrind)")
    ap.add_argument("--dump", type=Path, help="write every playout's tricks and every search's "
                    "value here (JSON), to compare two builds with cmp")
    ap.add_argument("--work", choices=["none", "play", "search"], help=argparse.SUPPRESS)
    ap.add_argument("--only", help=argparse.SUPPRESS)
    args = ap.parse_args()
    from bench.json_out import check_json_out, write_json

    check_json_out(args.dump)  # refused before the work, not after it
    if args.work:
        work(args.only, args.work, args.hands, args.cards)
        return
    if args.instructions:
        instructions(args.hands or 3, args.cards)
        return
    args.hands = args.hands or 20
    import replay
    from replay._native import greedy_core
    from replay.rollouts import play_value
    from replay.search import clone, solve, table_size

    print(f"compiled engine: {'yes' if replay.NATIVE else 'no (pure Python)'}; rollout "
          f"player: {'C' if greedy_core() is not None else 'Python'}; best of {args.repeat}; "
          f"{args.hands} hands per ruleset")
    print(f"{'ruleset':<14} {'playouts/s':>11} {'plays/s':>10} {'searches/s':>11} "
          f"{'positions/s':>12}")
    dumped: dict[str, list] = {}
    for label, name, options in RULESETS:
        starts, ends = positions(name, options, args.hands, args.cards)
        if args.dump:
            dumped[label] = [_tricks_of(state) for state in starts] + [
                solve(clone(state), {}) for state in ends]
        best_play = best_search = float("inf")
        plays = nodes = 0
        for _ in range(args.repeat):
            t0 = time.process_time()
            plays = 0
            for state in starts:
                world = clone(state)
                plays += sum(sum(h) for h in world.held)  # every card is played
                play_value(world)
            best_play = min(best_play, time.process_time() - t0)
            t0 = time.process_time()
            nodes = 0
            for state in ends:
                table: dict = {}
                solve(clone(state), table)
                nodes += table_size(table)
            best_search = min(best_search, time.process_time() - t0)
        print(f"{label:<14} {len(starts) / best_play:>11,.1f} {plays / best_play:>10,.0f} "
              f"{len(ends) / best_search:>11,.1f} {nodes / best_search:>12,.0f}")
    if args.dump:
        write_json(args.dump, dumped, sort_keys=True, end="\n")
        print(f"every playout and search written to {args.dump}")


def _tricks_of(state):  # type: ignore[no-untyped-def]
    """A position played out by the rollout player: its points and every trick."""
    from replay.rollouts import play_out
    from replay.search import clone

    world = clone(state)
    points = play_out(world)
    return [points, [[t.winner, t.points, [[p.seat, p.cards] for p in t.plays]]
                     for t in world.tricks]]


if __name__ == "__main__":
    main()
