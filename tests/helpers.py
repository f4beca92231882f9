"""Small records for tests."""

from __future__ import annotations

from gamelog import FORMAT_VERSION, Deal, HandStart, MatchStart, Play, Result, TrickEnd
from gamelog.model import Event


def small_match(match: str = "m1", hands: int = 2) -> list[Event]:
    """A header and ``hands`` tiny hands (a setup-free two-card deal each)."""
    events: list[Event] = [MatchStart(match=match, hand=0, seq=0, version=FORMAT_VERSION,
                                      ruleset="tractor", players=4, decks=1,
                                      tags={"site": "test"})]
    for h in range(1, hands + 1):
        body = [
            HandStart(match=match, hand=h, seq=0, dealer=0, level="2"),
            Deal(match=match, hand=h, seq=1, holdings=[["AS"], ["KS"], ["QS"], ["?"]],
                 kitty=["?", "?"]),
            Play(match=match, hand=h, seq=2, seat=0, cards=["AS"]),
            Play(match=match, hand=h, seq=3, seat=1, cards=["KS"]),
            Play(match=match, hand=h, seq=4, seat=2, cards=["QS"]),
            Play(match=match, hand=h, seq=5, seat=3, cards=["JS"]),
            TrickEnd(match=match, hand=h, seq=6, trick=1, winner=0, points=10),
            Result(match=match, hand=h, seq=7, defender_points=0, level_change=[3, 0]),
        ]
        events.extend(body)
    return events


def jsonl_lines(events: list[Event]) -> list[str]:
    from gamelog import dumps

    return dumps(events).decode().splitlines()
