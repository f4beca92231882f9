"""Labelled violation injection: turn clean records into ones that break known rules.

Each chosen hand gets exactly one mutation of one kind, and a label says where (match, hand,
event sequence number) and which rule id the validator must report there. Later events of the
hand may break further rules as a consequence (a card taken from the wrong seat is missing when
that seat plays it later); only the label is promised. Hands not chosen are left untouched, so
the validator must report nothing in them.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import msgspec

from gamelog.cards import CARD_BY_TOKEN, Card
from gamelog.model import (
    Bid,
    Declare,
    Event,
    Hand,
    HandStart,
    KittyBury,
    KittyTake,
    MatchStart,
    Pass,
    Play,
    Result,
    ThrowFail,
    TrickEnd,
    TrumpChosen,
)
from replay.engine import HandReplay
from replay.rulesets.base import Ruleset


class Label(msgspec.Struct, kw_only=True):
    """Where an injected violation is and which rule it breaks."""

    match: str
    hand: int
    seq: int
    rule: str


@dataclass
class PlayInfo:
    index: int
    seat: int
    cards: list[int]
    before: list[int]
    leading: bool
    lead_class: int
    lead_kinds: list[tuple[int, int]]
    klass: tuple[int, ...]
    special: str = ""
    """The special pattern the trick was led with (打万分's 同花顺 / 发财 / 四季), if any: its
    followers answer the pattern first (``follow.pattern-required``), not the suit."""


def _plays(hand: Hand, rules: Ruleset) -> list[PlayInfo]:
    state = HandReplay(rules, hand)
    out: list[PlayInfo] = []
    for i, ev in enumerate(hand.events):
        if isinstance(ev, Play):
            before = list(state.held[ev.seat])
            leading = state.trick is None
        state.apply(ev)
        if isinstance(ev, Play) and state.order is not None:
            trick = state.trick if state.trick is not None else state.tricks[-1]
            out.append(PlayInfo(i, ev.seat, [CARD_BY_TOKEN[t] for t in ev.cards], before,
                                leading, trick.lead_class, [u.kind for u in trick.lead_units],
                                state.order.klass, trick.special))
    return out


Mutation = Callable[[list[Event], list[PlayInfo], random.Random, int], tuple[int, str] | None]
"""A mutation: (events of the hand, its plays, rng, players) -> (seq, rule id) or None."""


def _replace(events: list[Event], i: int, **changes: object) -> None:
    events[i] = msgspec.structs.replace(events[i], **changes)


def _tok(cards: list[int]) -> list[str]:
    return [str(Card(c)) for c in cards]


def card_not_held(events, plays, rng, players):  # type: ignore[no-untyped-def]
    follows = [p for p in plays if not p.leading]
    rng.shuffle(follows)
    for p in follows:
        cands = [c for c in range(54) if p.before[c] == 0 and p.klass[c] == p.klass[p.cards[0]]]
        if cands:
            new = list(p.cards)
            new[rng.randrange(len(new))] = rng.choice(cands)
            _replace(events, p.index, cards=_tok(new))
            return events[p.index].seq, "play.card-not-held"
    return None


def out_of_turn(events, plays, rng, players):  # type: ignore[no-untyped-def]
    pairs = [(a, b) for a, b in itertools.pairwise(plays)
             if not a.leading and not b.leading and b.index == a.index + 1]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    ea, eb = events[a.index], events[b.index]
    events[a.index] = msgspec.structs.replace(eb, seq=ea.seq)
    events[b.index] = msgspec.structs.replace(ea, seq=eb.seq)
    return ea.seq, "play.out-of-turn"


def wrong_count(events, plays, rng, players):  # type: ignore[no-untyped-def]
    follows = [p for p in plays if not p.leading]
    rng.shuffle(follows)
    for p in follows:
        spare = [c for c in range(54) if p.before[c] > p.cards.count(c)]
        if spare:
            _replace(events, p.index, cards=_tok([*p.cards, rng.choice(spare)]))
            return events[p.index].seq, "play.wrong-count"
    return None


def suit_required(events, plays, rng, players):  # type: ignore[no-untyped-def]
    follows = [p for p in plays if not p.leading and not p.special]
    rng.shuffle(follows)
    for p in follows:
        in_suit = [c for c in p.cards if p.klass[c] == p.lead_class]
        other = [c for c in range(54) if p.before[c] > p.cards.count(c)
                 and p.klass[c] != p.lead_class]
        if in_suit and other:
            new = list(p.cards)
            new[new.index(rng.choice(in_suit))] = rng.choice(other)
            _replace(events, p.index, cards=_tok(new))
            return events[p.index].seq, "follow.suit-required"
    return None


def pair_required(events, plays, rng, players):  # type: ignore[no-untyped-def]
    for p in plays:
        if p.leading or p.lead_kinds != [(2, 1)]:
            continue
        a, b = p.cards
        if a != b or p.klass[a] != p.lead_class:
            continue
        singles = [c for c in range(54) if p.klass[c] == p.lead_class and c != a
                   and p.before[c] > 0]
        if singles:
            _replace(events, p.index, cards=_tok([a, rng.choice(singles)]))
            return events[p.index].seq, "follow.pair-required"
    return None


def tractor_required(events, plays, rng, players):  # type: ignore[no-untyped-def]
    for p in plays:
        if p.leading or len(p.lead_kinds) != 1 or p.lead_kinds[0][0] != 2 or \
                p.lead_kinds[0][1] < 2:
            continue
        if any(p.klass[c] != p.lead_class for c in p.cards) or \
                any(p.cards.count(c) != 2 for c in p.cards):
            continue
        top = max(p.cards)
        spare = [c for c in range(54) if p.klass[c] == p.lead_class and c not in p.cards
                 and p.before[c] == 1]
        if spare:
            new = list(p.cards)
            new[new.index(top)] = rng.choice(spare)
            _replace(events, p.index, cards=_tok(new))
            return events[p.index].seq, "follow.tractor-required"
    return None


def throw_beatable(events, plays, rng, players):  # type: ignore[no-untyped-def]
    for i, ev in enumerate(events):
        if isinstance(ev, ThrowFail) and i + 1 < len(events) and isinstance(events[i + 1], Play):
            events[i + 1] = msgspec.structs.replace(events[i + 1], cards=list(ev.cards))
            del events[i]
            for k in range(i, len(events)):
                events[k] = msgspec.structs.replace(events[k], seq=k)
            return i, "throw.beatable"
    return None


_E = TypeVar("_E", bound=Event)


def _claim(kind: type[_E], change: Callable[[_E, random.Random, int], dict | None],
           rule: str) -> Mutation:
    def mutate(events, plays, rng, players):  # type: ignore[no-untyped-def]
        idx = [i for i, e in enumerate(events) if isinstance(e, kind)]
        rng.shuffle(idx)
        for i in idx:
            changes = change(events[i], rng, players)
            if changes:
                _replace(events, i, **changes)
                return events[i].seq, rule
        return None

    return mutate


winner_mismatch = _claim(
    TrickEnd, lambda e, r, n: {"winner": (e.winner + 1 + r.randrange(n - 1)) % n},
    "result.winner-mismatch")
trick_points = _claim(TrickEnd, lambda e, r, n: {"points": (e.points or 0) + 5},
                      "result.trick-points-mismatch")
points_mismatch = _claim(Result, lambda e, r, n: {"defender_points": e.defender_points + 5}
                         if e.defender_points is not None else None, "result.points-mismatch")
multiplier_mismatch = _claim(Result, lambda e, r, n: {"kitty_multiplier": (e.kitty_multiplier or 1) * 2},
                             "result.multiplier-mismatch")
level_mismatch = _claim(Result, lambda e, r, n: {"level_change": [x + 1 for x in e.level_change]}
                        if e.level_change else None, "result.level-change-mismatch")
dealer_mismatch = _claim(Result, lambda e, r, n: {"next_dealer": (e.next_dealer + 1) % n}
                         if e.next_dealer is not None else None, "result.next-dealer-mismatch")
kitty_size = _claim(KittyBury, lambda e, r, n: {"cards": e.cards[:-1]} if e.cards else None,
                    "kitty.wrong-size")
declare_not_held = _claim(Declare, lambda e, r, n: {"drawn": 0}, "declare.cards-not-held")
hand_dealer = _claim(HandStart, lambda e, r, n: {"dealer": (e.dealer + 1) % n}
                     if e.dealer is not None and e.hand > 1 else None, "hand.dealer-mismatch")

def bid_not_lower(events, plays, rng, players):  # type: ignore[no-untyped-def]
    bids = [i for i, e in enumerate(events) if isinstance(e, Bid)]
    if len(bids) < 2:
        return None
    k = rng.randrange(1, len(bids))
    _replace(events, bids[k], points=events[bids[k - 1]].points)
    return events[bids[k]].seq, "auction.not-lower"


def auction_out_of_turn(events, plays, rng, players):  # type: ignore[no-untyped-def]
    idx = [i for i, e in enumerate(events) if isinstance(e, (Bid, Pass))]
    # not the first pair: the first bid or pass sets where the auction starts (D-1)
    pairs = [(a, b) for a, b in itertools.pairwise(idx[1:])
             if b == a + 1 and events[a].seat != events[b].seat]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    ea, eb = events[a], events[b]
    events[a] = msgspec.structs.replace(ea, seat=eb.seat)
    events[b] = msgspec.structs.replace(eb, seat=ea.seat)
    return ea.seq, "auction.out-of-turn"


def trump_after_kitty(events, plays, rng, players):  # type: ignore[no-untyped-def]
    for i, e in enumerate(events):
        if isinstance(e, TrumpChosen) and e.seat is not None and i + 1 < len(events) and \
                isinstance(events[i + 1], KittyTake):
            take = events[i + 1]
            events[i] = msgspec.structs.replace(take, seq=e.seq)
            events[i + 1] = msgspec.structs.replace(e, seq=take.seq)
            return take.seq, "auction.trump-after-kitty"
    return None


settlement_mismatch = _claim(
    Result, lambda e, r, n: {"settlement": [x + (1 if i == 0 else 0)
                                         for i, x in enumerate(e.settlement)]}
    if e.settlement else None, "result.settlement-mismatch")

MUTATIONS: dict[str, Mutation] = {
    "auction.not-lower": bid_not_lower,
    "auction.out-of-turn": auction_out_of_turn,
    "auction.trump-after-kitty": trump_after_kitty,
    "result.settlement-mismatch": settlement_mismatch,
    "play.card-not-held": card_not_held,
    "play.out-of-turn": out_of_turn,
    "play.wrong-count": wrong_count,
    "follow.suit-required": suit_required,
    "follow.pair-required": pair_required,
    "follow.tractor-required": tractor_required,
    "throw.beatable": throw_beatable,
    "result.winner-mismatch": winner_mismatch,
    "result.trick-points-mismatch": trick_points,
    "result.points-mismatch": points_mismatch,
    "result.multiplier-mismatch": multiplier_mismatch,
    "result.level-change-mismatch": level_mismatch,
    "result.next-dealer-mismatch": dealer_mismatch,
    "kitty.wrong-size": kitty_size,
    "declare.cards-not-held": declare_not_held,
    "hand.dealer-mismatch": hand_dealer,
}


def inject_violations(events: Iterable[Event], *, rate: float, seed: int, rules: Ruleset,
                      kinds: list[str] | None = None) -> tuple[Iterator[Event], list[Label]]:
    """Mutate a fraction ``rate`` of hands; returns the events (streaming) and the labels list,
    which fills as the events are consumed."""
    labels: list[Label] = []
    rng = random.Random(f"inject:{seed}")
    names = kinds or list(MUTATIONS)

    def run() -> Iterator[Event]:
        header: MatchStart | None = None
        current: list[Event] = []
        mutated_last: set[str] = set()  # matches whose previous hand was mutated

        def flush() -> Iterator[Event]:
            if not current:
                return
            match = current[0].match
            hand = Hand(match=match, number=current[0].hand, events=list(current),
                        header=header)
            if rng.random() < rate:
                # The dealer check of a hand after a mutated one accepts the recorded result
                # too, so a wrong dealer could go unseen there: not injected after a mutation.
                allowed = [n for n in names
                           if not (n == "hand.dealer-mismatch" and match in mutated_last)]
                before = len(labels)
                yield from _mutate(hand, rules, rng, allowed, labels)
                if len(labels) > before:
                    mutated_last.add(match)
                else:
                    mutated_last.discard(match)
            else:
                mutated_last.discard(match)
                yield from current
            current.clear()

        for ev in events:
            if isinstance(ev, MatchStart):
                yield from flush()
                header = ev
                yield ev
                continue
            if current and (ev.match, ev.hand) != (current[0].match, current[0].hand):
                yield from flush()
            current.append(ev)
        yield from flush()

    return run(), labels


def _mutate(hand: Hand, rules: Ruleset, rng: random.Random, names: list[str],
            labels: list[Label]) -> list[Event]:
    events = list(hand.events)
    plays = _plays(hand, rules)
    order = list(names)
    rng.shuffle(order)
    for name in order:
        trial = list(events)
        found = MUTATIONS[name](trial, plays, rng, rules.players)
        if found is not None:
            seq, rule = found
            labels.append(Label(match=hand.match, hand=hand.number, seq=seq, rule=rule))
            return trial
    return events
