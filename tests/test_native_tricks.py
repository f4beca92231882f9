"""The C core's judgement of recorded tricks (``replay/_greedy.c``: ``run_tricks`` and the
``Judge`` checks, issue 27): ``replay_hand`` hands whole runs of clean tricks to it, and the
state and report it leaves must be exactly those of the event-by-event Python replay, on clean
hands, on hands with violations planted, and on hands whose plays were shuffled at random."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from gamelog import files
from gamelog.model import Hand, Play
from replay import ruleset_for
from replay.engine import HandReplay, replay_hand
from replay.violations import StrictStop

ROOT = Path(__file__).resolve().parents[1]
MATCHES = ROOT / "samples" / "matches"
NAMES = ["tractor-1deck", "tractor-2deck", "tractor-3deck", "four-deck", "wanfen",
         "biaofen-3p", "biaofen-4p"]


def _core() -> bool:
    from replay._native import greedy_core

    return greedy_core() is not None


CORE = _core()
needs_core = pytest.mark.skipif(not CORE, reason="the C core is not built here")


def _hands(name: str, injected: bool = False) -> list[Hand]:
    path = MATCHES / f"{name}{'-injected' if injected else ''}.jsonl"
    return list(files.read_hands([path]))


def _trick_key(t):  # type: ignore[no-untyped-def]
    return (t.number, t.leader, [(p.seat, list(p.cards), p.seq, p.role) for p in t.plays],
            t.lead_class, [(u.width, u.length, u.low, tuple(u.cards)) for u in t.lead_units],
            list(t.lead_kinds), t.lead_size, t.singles_only, t.throw, t.special, t.forced,
            t.failed_throw, t.winner, t.points, t.trumped)


def _key(report):  # type: ignore[no-untyped-def]
    return ([_trick_key(t) for t in report.tricks], repr(report.outcome),
            [repr(v) for v in report.violations], [repr(n) for n in report.notices],
            report.complete, report.declarer_side)


def _event_by_event(hand: Hand, rules):  # type: ignore[no-untyped-def]
    """The replay one event at a time (never the C run of tricks)."""
    state = HandReplay(rules, hand)
    try:
        for ev in hand.events:
            state.apply(ev)
    except StrictStop:
        pass
    return state.report(), state


def _both(hand: Hand):  # type: ignore[no-untyped-def]
    """The report of ``replay_hand`` (runs of tricks in C) and of the event-by-event replay."""
    rules = ruleset_for(hand.header)
    slow, _ = _event_by_event(hand, rules)
    return replay_hand(hand, rules), slow


@pytest.mark.parametrize("name", NAMES)
def test_clean_and_planted_hands_get_the_python_replays_report(name):
    broken = 0
    for hand in _hands(name) + _hands(name, injected=True):
        fast, slow = _both(hand)
        assert _key(fast) == _key(slow), f"{hand.match} hand {hand.number}"
        broken += bool(slow.violations)
    assert broken >= 3  # the planted file's violations were met, and judged alike


@needs_core
@pytest.mark.parametrize("name", ["tractor-2deck", "four-deck", "wanfen", "biaofen-4p"])
def test_the_core_takes_clean_tricks_and_leaves_the_state_python_leaves(name):
    """run_tricks from the first play: it takes tricks (the C path is used), and the holdings,
    counts, tricks, points and leader it leaves are those of applying the same events."""
    for hand in _hands(name):  # the first hand whose first tricks it takes (打万分's first
        rules = ruleset_for(hand.header)  # may open with a special pattern, left to Python)
        fast = HandReplay(rules, hand)
        events = list(hand.events)
        i = next(k for k, ev in enumerate(events) if isinstance(ev, Play))
        for ev in events[:i]:
            fast.apply(ev)
        fast.seq = events[i].seq
        assert fast.start_play() and fast.can_run_tricks()
        used = fast.run_tricks(events, i)
        if used > 2 * rules.players:  # several tricks taken in C
            break
    else:
        pytest.fail("the core took no run of tricks")
    slow = HandReplay(rules, hand)
    for ev in events[:i + used]:
        slow.apply(ev)
    for field in ("held", "class_left", "left", "defender_points", "leader", "other_leaders",
                  "finished", "seq", "hidden"):
        assert getattr(fast, field) == getattr(slow, field), field
    assert [_trick_key(t) for t in fast.tricks] == [_trick_key(t) for t in slow.tricks]
    assert repr(fast.outcome) == repr(slow.outcome)


def _shuffled(hand: Hand, rng: random.Random) -> Hand:
    """The hand with one card of a play swapped for a card the same seat plays later: the seat
    held it, but the follow, the throw, the winner or the trick's claim may now be wrong."""
    events = list(hand.events)
    plays = [k for k, ev in enumerate(events) if isinstance(ev, Play)]
    for _ in range(20 if plays else 0):  # (a hand surrendered before play has none)
        a = rng.choice(plays)
        later = [k for k in plays if k > a and events[k].seat == events[a].seat]
        if not later:
            continue
        b = rng.choice(later)
        ca, cb = list(events[a].cards), list(events[b].cards)
        x, y = rng.randrange(len(ca)), rng.randrange(len(cb))
        if ca[x] == cb[y]:
            continue
        ca[x], cb[y] = cb[y], ca[x]
        events[a] = Play(match=events[a].match, hand=events[a].hand, seq=events[a].seq,
                         seat=events[a].seat, cards=ca)
        events[b] = Play(match=events[b].match, hand=events[b].hand, seq=events[b].seq,
                         seat=events[b].seat, cards=cb)
        break
    return Hand(match=hand.match, number=hand.number, events=events, header=hand.header,
                issues=list(hand.issues), source=hand.source, first_line=hand.first_line)


@pytest.mark.parametrize("name", NAMES)
def test_hands_with_shuffled_plays_get_the_python_replays_report(name):
    rng = random.Random(f"shuffle:{name}")
    broken = 0
    for hand in _hands(name)[:6]:
        for _ in range(4):
            shuffled = _shuffled(hand, rng)
            fast, slow = _both(shuffled)
            assert _key(fast) == _key(slow), f"{hand.match} hand {hand.number}"
            broken += bool(slow.violations)
    assert broken >= 12  # most swaps break a rule (143 of the 168 hands when written)


@needs_core
def test_the_checks_without_the_core_give_the_same_reports():
    """The whole C core switched off (``SHENGJI_NATIVE_PLAYOUT=0``: no ``Judge``, so neither
    the run of tricks nor the follow, strength and throw checks) against it on: the same report
    for every hand of the sample matches, planted violations included."""
    script = (
        "import hashlib, sys\n"
        "from pathlib import Path\n"
        "from gamelog import files\n"
        "from replay import validate_hands\n"
        "sys.path.insert(0, 'tests')\n"
        "from test_native_tricks import _key\n"
        "out = hashlib.sha256()\n"
        "n = 0\n"
        "for p in sorted(Path('samples/matches').glob('*.jsonl')):\n"
        "    if 'labels' in p.name:\n"
        "        continue\n"
        "    for r in validate_hands(files.read_hands([p])):\n"
        "        out.update(repr(_key(r)).encode()); n += 1\n"
        "print(n, out.hexdigest())\n")
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           cwd=ROOT, env={**os.environ, **env}, check=True).stdout
            for env in ({}, {"SHENGJI_NATIVE_PLAYOUT": "0"})]
    assert runs[0] == runs[1]
    assert int(runs[0].split()[0]) > 300


def test_a_throws_units_of_one_power_keep_the_order_played_whatever_was_decomposed_before():
    """Two singles of one power in a throw (two off-suit level cards) keep the order they were
    played in, as the C core keeps them, even when the same cards in another order were
    decomposed first (the memo was keyed on the sorted cards, so the first order seen won:
    a trick's record then depended on the hands validated before it)."""
    import replay
    from gamelog.cards import CARD_TOKENS, Rank, Suit
    from replay.order import standard_order
    from replay.units import decompose

    order = standard_order(Suit.SPADES, Rank.TWO)
    twos = [c for c in range(52) if CARD_TOKENS[c][0] == "2" and CARD_TOKENS[c][1] != "S"][:2]
    assert order.power[twos[0]] == order.power[twos[1]]
    replay.clear_caches()
    first = [u.cards for u in decompose([twos[0], twos[1]], order)]
    second = [u.cards for u in decompose([twos[1], twos[0]], order)]
    assert first == [(twos[0],), (twos[1],)] and second == [(twos[1],), (twos[0],)]
