"""Deals of the cards a seat could not see, consistent with what it could know: drawn at
random (:func:`determinize`) or every one enumerated with its weight
(:func:`consistent_deals`). Used by the review."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gamelog.cards import CARD_BY_TOKEN
from gamelog.model import Declare
from replay._native import greedy_core
from replay.agents import unseen_by
from replay.engine import HandReplay
from replay.order import CLASS_NAMES
from replay.search import clone
from replay.trick import voids_shown


@dataclass(frozen=True)
class SeatKnowledge:
    """What a deal of the cards ``seat`` could not see must respect, read once per decision
    (:func:`knowledge`) and shared by all its deals: the other seats, the cards each must get
    (``need``) and the suit classes it may not (``voids``), the cards dealt to it first
    (``pinned``: shown in a declaration, still held), the rest to deal (``pool``), the kitty."""

    others: list[int]
    need: dict[int, int]
    voids: dict[int, set[int]]
    pinned: dict[int, list[int]]
    pool: list[int]
    kitty_size: int
    kitty_unknown: bool
    takers: list[int]
    """Per suit class, how many other seats may hold its cards (the fewest dealt first)."""


def knowledge(state: HandReplay, seat: int) -> SeatKnowledge:
    """What every deal for ``seat`` at this point must respect (see :class:`SeatKnowledge`)."""
    order = state.order
    assert order is not None
    unseen = unseen_by(state, seat)
    others = [o for o in range(state.players) if o != seat]
    need = {o: sum(state.held[o]) + state.hidden[o] for o in others}
    kitty_unknown = not (seat == state.declarer and state.kitty_buried)
    kitty_size = len(state.kitty) + state.kitty_hidden if kitty_unknown else 0
    shown = shown_voids(state)
    voids = {o: shown[o] for o in others}
    pinned = _pinned(state, others, unseen, need, voids)  # shown in declarations, still held
    pool = [c for c in range(54) for _ in range(unseen[c])]
    takers = [sum(1 for o in others if k not in voids[o]) for k in range(len(CLASS_NAMES))]
    return SeatKnowledge(others, need, voids, pinned, pool, kitty_size, kitty_unknown, takers)


def determinize(state: HandReplay, seat: int, rng: random.Random,
                known: SeatKnowledge | None = None) -> HandReplay:
    """A copy of ``state`` in which the cards ``seat`` could not see are dealt at random to the
    other seats (each keeping its number of cards and no card of a suit it has shown void in)
    and to the kitty when ``seat`` did not bury it. ``known``: :func:`knowledge` of this state
    and seat, when the caller deals many times from one decision (the same deals either way)."""
    told = known if known is not None else knowledge(state, seat)
    hands, kitty = deal(state, told, rng)
    return dealt_world(state, told, hands, kitty)


def dealt_world(state: HandReplay, told: SeatKnowledge, hands: dict[int, list[int]],
                kitty: list[int]) -> HandReplay:
    """A copy of ``state`` with the unseen cards as :func:`deal` gave them."""
    world = clone(state)
    _deal_into(world, hands, kitty if told.kitty_unknown else None)
    world.class_left = None
    _refresh(world)
    return world


def dealt_held(state: HandReplay, hands: dict[int, list[int]]) -> list[list[int]]:
    """Every seat's holding (card counts) once :func:`deal` gave the other seats ``hands``."""
    held = list(state.held)
    for o, cards in hands.items():
        held[o] = _counts(cards)
    return held


def _counts(cards: list[int]) -> list[int]:
    """A holding's card counts from its cards."""
    counts = [0] * 54
    for c in cards:
        counts[c] += 1
    return counts


def deal(state: HandReplay, told: SeatKnowledge, rng: random.Random
         ) -> tuple[dict[int, list[int]], list[int]]:
    """The cards the seat of ``told`` (:func:`knowledge`) could not see, dealt at random as
    :func:`determinize` says, every consistent deal alike: each other seat's hand and the
    kitty (empty, or unused, when the seat knows the kitty)."""
    order = state.order
    assert order is not None
    others, need, voids, base = told.others, told.need, told.voids, told.pinned
    kitty_size, takers = told.kitty_size, told.takers
    pool = list(told.pool)
    klass = order.klass
    native = type(rng) is random.Random  # draw as its methods do, without their frames
    # the cards fewest seats may hold go first (a shuffle within each group); each goes to a
    # place with room that may take it (an other seat not void in its suit, or the kitty),
    # chosen in proportion to the room each has left: with no voids a uniform deal of the
    # shuffled pool into the places, and with voids in one suit class still uniform over the
    # deals consistent with them (several: mixed by :func:`_mix`). Until session 52 a card
    # went to a seat chosen alike among those open and to the kitty only when no seat could
    # take it: a card of a suit some seat was void in was then almost never in the kitty.
    kitty_seat = -1
    places = [*others, kitty_seat] if kitty_size else list(others)
    several_voids = len({k for o in others for k in voids[o]}) > 1  # then mixed (_mix)
    for _attempt in range(20):
        _shuffle(rng, pool, native)
        pool = _by_takers(pool, takers, klass)
        hands: dict[int, list[int]] = {o: list(base[o]) for o in others}
        kitty: list[int] = []
        room = {o: need[o] - len(base[o]) for o in others}
        room[kitty_seat] = kitty_size
        # the cards left that each seat may take: a seat with no more of them than room
        # must take the next such card (else it could not be filled)
        avail = {o: sum(1 for c in pool if klass[c] not in voids[o]) for o in others}
        ok = True
        for c in pool:
            k = klass[c]
            forced = kitty_seat
            for o in others:
                if room[o] > 0 and k not in voids[o] and avail[o] == room[o]:
                    forced = o
                    break
            if forced != kitty_seat:
                o = forced
            else:
                open_places = [p for p in places
                               if room[p] > 0 and (p == kitty_seat or k not in voids[p])]
                total = sum(room[p] for p in open_places)
                if not total:
                    ok = False
                    break
                r = _below(rng, total) if native else rng.randrange(total)
                for o in open_places:
                    if r < room[o]:
                        break
                    r -= room[o]
            for q in others:
                if k not in voids[q]:
                    avail[q] -= 1
            room[o] -= 1
            (kitty if o == kitty_seat else hands[o]).append(c)
        if ok:
            if several_voids:
                _mix(hands, kitty, base, voids, klass, rng, native)
            return hands, kitty
    # the voids cannot all be kept: deal ignoring them
    _shuffle(rng, pool, native)
    hands, kitty, i = {}, [], 0
    for o in others:
        take = need[o] - len(base[o])
        hands[o] = base[o] + pool[i:i + take]
        i += take
    return hands, pool[i:i + kitty_size]


MIX_STEPS = 8
""":func:`_mix`'s steps per card of a suit some seat is void in."""


def _mix(hands: dict[int, list[int]], kitty: list[int], base: dict[int, list[int]],
         voids: dict[int, set[int]], klass: tuple[int, ...], rng: random.Random,
         native: bool) -> None:
    """Where voids were shown in several suit classes, the deal :func:`deal` made (then
    nearly, not exactly, uniform over the consistent deals: each card placed knowing nothing
    of the voids of the classes after it) mixed towards uniform in place: ``MIX_STEPS`` steps
    per card of a class some seat is void in (a constrained card), each swapping a constrained
    card chosen at random with the card at a position chosen at random among every card dealt
    (the pinned ones kept), when both may lie where they go. The swap is its own reverse,
    proposed as often both ways: every consistent deal is as likely in the long run
    (Metropolis)."""
    places = [*hands, -1]
    where: list[int] = []
    cards: list[int] = []
    for o in places:
        held = kitty if o == -1 else hands[o][len(base[o]):]
        where += [o] * len(held)
        cards += held
    void_classes = {k for o in hands for k in voids[o]}
    constrained = [i for i, c in enumerate(cards) if klass[c] in void_classes]
    m, n = len(constrained), len(cards)
    for _step in range(MIX_STEPS * m):
        a = _below(rng, m) if native else rng.randrange(m)
        j = _below(rng, n) if native else rng.randrange(n)
        i = constrained[a]
        x, y = cards[i], cards[j]
        to_j, to_i = where[j], where[i]
        if to_i == to_j or (to_j != -1 and klass[x] in voids[to_j]) \
                or (to_i != -1 and klass[y] in voids[to_i]):
            continue
        cards[i], cards[j] = y, x
        if klass[y] not in void_classes:
            constrained[a] = j  # the constrained card's new position (else both were)
    start = 0
    for o in places:
        size = len(kitty) if o == -1 else len(hands[o]) - len(base[o])
        if o == -1:
            kitty[:] = cards[start:start + size]
        else:
            hands[o][len(base[o]):] = cards[start:start + size]
        start += size


def deals_drawn(state: HandReplay, told: SeatKnowledge, rng: random.Random, n: int
                ) -> list[tuple[tuple[dict[int, list[int]], list[int]], int]]:
    """``n`` deals of :func:`deal`, each followed by a draw of ``rng.randrange(1 << 30)``
    (the review's: a deal and the seed of its agents), as ``((hands, kitty), draw)``; drawn by
    the C core where it is built and ``rng`` a plain ``random.Random`` (its Mersenne Twister
    advanced there exactly as here: the same deals, draws and state after)."""
    core: Any = greedy_core()
    order = state.order
    if core is not None and type(rng) is random.Random and order is not None:
        others = told.others
        version, words, gauss = rng.getstate()
        try:
            dealt, after = core.deal_round(
                words, n, others, [told.need[o] for o in others],
                [sum(1 << k for k in told.voids[o]) for o in others],
                [told.pinned[o] for o in others], told.pool, told.takers, list(order.klass),
                told.kitty_size)
        except ValueError:  # past the core's fixed sizes
            pass
        else:
            rng.setstate((version, after, gauss))
            return dealt  # type: ignore[no-any-return]
    return [(deal(state, told, rng), rng.randrange(1 << 30)) for _ in range(n)]


def _below(rng: random.Random, n: int) -> int:
    """A draw in ``range(n)`` exactly as ``random.Random`` makes it (CPython's rejection
    sampling on ``getrandbits``, its ``_randbelow``), without that method's Python frame."""
    k = n.bit_length()
    r: int = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def _shuffle(rng: random.Random, pool: list[int], native: bool) -> None:
    """``rng.shuffle(pool)``: the same swaps from the same draws (through :func:`_below` when
    ``native``, that is when ``rng`` is a plain ``random.Random``)."""
    if not native:
        rng.shuffle(pool)
        return
    for i in range(len(pool) - 1, 0, -1):
        j = _below(rng, i + 1)
        pool[i], pool[j] = pool[j], pool[i]


def _by_takers(pool: list[int], takers: list[int], klass: tuple[int, ...]) -> list[int]:
    """``pool`` stably ordered by how many seats may take each card's suit class (the
    fewest first): a stable sort on that key, as buckets."""
    groups: list[list[int]] = [[] for _ in range(max(takers) + 1)]
    for c in pool:
        groups[takers[klass[c]]].append(c)
    return [c for g in groups for c in g]


def consistent_deals(state: HandReplay, seat: int, limit: int = 256
                     ) -> list[tuple[float, HandReplay]] | None:
    """Every deal of the cards ``seat`` could not see that is consistent with what it could
    know (each other seat's number of cards, the suits it has shown void in, the kitty's size
    unless ``seat`` buried it), as ``(probability, world)``: each distinct deal weighted by
    how many ways the physical cards make it (identical cards of several decks are one card
    to the play). ``None`` when there are more than ``limit``."""
    from math import factorial

    order = state.order
    assert order is not None
    unseen = unseen_by(state, seat)
    others = [o for o in range(state.players) if o != seat]
    need = [sum(state.held[o]) + state.hidden[o] for o in others]
    kitty_unknown = not (seat == state.declarer and state.kitty_buried)
    if kitty_unknown:
        need.append(len(state.kitty) + state.kitty_hidden)
    shown = shown_voids(state)
    voids = [shown[o] for o in others] + ([set()] if kitty_unknown else [])
    types = [c for c in range(54) if unseen[c]]
    if sum(unseen[c] for c in types) != sum(need):
        return None  # the record hides or lacks cards: no consistent deal to enumerate
    deals: list[tuple[int, list[list[int]]]] = []
    # Pruning: the cards of types[i:] of each suit class, and for every set of slots the
    # classes one of them may take. A partial deal whose remaining cards cannot fill some set
    # of slots (Hall's condition: too few of them in classes that set is not void in) leads to
    # no deal; without this the walk could spend seconds on such dead ends before finding
    # ``limit`` deals (a 标分 defender with a large unseen kitty and voids shown).
    left: list[list[int]] = [[0] * 5 for _ in range(len(types) + 1)]
    for i in range(len(types) - 1, -1, -1):
        left[i] = list(left[i + 1])
        left[i][order.klass[types[i]]] += unseen[types[i]]
    groups: list[tuple[list[int], list[int]]] = []
    for mask in range(1, 1 << len(need)):
        members = [r for r in range(len(need)) if mask >> r & 1]
        groups.append((members, [k for k in range(5)
                                 if any(k not in voids[r] for r in members)]))

    def fillable(i: int, room: list[int]) -> bool:
        there = left[i]
        for members, classes in groups:
            wanted = 0
            for r in members:
                wanted += room[r]
            if wanted:
                have = 0
                for k in classes:
                    have += there[k]
                if have < wanted:
                    return False
        return True

    def split(n: int, slots: list[int], klass: int, room: list[int]) -> Iterator[list[int]]:
        if len(slots) == 1:
            if n <= room[slots[0]] and (n == 0 or klass not in voids[slots[0]]):
                yield [n]
            return
        first = slots[0]
        top = 0 if klass in voids[first] else min(n, room[first])
        for k in range(top, -1, -1):
            for rest in split(n - k, slots[1:], klass, room):
                yield [k, *rest]

    def walk(i: int, room: list[int], got: list[list[int]], ways: int) -> bool:
        if i == len(types):
            if not any(room):
                deals.append((ways, [list(g) for g in got]))
            return len(deals) <= limit
        if not fillable(i, room):
            return True  # no deal down this way
        c = types[i]
        n = unseen[c]
        for parts in split(n, list(range(len(need))), order.klass[c], room):
            for r, k in enumerate(parts):
                room[r] -= k
                got[r].extend([c] * k)
            div = 1
            for k in parts:
                div *= factorial(k)
            ok = walk(i + 1, room, got, ways * factorial(n) // div)
            for r, k in enumerate(parts):
                room[r] += k
                del got[r][len(got[r]) - k:]
            if not ok:
                return False
        return True

    if not walk(0, list(need), [[] for _ in need], 1) or not deals:
        return None
    held_shown = shown_in_hand(state)  # a deal must leave each seat the cards it showed
    deals = [(w, got) for w, got in deals
             if all(got[r].count(c) >= n for r, o in enumerate(others)
                    for c, n in enumerate(held_shown[o])
                    if n and order.klass[c] not in voids[r])]
    if not deals:
        return None
    total = sum(w for w, _ in deals)
    out = []
    for ways, got in deals:
        world = clone(state)
        _deal_into(world, {o: got[r] for r, o in enumerate(others)},
                   list(got[-1]) if kitty_unknown else None)
        _refresh(world)
        out.append((ways / total, world))
    return out


def shown_voids(state: HandReplay) -> list[set[int]]:
    """The suit classes (trump included) each seat has shown it holds no more of: on a trick,
    done or in progress, it followed with fewer cards of the led class than were led (the
    follow rule has it play every card of that class it holds first). Tricks led with a
    special pattern (打万分) are left out (their followers answer the pattern first). With
    what the engine itself records (``state.void``, kept where cards are hidden)."""
    out = [set(v) for v in state.void]
    if state.order is None:
        return out
    tricks = state.tricks if state.trick is None else [*state.tricks, state.trick]
    for seat, shown in enumerate(voids_shown(state.order, tricks, len(out))):
        out[seat] |= shown
    return out


def shown_in_hand(state: HandReplay) -> list[list[int]]:
    """The cards each seat is known to hold from its declarations (亮主: the cards it showed,
    the most copies of a card at once), less the copies it has played since: a count vector
    per seat. (A declarer may have buried them: rare for level cards and jokers, not counted.)"""
    n = state.players
    out = [[0] * 54 for _ in range(n)]
    for ev in state.hand.events:
        if type(ev) is Declare and 0 <= ev.seat < n:
            counts = [0] * 54
            for t in ev.cards:
                card = CARD_BY_TOKEN.get(t)
                if card is not None and 0 <= int(card) < 54:
                    counts[int(card)] += 1
            mine = out[ev.seat]
            for c in range(54):
                if counts[c] > mine[c]:
                    mine[c] = counts[c]
    tricks = state.tricks if state.trick is None else [*state.tricks, state.trick]
    for t in tricks:
        for p in t.plays:
            mine = out[p.seat]
            for c in p.cards:
                if mine[c]:
                    mine[c] -= 1
    return out


def _pinned(state: HandReplay, others: list[int], unseen: list[int], need: dict[int, int],
            voids: dict[int, set[int]]) -> dict[int, list[int]]:
    """The cards dealt to each other seat before the rest: those it showed in a declaration
    and still holds (:func:`shown_in_hand`), as far as the unseen cards, its count and the
    voids it showed allow (a void says it no longer has them); taken out of ``unseen``."""
    held = shown_in_hand(state)
    order = state.order
    assert order is not None
    base: dict[int, list[int]] = {}
    for o in others:
        cards: list[int] = []
        for c in range(54):
            if order.klass[c] in voids[o]:
                continue
            k = min(held[o][c], unseen[c], need[o] - len(cards))
            if k > 0:
                cards.extend([c] * k)
                unseen[c] -= k
        base[o] = cards
    return base


def _deal_into(world: HandReplay, hands: dict[int, list[int]], kitty: list[int] | None) -> None:
    """Give each seat of ``hands`` those cards (none hidden), and the kitty when given."""
    for o, cards in hands.items():
        world.held[o] = _counts(cards)
        world.hidden[o] = 0
    if kitty is not None:
        world.kitty = kitty
        world.kitty_hidden = 0


def _refresh(world: HandReplay) -> None:
    """Recount what the engine derives from the holdings (cards per suit class)."""
    order = world.order
    assert order is not None
    world.class_left = [[0] * len(CLASS_NAMES) for _ in range(world.players)]
    for s in range(world.players):
        for c in range(54):
            n = world.held[s][c]
            if n:
                world.class_left[s][order.klass[c]] += n


