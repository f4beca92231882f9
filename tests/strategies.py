"""Hypothesis strategies for random game records: 1-4 decks, 3 or 4 seats, hidden cards,
set-up positions, every event type, optional fields present or not."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from gamelog import model as m
from gamelog.cards import CARD_TOKENS, full_deck, tokens

LEVELS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "NT"]
TRUMPS = ["S", "H", "C", "D", "NT"]
text = st.text(max_size=12)
small = st.integers(min_value=-(2**31), max_value=2**31 - 1)
card = st.sampled_from(CARD_TOKENS)
cards = st.lists(card, max_size=8)
hidden_or_card = st.one_of(card, st.just("?"))
option_value = st.one_of(st.booleans(), small, st.floats(allow_nan=False, allow_infinity=False),
                         text)


def maybe(strategy):
    return st.one_of(st.none(), strategy)


@st.composite
def header(draw, match: str) -> m.MatchStart:
    players = draw(st.sampled_from([3, 4]))
    return m.MatchStart(
        match=match, hand=0, seq=0, version=m.FORMAT_VERSION,
        ruleset=draw(st.sampled_from(["tractor", "four-deck", "biaofen", "wanfen", "x"])),
        players=players, decks=draw(st.integers(1, 4)),
        options=draw(st.dictionaries(text, option_value, max_size=3)),
        seats=[m.SeatInfo(seat=i, player=draw(maybe(text)), name=draw(maybe(text)),
                          team=draw(maybe(st.integers(0, 1)))) for i in range(players)],
        levels=draw(maybe(st.lists(st.sampled_from(LEVELS), min_size=2, max_size=2))),
        source=draw(maybe(text)), tags=draw(st.dictionaries(text, text, max_size=3)),
        note=draw(maybe(text)),
    )


@st.composite
def deal_or_setup(draw, head: m.MatchStart, base: dict) -> m.Event:
    """A random deal of the header's decks, some seats (or cards) hidden."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    deck = tokens(full_deck(head.decks))
    rng.shuffle(deck)
    kitty_size = draw(st.sampled_from([0, 6, 8, 12]))
    size = (len(deck) - kitty_size) // head.players
    holdings = [deck[i * size:(i + 1) * size] for i in range(head.players)]
    kitty: list[str] | None = deck[size * head.players:]
    for i in range(head.players):
        mode = draw(st.sampled_from(["known", "hidden", "partial"]))
        if mode == "hidden":
            holdings[i] = ["?"] * len(holdings[i])
        elif mode == "partial":
            holdings[i] = [c if rng.random() < 0.5 else "?" for c in holdings[i]]
    if draw(st.booleans()):
        kitty = None if draw(st.booleans()) else ["?"] * len(kitty or [])
    if draw(st.booleans()):
        return m.Deal(**base, holdings=holdings, kitty=kitty)
    cut = draw(st.integers(0, size))
    return m.Setup(**base, holdings=[h[:cut] for h in holdings], kitty=kitty,
                   trump=draw(maybe(st.sampled_from(TRUMPS))),
                   level=draw(maybe(st.sampled_from(LEVELS))),
                   declarer=draw(maybe(st.integers(0, head.players - 1))),
                   leader=draw(maybe(st.integers(0, head.players - 1))),
                   points=draw(st.integers(0, 400)), tricks=draw(st.integers(0, 30)))


def other_event(players: int):
    seat = st.integers(0, players - 1)
    return st.one_of(
        st.builds(lambda s, c, d: ("declare", dict(seat=s, cards=c, drawn=d)), seat, cards,
                  maybe(st.integers(0, 216))),
        st.builds(lambda s, p: ("bid", dict(seat=s, points=p)), seat, st.integers(0, 80)),
        st.builds(lambda s: ("pass", dict(seat=s)), seat),
        st.builds(lambda t, s, c: ("trump", dict(trump=t, seat=s, cards=c)),
                  st.sampled_from(TRUMPS), maybe(seat), maybe(cards)),
        st.builds(lambda s, c: ("kitty_take", dict(seat=s, cards=c)), seat,
                  st.lists(hidden_or_card, max_size=12)),
        st.builds(lambda s, c: ("kitty_bury", dict(seat=s, cards=c)), seat,
                  st.lists(hidden_or_card, max_size=12)),
        st.builds(lambda s, c: ("play", dict(seat=s, cards=c)), seat, cards),
        st.builds(lambda s, c, b: ("throw_fail", dict(seat=s, cards=c, blockers=b)), seat, cards,
                  maybe(st.lists(st.builds(m.Blocker, seat=seat, cards=cards), max_size=3))),
        st.builds(lambda s: ("surrender", dict(seat=s)), seat),
        st.builds(lambda t, w, p: ("trick", dict(trick=t, winner=w, points=p)),
                  st.integers(1, 60), seat, maybe(st.integers(0, 400))),
        st.builds(lambda *a: ("result", dict(zip(
            ["defender_points", "kitty_points", "kitty_multiplier", "level_change",
             "next_dealer", "settlement"], a, strict=True))),
            maybe(small), maybe(small), maybe(small), maybe(st.lists(st.integers(-4, 4),
                                                                    max_size=2)),
            maybe(seat), maybe(st.lists(small, min_size=players, max_size=players))),
    )


@st.composite
def record(draw, max_hands: int = 3) -> list[m.Event]:
    """A random match: header and 0-``max_hands`` hands of random events."""
    match = draw(st.text(min_size=1, max_size=10))
    head = draw(header(match))
    events: list[m.Event] = [head]
    for h in range(1, draw(st.integers(0, max_hands)) + 1):
        seq = iter(range(10_000))
        events.append(m.HandStart(
            match=match, hand=h, seq=next(seq), dealer=draw(maybe(st.integers(0, 3))),
            declarer=draw(maybe(st.integers(0, 3))), level=draw(maybe(st.sampled_from(LEVELS))),
            levels=draw(maybe(st.lists(st.sampled_from(LEVELS), min_size=2, max_size=2))),
            first_draw=draw(maybe(st.integers(0, 3))), note=draw(maybe(text))))
        events.append(draw(deal_or_setup(head, dict(match=match, hand=h, seq=next(seq)))))
        for tag, fields in draw(st.lists(other_event(head.players), max_size=12)):
            events.append(m.EVENT_BY_TAG[tag](match=match, hand=h, seq=next(seq),
                                              note=draw(maybe(text)), **fields))
    return events
