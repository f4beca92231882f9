"""Benchmark and check: the compiled engine and the Python sources give the same answers on
random positions (issue 27).

    python bench/native_agreement.py --positions 100000     # per ruleset, about 20 min
    python bench/native_agreement.py --positions 200 --dump out.json   # what the test runs

For each ruleset (tractor with 1, 2 and 3 decks, four-deck, wanfen, biaofen-4p) it simulates
hands and stops each at a random play; at that position it records, for the seat on turn, the
verdict (rule ids) of a random play of the right number of its cards (often illegal) and of a
random legal one, how many legal leads or follows there are, with at most two cards left a
seat the exact search's value, and a deal of the cards the seat could not see (the review's
``determinize``) with the rollout player's result on it. It runs that once with the compiled
modules and once with ``SHENGJI_PURE=1`` (each in its own process) and compares the two records
line by line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RULESETS = [("tractor", {"decks": 1}), ("tractor", {"decks": 2}), ("tractor", {"decks": 3}),
            ("four-deck", {}), ("wanfen", {}), ("biaofen", {"players": 4})]


def positions(count: int, seed: int, per_hand: int = 8) -> list[list]:
    """The records of ``count`` random positions per ruleset (the work of one process)."""
    from gamelog.cards import Card
    from gamelog.model import Hand, Play
    from replay import get_ruleset
    from replay.deals import determinize
    from replay.engine import HandReplay
    from replay.legal import follow_spec, legal_leads
    from replay.playout import greedy_play_out
    from replay.search import clone, solve, to_play
    from replay.simulate import heuristic_agents, simulate_match

    out: list[list] = []
    for name, options in RULESETS:
        rules = get_ruleset(name, **options)
        rng = random.Random(f"{seed}:{name}:{options}")
        made = 0
        match = 0
        while made < count:
            match += 1
            events = simulate_match(rules, f"n{match}", rng.randrange(1 << 30), hands=1,
                                    agents=heuristic_agents)
            hand_events = [e for e in events if e.hand == 1]
            hand = Hand(match=events[0].match, number=1, events=hand_events, header=events[0])
            plays = [i for i, e in enumerate(hand_events) if isinstance(e, Play)]
            if not plays:  # a hand given up before its first lead (标分's surrender)
                continue
            stops = sorted(plays[rng.randrange(len(plays))]
                           for _ in range(min(per_hand, count - made)))
            state = HandReplay(rules, hand)
            applied = 0
            for stop in stops:  # one replay of the hand; a copy of its state at each stop
                for ev in hand_events[applied:stop]:
                    state.apply(ev)
                applied = stop
                seat = to_play(state)
                if seat is None or state.order is None or state.pending_forced is not None:
                    continue
                size = len(hand_events[stop].cards)
                held = [c for c in range(54) for _ in range(state.held[seat][c])]
                guess = rng.sample(held, min(size, len(held)))
                row: list = [name, options.get("decks", 0), match, stop, seat]
                for cards in (guess, hand_events[stop].cards):
                    trial = clone(state)  # the trick in progress copied too
                    before = len(trial.log.items)
                    tokens = [str(Card(c)) for c in cards] if cards is guess else list(cards)
                    trial.apply(Play(match=hand.match, hand=1, seq=1 << 20, seat=seat,
                                     cards=tokens))
                    row.append([v.rule for v in trial.log.items[before:]])
                    row.append(trial.tricks[-1].winner if trial.tricks else None)
                leading = state.trick is None or not state.trick.plays
                if leading:
                    row.append(len(legal_leads(state, seat)))
                else:
                    found = follow_spec(state, seat).enumerate(limit=400)
                    row.append(None if found is None else len(found))
                if max(sum(h) for h in state.held) <= 2 and not any(state.hidden):
                    row.append(solve(clone(state)))
                # a deal of the cards the seat could not see (the review's), and the rollout
                # player's result on it
                world = determinize(state, seat, random.Random(f"{match}:{stop}"))
                row.append([world.held, world.kitty, greedy_play_out(clone(world))])
                out.append(row)
                made += 1
    return out


def start(pure: bool, count: int, seed: int, per_hand: int) -> tuple[subprocess.Popen, float]:
    env = {**os.environ, "SHENGJI_PURE": "1" if pure else "0"}
    process = subprocess.Popen([sys.executable, __file__, "--worker", "--positions", str(count),
                                "--seed", str(seed), "--per-hand", str(per_hand)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, cwd=ROOT)
    return process, time.perf_counter()


def finish(process: subprocess.Popen, t0: float, pure: bool) -> tuple[dict, float]:
    out, err = process.communicate()
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    if done.returncode != 0:
        raise SystemExit(f"the {'pure' if pure else 'compiled'} run failed:\n"
                         f"{done.stderr[-3000:]}")
    return json.loads(done.stdout), time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=1000, help="positions per ruleset")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-hand", type=int, default=8,
                    help="positions taken from each simulated hand")
    ap.add_argument("--parallel", action="store_true",
                    help="the compiled and the pure run at once (two cores)")
    ap.add_argument("--dump", type=Path, help="write both records here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    from bench.json_out import check_json_out, write_json

    check_json_out(args.dump)  # refused before the work, not after it
    if args.worker:
        import replay

        print(json.dumps({"native": replay.NATIVE, "rows": positions(
            args.positions, args.seed, args.per_hand)}))
        return
    if args.parallel:
        first, second = (start(p, args.positions, args.seed, args.per_hand)
                         for p in (False, True))
        compiled, t_compiled = finish(*first, False)
        pure, t_pure = finish(*second, True)
    else:
        compiled, t_compiled = finish(*start(False, args.positions, args.seed, args.per_hand),
                                      False)
        pure, t_pure = finish(*start(True, args.positions, args.seed, args.per_hand), True)
    same = sum(a == b for a, b in zip(compiled["rows"], pure["rows"], strict=False))
    total = max(len(compiled["rows"]), len(pure["rows"]))
    digest = hashlib.sha256(json.dumps(compiled["rows"]).encode()).hexdigest()[:16]
    print(f"compiled run: native={compiled['native']}, {t_compiled:.1f} s; pure run: "
          f"native={pure['native']}, {t_pure:.1f} s")
    print(f"{total:,} positions ({args.positions:,} per ruleset, {len(RULESETS)} rulesets): "
          f"{same:,} identical, {total - same:,} different; records {digest}")
    if args.dump:
        write_json(args.dump, {"compiled": compiled, "pure": pure})
    if same != total:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
