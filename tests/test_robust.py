"""Bad input never crashes: random bytes to the reader, and randomly corrupted records (seats out
of range, odd card counts, events in odd places) to the replayer."""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import replay
from gamelog import loads
from gamelog.errors import RecordError
from gamelog.model import EVENT_TYPES, Event, Hand, MatchStart
from tests.strategies import record

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = (ROOT / "samples" / "matches" / "tractor-2deck.jsonl").read_bytes().splitlines()[:140]
BIAOFEN = (ROOT / "samples" / "matches" / "biaofen-3p.jsonl").read_bytes().splitlines()[:120]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=80), max_size=30))
def test_reader_survives_any_bytes(lines):
    issues: list[RecordError] = []
    loads(b"\n".join(lines), strict=False, issues=issues)
    assert all(isinstance(i, RecordError) for i in issues)


def corrupt(ev: Event, rng: random.Random) -> Event:
    fields = [f for f in ev.__struct_fields__ if f not in ("match", "hand", "seq", "note")]
    if not fields:
        return ev
    name = rng.choice(fields)
    value = getattr(ev, name)
    if isinstance(value, int) and not isinstance(value, bool):
        new: object = rng.choice([-1, 0, 3, 4, 7, 99, value + 1])
    elif isinstance(value, list):
        new = rng.choice([[], value[:1], value + value, list(reversed(value)), value[1:]])
    else:
        return ev
    try:
        return msgspec.structs.replace(ev, **{name: new})
    except (TypeError, ValueError):
        return ev


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), which=st.sampled_from(["tractor", "biaofen"]))
def test_replayer_survives_corrupted_records(seed, which):
    rng = random.Random(seed)
    lines = SAMPLE if which == "tractor" else BIAOFEN
    match = loads(b"\n".join(lines) + b"\n", strict=False)[0]
    events = list(match.hands[0].events)
    for _ in range(rng.randrange(1, 6)):
        i = rng.randrange(len(events))
        action = rng.random()
        if action < 0.6:
            events[i] = corrupt(events[i], rng)
        elif action < 0.8:
            del events[i]
        else:
            j = rng.randrange(len(events))
            events[i], events[j] = events[j], events[i]
    hand = Hand(match=match.id, number=1, events=events, header=match.header)
    reports = list(replay.validate_hands([hand]))  # must not raise
    assert len(reports) == 1


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record(max_hands=2), st.sampled_from(["tractor", "four-deck", "biaofen"]))
def test_replayer_survives_random_records(events, ruleset):
    header = events[0]
    assert isinstance(header, MatchStart)
    header = msgspec.structs.replace(header, ruleset=ruleset, options={},
                                     decks={"tractor": 2, "four-deck": 4, "biaofen": 2}[ruleset],
                                     players=3 if ruleset == "biaofen" else 4)
    hands: dict[int, list[Event]] = {}
    for ev in events[1:]:
        hands.setdefault(ev.hand, []).append(ev)
    for number, evs in hands.items():
        hand = Hand(match=header.match, number=number, events=evs, header=header)
        list(replay.validate_hands([hand]))  # must not raise
    assert EVENT_TYPES
