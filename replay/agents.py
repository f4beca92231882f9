"""Players for the simulator: what a seat sees, and a heuristic agent.

An agent is any object with the four methods of :class:`Agent`; each gets a :class:`SeatView`
(the seat's own cards, the table so far, the cards it has not seen) and never another seat's
holding. Users plug in their own bots the same way.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from gamelog.cards import SUITS, Card, Suit
from replay.engine import HandReplay, Trick, play_strength
from replay.legal import FollowSpec, units_in
from replay.order import TRUMP, CardOrder
from replay.rulesets.base import Declaration, Ruleset
from replay.trick import voids_shown
from replay.units import Unit, beats_unit, decompose


@dataclass
class SeatView:
    """Everything one seat may know at its turn."""

    seat: int
    players: int
    rules: Ruleset
    hand: list[int]            # count vector of the seat's cards
    order: CardOrder | None    # None during the deal
    declarer: int | None
    trick: Trick | None        # the trick in progress
    tricks: list[Trick]
    unseen: list[int]          # count vector of cards the seat has not seen
    points: int                # defenders' points so far
    state: HandReplay | None = None
    """The hand's replay, as the simulator gives it (``None`` elsewhere): read only through
    the seat's knowledge (:func:`replay.deals.knowledge`), as :mod:`replay.lookahead` does to
    draw the unseen cards; another seat's holding stays out of an agent's reach."""

    def holding(self, klass: int) -> dict[int, int]:
        assert self.order is not None
        return {c: self.hand[c] for c in self.order.members[klass] if self.hand[c]}

    def partner_side(self, seat: int) -> bool:
        if self.declarer is None:
            return False
        side = self.rules.declarer_side(self.declarer)
        return (seat in side) == (self.seat in side)


def unseen_by(st: HandReplay, seat: int) -> list[int]:
    """Cards ``seat`` has not seen (a count vector): not in its hand, not played, and not the
    kitty when it is the declarer (who took it)."""
    unseen = [st.rules.decks] * 54
    for c in range(54):
        unseen[c] -= st.held[seat][c]
    for t in st.tricks:
        for p in t.plays:
            for c in p.cards:
                unseen[c] -= 1
    if st.trick is not None:
        for p in st.trick.plays:
            for c in p.cards:
                unseen[c] -= 1
    if seat == st.declarer:
        for c in st.kitty:
            unseen[c] -= 1
    return [max(0, n) for n in unseen]


def seat_view(st: HandReplay, seat: int, order: CardOrder | None) -> SeatView:
    """What ``seat`` sees at its turn, the hand's state carried for sampling (see
    :attr:`SeatView.state`)."""
    unseen = unseen_by(st, seat)
    return SeatView(seat, st.players, st.rules, list(st.held[seat]), order, st.declarer,
                    st.trick, st.tricks, unseen, st.defender_points, st)


class Agent(Protocol):
    def declare(self, view: SeatView, options: list[tuple[list[int], Declaration]]
                ) -> list[int] | None: ...

    def bid(self, view: SeatView, lowest: int | None) -> int | None: ...

    def name_trump(self, view: SeatView) -> Suit: ...

    def surrender(self, view: SeatView, contract: int | None) -> bool: ...

    def bury(self, view: SeatView, count: int) -> list[int]: ...

    def lead(self, view: SeatView) -> list[int]: ...

    def follow(self, view: SeatView, spec: FollowSpec) -> list[int]: ...


FOLLOWS_CONSIDERED = 48
"""The heuristic agent weighs every legal follow when there are at most this many (else the
cheapest and five drawn at random)."""

TRUMP_PREMIUM = 40
"""What a trump costs the heuristic agent to give up, over its rank in the trump suit: a trump
is worth keeping for a later ruff and for the last trick (and the kitty). (Measured by
duplicate play, bench/agent_duel.py, as every weight here.)"""

MASTER_PREMIUM = 30
"""What a master card (no card the seat has not seen ranks above it in its suit) costs to
give up: it wins a later round."""

LEAD_POINTS = 3
"""A low single led: each of its points weighs as this many ranks (a 5 or a 10 is not led as
a low card)."""

LEAD_TRUMP = 20
"""A low single led: a trump weighs as this many ranks more."""

PAIR_PREMIUM = 20
"""What breaking a pair costs the heuristic agent to follow with (a card of a pair it holds
given alone): pairs follow pairs and beat singles (+1.0 points a hand at two decks in duplicate
play against no premium; 5 to 30 alike)."""

FEED_COST = 0.1
"""Fed to a partner's winning play, each rank of a card's cost weighs this many points: a
trump's premium is 4, so a 5 of trumps stays back while a plain low card can go, a 10 does not
(0.01 until session 33; duplicate play +0.09 points a hand at one deck and +0.17 at two at 0.1,
−0.15 and +0.03 at 0.2)."""

MASTER_TRUMP_POINTS = 10
"""A trick with fewer points than this on the table is not taken with a master trump (one that
no trump the seat has not seen ranks above): that trump is kept for a trick worth it, and for
the last trick (measured at one deck and at two: 10 whatever the decks)."""


class HeuristicAgent:
    """A plausible player: keeps pairs and tractors together, takes every trick it can (surely,
    when there are points on it; with a master trump only when there are 10 or more), feeds
    points to a partner no opponent left can beat, keeps trumps and masters while plain cards can
    go, throws when the throw is sure to stand (and now and then when it is not), leads low
    singles that are neither points nor trumps (a defender keeps its master trump singles: it
    leads one only before a point card or another trump), buries low non-point cards."""

    def __init__(self, rng: random.Random, bold: float = 0.04) -> None:
        self.rng = rng
        self.bold = bold

    # -- the deal ---------------------------------------------------------------------------------

    def declare(self, view: SeatView, options: list[tuple[list[int], Declaration]]
                ) -> list[int] | None:
        if not options:
            return None
        best = None
        for cards, decl in options:
            strength = self._suit_strength(view, decl)
            if strength >= 0.3 + 0.1 * decl.step and (best is None or decl.step > best[1].step):
                best = (cards, decl)
        return best[0] if best else None

    # -- the auction (标分) -------------------------------------------------------------------------

    def _limit(self, view: SeatView) -> int:
        """The fewest points this hand dares to allow the defenders: strong hands bid lower."""
        hand = view.hand
        big = hand[52] * 3 + hand[53] * 3 + sum(hand[s * 13] for s in range(4)) * 2  # jokers, 2s
        aces = sum(hand[s * 13 + 12] for s in range(4))
        longest = max(sum(hand[s * 13 + r] for r in range(13)) for s in range(4))
        strength = big + aces + max(0, longest - 6) * 2
        return min(80, max(45, 115 - 5 * (strength // 2)))

    def bid(self, view: SeatView, lowest: int | None) -> int | None:
        limit = self._limit(view) + 5 * self.rng.randrange(0, 2)
        target = 80 if lowest is None else lowest - 5
        return target if target >= limit else None

    def name_trump(self, view: SeatView) -> Suit:
        counts = [sum(view.hand[s * 13 + r] * (1 + r / 13) for r in range(1, 13)) for s in range(4)]
        return SUITS[max(range(4), key=counts.__getitem__)]

    def surrender(self, view: SeatView, contract: int | None) -> bool:
        return contract is not None and contract >= 55 and self._limit(view) >= contract \
            and self.rng.random() < 0.15

    @staticmethod
    def _suit_strength(view: SeatView, decl: Declaration) -> float:
        held = sum(view.hand)
        if held == 0:
            return 0.0
        jokers = view.hand[52] + view.hand[53]
        if decl.trump is None:
            return (jokers * 2) / held
        suit_cards = sum(view.hand[Card.of(r, decl.trump)] for r in range(2, 15))
        return (suit_cards + jokers) / held

    def bury(self, view: SeatView, count: int) -> list[int]:
        order = view.order
        assert order is not None
        cards = [c for c in range(54) for _ in range(view.hand[c])]

        def keep_value(c: int) -> tuple[int, int, int, int]:
            trump = order.klass[c] == TRUMP
            paired = view.hand[c] >= 2
            return (int(trump), int(paired), int(Card(c).points > 0), order.power[c])

        return sorted(cards, key=keep_value)[:count]

    # -- leading ----------------------------------------------------------------------------------

    def _sure(self, view: SeatView, unit: Unit, klass: int, voids: list[set[int]]) -> bool:
        """No opponent can beat ``unit`` led (see :func:`_unbeaten`)."""
        opponents = [s for s in range(view.players)
                     if s != view.seat and not view.partner_side(s)]
        return _unbeaten(view, unit, klass, opponents, voids)

    def lead(self, view: SeatView) -> list[int]:
        order = view.order
        assert order is not None
        rng = self.rng
        options: list[tuple[float, list[int]]] = []
        voids = _voids(view)
        defender = not view.partner_side(view.declarer or 0)
        for klass in range(5):
            holding = view.holding(klass)
            if not holding:
                continue
            units = units_in(holding, order, view.rules.max_width())
            sure = [u for u in units if self._sure(view, u, klass, voids)]
            # A throw of disjoint sure units, biggest first; a defender throws no trumps that
            # are only singles (kept to ruff and for the end, as its master trump singles are)
            if (klass != TRUMP or view.rules.trump_throws) and not (
                    klass == TRUMP and defender and all(u.width == 1 for u in sure)):
                throw = _disjoint(sure, holding)
                if len(decompose(throw, order)) >= 2:
                    options.append((3.0 + rng.random(), throw))
                    if rng.random() < self.bold:
                        extra = [u for u in units if u not in sure]
                        if extra:
                            bold = _disjoint([*sure, rng.choice(extra)], holding)
                            if len(decompose(bold, order)) >= 2:
                                options.append((9.0, bold))
            for u in units:
                score = u.width * u.length + (2.0 if u in sure else 0.0)
                if klass == TRUMP:
                    score -= 1.5 if defender else 0.5
                    if defender and u.width == 1 and u in sure:
                        # a defender keeps its master trump singles to ruff and for the end
                        score = -1.0 - order.power[u.cards[0]] / 100
                if u.width == 1 and u not in sure:  # lead a low single, not a point card
                    c = u.cards[0]
                    score = -(order.power[c] + LEAD_POINTS * Card(c).points
                              + (LEAD_TRUMP if klass == TRUMP else 0)) / 20
                options.append((score + rng.random() * 0.3, u.all_cards()))
        for kind in view.rules.pattern_kinds:  # 打万分's 同花顺 / 发财 / 四季: only its like beats it
            found = view.rules.holds_pattern(kind, view.hand, order, 0)
            if found is not None:
                options.append((4.0 + len(found) / 2 + rng.random(), found))
        return max(options, key=lambda o: o[0])[1]

    # -- following ----------------------------------------------------------------------------------

    def follow(self, view: SeatView, spec: FollowSpec) -> list[int]:
        order = view.order
        trick = view.trick
        assert order is not None and trick is not None
        power = order.power.__getitem__
        candidates = spec.follows(FOLLOWS_CONSIDERED)
        if not candidates:  # too many to weigh each: a few built by rule and a few at random
            candidates = spec.lowest_each([
                lambda c: (Card(c).points, power(c)),  # the cheapest
                lambda c: (order.klass[c] != TRUMP, power(c)),  # the lowest trumps: a ruff
                lambda c: (-Card(c).points, power(c))])  # the most points: fed to a partner
            candidates += [spec.sample(self.rng) for _ in range(5)]
            ruff = _lowest_ruff(view, trick)
            if ruff is not None:
                candidates.append(ruff)
        kinds = [u.kind for u in trick.lead_units]

        def strength(cards: list[int]) -> tuple[int, int] | None:
            if trick.special:  # a special pattern: only its like competes
                return view.rules.pattern_strength(trick.special, cards, order)
            return play_strength(order, trick.lead_class, kinds, cards)

        best_now = None
        winner = None
        for p in trick.plays:
            key = strength(p.cards)
            if key is not None and (best_now is None or key > best_now):
                best_now, winner = key, p.seat
        points = sum(Card(c).points for p in trick.plays for c in p.cards)
        last = len(trick.plays) == view.players - 1
        friend_winning = winner is not None and view.partner_side(winner)

        def points_of(cards: list[int]) -> int:
            return sum(Card(c).points for c in cards)

        klass = order.klass
        top_unseen = [max((power(c) for c in order.members[k] if view.unseen[c]), default=-1)
                      for k in range(5)]

        def master(c: int) -> bool:
            """No card the seat has not seen ranks above ``c`` in its suit class."""
            return power(c) > top_unseen[klass[c]]

        def cost(cards: list[int]) -> float:
            return sum(power(c) + (TRUMP_PREMIUM if klass[c] == TRUMP else 0)
                       + (MASTER_PREMIUM if master(c) else 0)
                       for c in cards) + 3 * points_of(cards) \
                + PAIR_PREMIUM * _pairs_broken(view.hand, cards)

        voids = _voids(view)
        played = {p.seat for p in trick.plays}
        later = [s for s in range(view.players)
                 if s not in played and s != view.seat and not view.partner_side(s)]

        def stands(cards: list[int]) -> bool:
            """No opponent still to play can beat ``cards`` (see :func:`_unbeaten`). Judged
            for a lead of one unit, and for a throw by its leader (which only a ruff beats)."""
            if not later:
                return True
            if trick.special:
                return False
            if len(trick.lead_units) > 1:  # a throw that stood: only a ruff can beat it
                lead = trick.lead_class
                return cards is trick.plays[0].cards and (
                    lead == TRUMP or not any(lead in voids[s] and TRUMP not in voids[s]
                                             for s in later))
            units = decompose(cards, order)
            return len(units) == 1 and _unbeaten(view, units[0], order.klass[cards[0]],
                                                 later, voids)

        if friend_winning:  # feed points to a partner's play no opponent can beat
            partners = next(p.cards for p in trick.plays if p.seat == winner)
            if stands(partners):
                return max(candidates, key=lambda cs: points_of(cs) - FEED_COST * cost(cs))
        winning = []
        for cs in candidates:
            key = strength(cs)
            if key is not None and (best_now is None or key > best_now):
                winning.append(cs)
        if points < MASTER_TRUMP_POINTS:  # keep master trumps for tricks worth them
            winning = [cs for cs in winning
                       if not any(klass[c] == TRUMP and master(c) for c in cs)]
        if winning:  # take the lead (measured: winning even a pointless trick gains)
            # a sure winner (a trump one only on a trick with points, or by the last seat:
            # else a joker went on a pointless trick a lower trump would take)
            sure = [cs for cs in winning if stands(cs)
                    and (points or last or not any(klass[c] == TRUMP for c in cs))]
            if sure:  # the trick is the side's: its points are safe there, so put them in
                return min(sure, key=lambda cs: cost(cs) - 6 * points_of(cs))
            if friend_winning:  # the partner may yet be beaten: do not overtake it
                return min(candidates, key=cost)
            return min(winning, key=cost)
        return min(candidates, key=cost)


def _pairs_broken(hand: list[int], cards: list[int]) -> int:
    """The pairs of ``hand`` that giving ``cards`` breaks: copies of a card given other than
    as whole pairs, out of a pair the hand held (one of three copies leaves a pair, none
    broken)."""
    return sum(hand[c] // 2 - (hand[c] - n) // 2 - n // 2 for c, n in Counter(cards).items())


def _unbeaten(view: SeatView, unit: Unit, klass: int, opponents: list[int],
              voids: list[set[int]]) -> bool:
    """``unit`` (of suit class ``klass``) is beaten by none of ``opponents``, as far as the
    seat can tell: no card it has not seen beats it in its suit, and, in a side suit, none of
    them may ruff it (shown void in the suit while it may still hold trumps)."""
    assert view.order is not None
    unseen = {c: view.unseen[c] for c in view.order.members[klass] if view.unseen[c]}
    if beats_unit(unseen, view.order, unit) is not None:
        return False
    return klass == TRUMP or not any(klass in voids[s] and TRUMP not in voids[s]
                                     for s in opponents)


def _lowest_ruff(view: SeatView, trick: Trick) -> list[int] | None:
    """The lowest trumps that match a side-suit lead unit for unit (a pair for a pair, a
    tractor for a tractor), when the seat holds none of the led suit; else ``None``."""
    order = view.order
    assert order is not None
    if trick.lead_class == TRUMP or trick.special or view.holding(trick.lead_class):
        return None
    left = view.holding(TRUMP)
    cards: list[int] = []
    for lead in sorted(trick.lead_units, key=lambda u: u.size, reverse=True):
        fits = [u for u in units_in(left, order, view.rules.max_width())
                if u.kind == lead.kind]
        if not fits:
            return None
        low = min(fits, key=lambda u: u.low)
        for c in low.cards:
            left[c] -= low.width
        left = {c: k for c, k in left.items() if k}
        cards.extend(low.all_cards())
    return sorted(cards)


def _voids(view: SeatView) -> list[set[int]]:
    """The suit classes each seat has shown a void in, as any seat saw the play."""
    assert view.order is not None
    tricks = view.tricks if view.trick is None else [*view.tricks, view.trick]
    return voids_shown(view.order, tricks, view.players)


def _disjoint(units: list[Unit], holding: dict[int, int]) -> list[int]:
    """Cards of the units, biggest first, skipping any that the holding cannot also give."""
    left = dict(holding)
    cards: list[int] = []
    for u in sorted(units, key=lambda u: (u.size, u.top), reverse=True):
        if all(left.get(c, 0) >= u.width for c in u.cards):
            for c in u.cards:
                left[c] -= u.width
            cards.extend(u.all_cards())
    return cards


class RandomAgent(HeuristicAgent):
    """A deliberately weak player for tests and benchmarks of the reviewer: it declares, bids
    and buries as :class:`HeuristicAgent` does, but leads a random unit it holds and follows
    with a random legal play."""

    def lead(self, view: SeatView) -> list[int]:
        order = view.order
        assert order is not None
        units = [u for klass in range(5) if (holding := view.holding(klass))
                 for u in units_in(holding, order, view.rules.max_width())]
        return self.rng.choice(units).all_cards()

    def follow(self, view: SeatView, spec: FollowSpec) -> list[int]:
        return spec.sample(self.rng)
