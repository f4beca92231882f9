"""Phase 4, the tricks (出牌): the card order fixed before the first play, each lead and
follow judged (:mod:`replay.phases.follow`, :mod:`replay.phases.throws`), and each completed
trick's winner, points and the next leader.

Asks of the ruleset (its "tricks" section): ``order``, ``special_lead``,
``pattern_strength``, ``other_leaders`` (and, through follow and throws, the rest of it).
"""

from __future__ import annotations

from typing import Final

from gamelog.cards import Card, Rank, Suit
from replay.order import TRUMP, CardOrder
from replay.phases.follow import core_judge, follow, follow_special
from replay.phases.throws import forced_lead, thrown_lead
from replay.state import INDEX, RANK_OF, HandState
from replay.trick import Trick, TrickPlay, play_strength, strength_bound
from replay.units import Unit, decompose
from replay.violations import show

_ORDERS: Final[dict[tuple[int, Suit | None, Rank | None], CardOrder]] = {}
"""Each ruleset's card order by its memo key, trump and level (an order is immutable)."""


def begin(s: HandState) -> None:
    """Fix the card order (trump and level settled) and who leads first."""
    level = RANK_OF.get(s.level) if s.level != "NT" else None  # type: ignore[arg-type]
    key = (s.rules.memo_key, s.trump, level)
    order = _ORDERS.get(key)
    if order is None:
        if len(_ORDERS) > 1000:
            _ORDERS.clear()
        order = _ORDERS[key] = s.rules.order(s.trump, level)
    s.order = order
    s.judge = core_judge(s.rules, order)
    klass = s.order.klass
    class_left = []
    for held in s.held:
        counts = [0, 0, 0, 0, 0]
        for c in range(54):
            n: int = held[c]
            if n:
                k = klass[c]
                before: int = counts[k]
                counts[k] = before + n
        class_left.append(counts)
    s.class_left = class_left
    if s.leader is None:
        s.leader = s.declarer
    if s.dealt_kitty is not None and not s.kitty_buried:
        s.violation("kitty.not-buried",
                    "play starts before the declarer has buried the kitty.",
                    seat=s.declarer)


def play(s: HandState, seat: int, tokens: list[str]) -> Trick | None:
    """One seat's cards (tokens) to the trick (after :func:`begin`), at event ``s.seq``;
    the trick when this play completed it."""
    order = s.order
    assert order is not None
    if len(tokens) == 1:
        cards = [INDEX[tokens[0]]]
    else:
        cards = [INDEX[t] for t in tokens]
        if not cards:
            s.violation("play.wrong-count", f"seat {seat} plays no cards.", seat=seat)
            return None
    trick = s.trick
    leading = trick is None
    if trick is None:
        trick = _open_trick(s, seat)
        expected = s.leader
    else:
        expected = (trick.plays[-1].seat + 1) % s.players
    if expected is not None and seat != expected:
        if s.gaps:  # a play line was lost: everything after it would be out of step
            s.log.notice(f"seat {seat} plays when it is seat {expected}'s turn, after a "
                         "line of this hand that could not be read (see its record "
                         "problems); the rest of the hand is not checked", s.seq)
            s.stopped = s.undetermined = True
            return None
        what = "lead" if leading else "play"
        s.violation("play.out-of-turn",
                    f"seat {seat} plays, but it is seat {expected}'s turn to {what}.",
                    seat=seat, required=f"seat {expected} plays")
    held: list[int] = s.held[seat]
    suit_before: dict[int, int] | None = None
    known_before = 0
    if not leading:
        assert s.class_left is not None
        lead_class = trick.lead_class
        known_before = s.class_left[seat][lead_class]
        if known_before and (len(cards) > 1 or trick.lead_size > 1):
            klass_of = order.klass
            in_suit = 0
            for c in cards:
                if klass_of[c] == lead_class:
                    in_suit += 1
            if in_suit < min(trick.lead_size, known_before):  # short of the suit: the
                # violation lists what it held (a follow in suit rebuilds it when it must)
                suit_before = {c: held[c] for c in order.members[lead_class] if held[c]}
    hidden_before = s.hidden[seat]
    missing = s.remove(seat, cards)
    if missing:
        s.violation("play.card-not-held",
                    f"seat {seat} plays {show(missing)}, which it does not hold.",
                    seat=seat, cards=missing)
    klass = order.klass
    void = s.void[seat]
    if void:
        for c in cards:
            if klass[c] in void and c not in missing:
                s.violation("follow.revoke",
                            f"seat {seat} plays {Card(c).symbol}, a card of a suit it "
                            "showed it did not have on an earlier trick.", seat=seat,
                            cards=[c])
                void.discard(klass[c])
                break
    if leading:
        _lead(s, trick, seat, cards, True)
    elif trick.special:
        follow_special(s, seat, cards, hidden_before)
    else:
        follow(s, seat, cards, suit_before, known_before, hidden_before)
    plays = trick.plays
    seq = s.seq
    assert seq is not None
    plays.append(TrickPlay(seat, cards, seq))
    if len(plays) == s.players:
        return _finish_trick(s, trick)
    return None


def _open_trick(s: HandState, seat: int) -> Trick:
    """The next trick, led by ``seat``: the last winner, or another seat that may lead it
    (a reading the rules leave open, ruling 12), which then becomes the leader."""
    leader = s.leader
    if leader is not None and seat != leader and seat in s.other_leaders:
        leader = s.leader = seat
    trick = s.trick = Trick(s.tricks_before + len(s.tricks) + 1,
                            leader if leader is not None else seat)
    return trick


def play_legal(s: HandState, seat: int, cards: list[int], seq: int) -> Trick | None:
    """A play known to be legal, at sequence number ``seq``, by a seat with no hidden cards: a
    rollout's or a search's, chosen among the legal plays of a world where every card is
    placed (a lead that is a throw already judged to stand). What :func:`play` does to the
    state, without the checks such a play cannot fail (``tests/test_playout.py`` holds the two
    to the same tricks); the trick when this play completed it."""
    trick = s.trick
    leading = trick is None
    if trick is None:
        trick = _open_trick(s, seat)
    s.remove(seat, cards)
    if leading:
        _lead(s, trick, seat, cards, False)
    plays = trick.plays
    plays.append(TrickPlay(seat, list(cards), seq))  # the caller may reuse its list
    if len(plays) == s.players:
        return _finish_trick(s, trick)
    return None


def _lead(s: HandState, trick: Trick, seat: int, cards: list[int], checked: bool) -> None:
    """A lead's units and kind set on the trick; ``checked``: judged too (a throw that may
    fail, a lead of mixed suits, a forced play after a failed throw)."""
    order = s.order
    assert order is not None
    if len(cards) >= 4 and s.pending_forced is None:
        special = s.rules.special_lead(cards, order)
        if special is not None:  # led as a trump lead (视为吊主); only its like wins
            trick.special = special
            trick.lead_class = TRUMP
            trick.lead_units = []
            trick.lead_size = len(cards)
            trick.lead_kinds = []
            trick.singles_only = False
            return
    forced = s.pending_forced
    if len(cards) == 1 and forced is None:  # a single: nothing more to check
        card = cards[0]
        trick.lead_class = order.klass[card]
        trick.lead_units = [Unit(1, 1, order.power[card], (card,))]
        trick.lead_size = 1
        trick.lead_kinds = [(1, 1)]
        return
    classes = {order.klass[c] for c in cards}
    trick.lead_class = order.klass[cards[0]]
    s.pending_forced = None
    if len(classes) > 1:
        s.violation("lead.mixed-suits",
                    f"seat {seat} leads {show(cards)}, cards of more than one suit.",
                    seat=seat, cards=cards, required="a lead of one suit")
        cards = [c for c in cards if order.klass[c] == trick.lead_class]
    trick.lead_units = ([Unit(1, 1, order.power[cards[0]], (cards[0],))] if len(cards) == 1
                        else decompose(cards, order))
    trick.lead_size = len(cards)
    trick.lead_kinds = [u.kind for u in trick.lead_units]
    trick.singles_only = all(k == (1, 1) for k in trick.lead_kinds)
    if forced is not None:
        forced_lead(s, trick, seat, cards, forced)
    elif len(trick.lead_units) > 1:
        if checked:
            thrown_lead(s, trick, seat, cards)
        else:
            trick.throw = True


def _finish_trick(s: HandState, trick: Trick) -> Trick:
    """The trick's winner (ruling 7), its points to the defenders if they won it, and the
    next leader."""
    order = s.order
    assert order is not None
    kinds = trick.lead_kinds
    lead_class = trick.lead_class
    points = s.points_table
    rules = s.rules
    best = -1  # the winning play's strength as rank * 2**16 + value (-1: none yet)
    winner = trick.plays[0].seat
    total = 0
    klass = order.klass
    special = trick.special
    judge = s.judge
    first = True
    for p in trick.plays:
        cards = p.cards
        for c in cards:
            total += points[c]
        if first:
            p.role = "lead"
            first = False
        elif all(klass[c] == lead_class for c in cards):
            p.role = "follow"
        elif lead_class != TRUMP and all(klass[c] == TRUMP for c in cards):
            p.role = "trump"
        else:
            p.role = "discard"
        if special:
            key = rules.pattern_strength(special, cards, order)
            code = -1 if key is None else key[0] * 65536 + key[1]
        elif best >= 0 and strength_bound(order, lead_class, cards) <= best:
            continue  # cannot win: not valued
        else:  # the C core's play_strength where it is built (-2: not asked, or past its sizes)
            code = judge.strength(lead_class, kinds, cards) \
                if judge is not None and len(cards) > 1 else -2
            if code == -2:
                key = play_strength(order, lead_class, kinds, cards)
                code = -1 if key is None else key[0] * 65536 + key[1]
        if code > best:  # -1 (cannot win) never is
            best, winner = code, p.seat
    trick.trumped = best >= 65536
    trick.winner = winner
    trick.points = total
    if not s.team_side(winner):
        s.defender_points += total
    s.tricks.append(trick)
    s.trick = None
    s.leader = winner
    s.other_leaders = rules.other_leaders([(p.seat, p.cards) for p in trick.plays], winner,
                                          order) if rules.has_other_leaders else []
    return trick
