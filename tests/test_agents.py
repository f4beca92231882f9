"""The simulator's heuristic agent (replay/agents.py), judged on positions of simulated hands:
it weighs every legal follow (not a few drawn at random), feeds points only to a partner's
play that no opponent still to play can beat, and leads a side suit's master as sure only when
no opponent has shown a void in it."""

from __future__ import annotations

import random
from collections.abc import Iterator

import replay
from gamelog.cards import Card
from gamelog.model import Hand, Play
from replay.agents import HeuristicAgent, SeatView
from replay.engine import HandReplay, play_strength
from replay.legal import FollowSpec, follow_spec
from replay.order import TRUMP
from replay.simulate import _view, simulate_match
from replay.trick import voids_shown
from replay.units import decompose


def _follows(decks: int, matches: int) -> Iterator[tuple[HandReplay, int, SeatView, FollowSpec]]:
    """Every follow of simulated tractor hands, as the seat to play saw it."""
    rules = replay.get_ruleset("tractor", players=4, decks=decks)
    for m in range(matches):
        events = simulate_match(rules, f"agents-{m}", 500 + m, hands=2)
        for number in (1, 2):
            hand_events = [e for e in events if e.hand == number]
            hand = Hand(match=events[0].match, number=number, events=hand_events,
                        header=events[0])
            state = HandReplay(rules, hand)
            for ev in hand_events:
                if isinstance(ev, Play) and state.trick is not None and state.order is not None:
                    yield state, ev.seat, _view(state, ev.seat, state.order), \
                        follow_spec(state, ev.seat)
                state.apply(ev)


def _winning(view: SeatView) -> tuple[int, tuple[int, int] | None]:
    """The seat winning the trick in progress, and its play's strength."""
    trick, order = view.trick, view.order
    assert trick is not None and order is not None
    kinds = [u.kind for u in trick.lead_units]
    best, seat = None, trick.leader
    for p in trick.plays:
        key = play_strength(order, trick.lead_class, kinds, p.cards)
        if key is not None and (best is None or key > best):
            best, seat = key, p.seat
    return seat, best


def test_the_last_seat_takes_a_trick_with_points_whenever_one_of_its_cards_can():
    """Last to a single-card side-suit trick that an opponent is winning with points on it,
    holding cards of the led suit of which one wins: it wins, whatever its random draws (with
    five follows drawn at random, one card among six of the suit was missed 40 % of the
    time)."""
    checked = 0
    for state, _seat, view, spec in _follows(decks=1, matches=60):
        trick, order = view.trick, view.order
        assert trick is not None and order is not None
        if len(trick.plays) != 3 or trick.lead_size != 1 or trick.lead_class == TRUMP \
                or trick.special or sum(Card(c).points for p in trick.plays for c in p.cards) == 0:
            continue
        winner, best = _winning(view)
        if view.partner_side(winner) or best is None:
            continue
        suit = [c for c in order.members[trick.lead_class] if view.hand[c]]
        winners = [c for c in suit
                   if (play_strength(order, trick.lead_class, [(1, 1)], [c]) or (0, 0)) > best]
        if len(suit) < 3 or not winners:
            continue
        for draw in range(5):
            played = HeuristicAgent(random.Random(draw)).follow(view, spec)
            assert played[0] in winners, (state.hand.match, trick.number, played, winners)
        checked += 1
    assert checked >= 5, checked


def test_points_go_to_a_partner_only_when_no_opponent_left_can_ruff():
    """The partner winning a side-suit single, an opponent still to play who has shown a void
    in that suit (and none in trumps): no point card is fed onto the trick while a pointless
    follow is there to play."""
    checked = 0
    for _, seat, view, spec in _follows(decks=1, matches=40):
        trick, order = view.trick, view.order
        assert trick is not None and order is not None
        if len(trick.plays) != 2 or trick.lead_size != 1 or trick.lead_class == TRUMP \
                or trick.special:
            continue
        winner, _ = _winning(view)
        if not view.partner_side(winner) or order.klass[
                next(p.cards for p in trick.plays if p.seat == winner)[0]] == TRUMP:
            continue
        last = (seat + 1) % view.players
        voids = voids_shown(order, [*view.tricks, trick], view.players)
        if trick.lead_class not in voids[last] or TRUMP in voids[last]:
            continue
        follows = spec.follows(48) or []
        if not any(Card(c).points for f in follows for c in f) or \
                not any(Card(f[0]).points == 0 for f in follows):
            continue
        for draw in range(5):
            played = HeuristicAgent(random.Random(draw)).follow(view, spec)
            assert Card(played[0]).points == 0, (trick.number, played)
        checked += 1
    assert checked >= 3, checked


def test_a_master_card_is_not_led_as_sure_into_a_shown_void():
    """An ace no unseen card beats is sure in its suit, but not against an opponent who has
    shown a void in that suit and may still hold trumps."""
    agent = HeuristicAgent(random.Random(0))
    checked = 0
    for _, _seat, view, _ in _follows(decks=1, matches=12):
        order = view.order
        assert order is not None
        tricks = view.tricks if view.trick is None else [*view.tricks, view.trick]
        voids = voids_shown(order, tricks, view.players)
        for klass in range(4):
            held = [c for c in order.members[klass] if view.hand[c]]
            if not held:
                continue
            top = max(held, key=lambda c: order.power[c])
            unit = decompose([top], order)[0]
            in_suit = agent._sure(view, unit, klass, [set() for _ in voids])
            ruffed = any(klass in voids[s] and TRUMP not in voids[s]
                         for s in range(view.players) if not view.partner_side(s))
            assert agent._sure(view, unit, klass, voids) == (in_suit and not ruffed)
            checked += in_suit and ruffed
    assert checked >= 3, checked
