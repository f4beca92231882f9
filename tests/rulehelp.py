"""Build small hands from set-up positions for rule tests."""

from __future__ import annotations

from gamelog import FORMAT_VERSION, Hand, HandStart, MatchStart, Play, Setup, parse_cards
from gamelog.cards import tokens
from gamelog.model import Event, ThrowFail
from replay import get_ruleset, replay_hand
from replay.engine import HandReport

EMPTY = ""


def toks(text: str) -> list[str]:
    """Cards in any spelling; ``?`` stays a hidden card."""
    out: list[str] = []
    for part in text.split():
        out.extend(["?"] if part == "?" else tokens(parse_cards(part)))
    return out


def position(holdings: list[str], *, trump: str = "S", level: str = "2", declarer: int = 0,
             leader: int | None = None, match: str = "t", tricks: int = 0, points: int = 0,
             decks: int = 2) -> list[Event]:
    del decks
    return [
        HandStart(match=match, hand=1, seq=0, dealer=declarer, level=level),
        Setup(match=match, hand=1, seq=1, holdings=[toks(h) for h in holdings], trump=trump,
              level=level, declarer=declarer, leader=declarer if leader is None else leader,
              tricks=tricks, points=points),
    ]


def add_plays(events: list[Event], plays: list[tuple[int, str]]) -> list[Event]:
    out = list(events)
    for seat, cards in plays:
        if cards.startswith("fail:"):
            out.append(ThrowFail(match=out[0].match, hand=1, seq=len(out), seat=seat,
                                 cards=toks(cards[5:])))
        else:
            out.append(Play(match=out[0].match, hand=1, seq=len(out), seat=seat, cards=toks(cards)))
    return out


def hand_of(holdings: list[str], plays: list[tuple[int, str]], *, decks: int = 2,
            ruleset: str = "tractor", extra: list[Event] | None = None, **kw) -> Hand:
    """The hand of a set-up position (:func:`position`) and ``plays`` after it."""
    events = add_plays(position(holdings, **kw), plays) + list(extra or [])
    for i, ev in enumerate(events):
        if ev.seq != i:
            import msgspec

            events[i] = msgspec.structs.replace(ev, seq=i)
    header = MatchStart(match=kw.get("match", "t"), hand=0, seq=0, version=FORMAT_VERSION,
                        ruleset=ruleset, players=len(holdings), decks=decks)
    return Hand(match=header.match, number=1, events=events, header=header)


def run(holdings: list[str], plays: list[tuple[int, str]], *, decks: int = 2,
        ruleset: str = "tractor", extra: list[Event] | None = None, **kw) -> HandReport:
    hand = hand_of(holdings, plays, decks=decks, ruleset=ruleset, extra=extra, **kw)
    return replay_hand(hand, get_ruleset(ruleset, decks=decks, players=len(holdings)))


def rules_of(report: HandReport) -> list[str]:
    return [v.rule for v in report.violations]
