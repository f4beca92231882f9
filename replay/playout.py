"""The reviewer's rollout player: a deterministic greedy policy that sees every holding.

Decision review plays each alternative out on determinized deals (every card placed); in such
a world this player reads the other holdings, as double-dummy analysis of bridge does, and plays
by a few plain rules:

- **follow**: when its side's card already wins the trick and no opponent still to play can
  beat it, feed the most points; otherwise win with the cheapest play that no later opponent
  can beat when the trick holds points (or it plays last); otherwise play the cheapest cards,
  points last.
- **lead**: a throw of units no other seat can beat, else the strongest unit no opponent can
  beat (pairs and tractors first), else a low single of its longest side suit.

It draws nothing at random, so two playouts of the same deal that differ in one play differ
only where that play changes what follows (common random numbers with no noise of their own).

The same player is written in C (``replay/_greedy.c``): where it is built, it chooses the plays
of :func:`greedy_play_out` (every ruleset; a few rare positions stay here), several times
faster, and the plays are applied here as before. ``tests/test_native_playout.py`` holds the
two to the same plays.
"""

from __future__ import annotations

from typing import Any, Final

from replay._native import greedy_core
from replay.engine import HandReplay, Trick, play_strength
from replay.legal import FollowSpec, failing_units, follow_spec, units_in
from replay.order import TRUMP, CardOrder
from replay.phases.outcome import settle
from replay.search import apply_play, core_position, core_table, final_points, settler, solve, to_play
from replay.trick import strength_bound
from replay.units import Unit, beats_unit, best_value, decompose

_ENUMERATE: Final = 48
"""Follows enumerated in full up to this many candidates; past it, a few built ones."""


def _holding(state: HandReplay, seat: int, klass: int) -> dict[int, int]:
    """``state.class_holding``, answered at once for a class the seat holds none of (from the
    cards per class that the play keeps: most of a playout's opponents are void somewhere)."""
    left = state.class_left
    if left is not None and not left[seat][klass]:
        return {}
    return state.class_holding(seat, klass)


def greedy_play(state: HandReplay, seat: int) -> list[int]:
    """The rollout player's play for ``seat`` (a lead or a follow) in a world where every
    holding is known."""
    trick = state.trick
    if trick is None or not trick.plays:
        return greedy_lead(state, seat)
    if trick.lead_size == 1 and not trick.special:
        # a single led: any card of its suit, else any card (what follow_spec allows)
        cards = _holding(state, seat, trick.lead_class)
        if not cards:
            held = state.held[seat]
            cards = {c: held[c] for c in range(54) if held[c]}
        if len(cards) <= _ENUMERATE:
            return _choose_follow(state, seat, [[c] for c in sorted(cards)])
    return greedy_follow(state, seat, follow_spec(state, seat))


def greedy_play_out(state: HandReplay, native: bool = True) -> int:
    """Play ``state`` to the end with :func:`greedy_play` for every seat; the defenders'
    final points (what :func:`replay.rollouts.play_out` does without agents, compiled). The
    plays are chosen in C where that is built and serves the position (``native``)."""
    found = native_result(state) if native else None
    if found is not None:
        for who, cards in found[0]:
            apply_play(state, who, cards)
        return final_points(state)
    state.holding_cache = [None] * (state.players * 5)  # only plays change holdings here
    while not state.finished:
        seat = to_play(state)
        assert seat is not None and state.order is not None
        if not any(state.held[seat]):  # a broken world (cannot happen from a legal start)
            state.holding_cache = None
            return state.defender_points
        apply_play(state, seat, greedy_play(state, seat))
    state.holding_cache = None
    return final_points(state)


def greedy_value(state: HandReplay, endgame: int = 0, table: dict | None = None,
                 settle_end: Any = None) -> int:
    """What :func:`greedy_play_out` returns, the defenders' final points, leaving ``state``
    where it was when the C rollout player plays the hand (its plays are not applied here:
    the tricks' points and the last trick come back with them, and the hand is settled as
    :func:`replay.phases.outcome.finish` settles it); otherwise played out as there. For
    callers that want the value only, as the review's rollouts.

    With ``endgame``, the rollout player plays only until, at a lead, every seat holds at most
    ``endgame`` cards; the rest is valued by the exact search (:func:`replay.search.solve`,
    ``table`` one deal's search table): the last tricks played perfectly, on the C core where
    it takes the position, else here with the same plays and value. ``settle_end``: what
    settles the hand's ends for the C core there (default :func:`replay.search.settler` of
    ``state``; the review passes one that keeps each end's settlement for the decision)."""
    if endgame:
        return _value_with_endgame(state, endgame, {} if table is None else table, settle_end)
    found = native_result(state)
    if found is None:
        return greedy_play_out(state, native=False)
    _, face, winner, winning, special = found
    outcome, _ = settle(state, face, winner, winning, special)
    if outcome is not None and outcome.defender_points is not None:
        return outcome.defender_points
    return face


def _value_with_endgame(state: HandReplay, endgame: int, table: dict,
                        settle_end: Any = None) -> int:
    """:func:`greedy_value` with an exact end (see there)."""
    core: Any = greedy_core()
    position = core_position(state) if core is not None else None
    if position is not None:
        try:
            found: int | None = core.play_value(*position, endgame, core_table(table),
                                                settle_end or settler(state))
        except ValueError:  # past its fixed sizes
            found = None
        if found is not None:
            return found
    while not state.finished:
        trick = state.trick
        if (trick is None or not trick.plays) and max(sum(h) for h in state.held) <= endgame:
            return solve(state, table)
        seat = to_play(state)
        assert seat is not None and state.order is not None
        if not any(state.held[seat]):  # a broken world (cannot happen from a legal start)
            return state.defender_points
        apply_play(state, seat, greedy_play(state, seat))
    return final_points(state)


def native_result(state: HandReplay
                  ) -> tuple[list[tuple[int, list[int]]], int, int, list[int], bool] | None:
    """The plays :func:`greedy_play` would make from ``state`` to the end of the hand, each
    ``(seat, cards)``, chosen by the C rollout player, with the defenders' points from the
    tricks at the end, the last trick's winner, its winning cards and whether it was led as a
    special pattern; ``None`` when the C player is not built or does not serve this position
    (:func:`replay.search.core_position`, or what its fixed-size tables cannot hold)."""
    core: Any = greedy_core()
    if core is None:
        return None
    position = core_position(state)
    if position is None:
        return None
    try:
        found: tuple[list[tuple[int, list[int]]], int, int, list[int], bool] | None = \
            core.play_out(*position)
    except ValueError:  # past its fixed sizes (a power over 63, a play of over 128 cards)
        return None
    return found


def _opponents(state: HandReplay, seat: int) -> list[int]:
    side = state.team_side(seat)
    return [o for o in range(state.players) if o != seat and state.team_side(o) != side]


def _can_ruff(state: HandReplay, other: int, klass: int, unit: Unit,
              trumps: dict[int, int]) -> bool:
    """Whether ``other``, void in ``klass``, holds trumps (``trumps``, its trump holding) that
    could take ``unit`` led there."""
    order = state.order
    assert order is not None
    if klass == TRUMP or state.class_left is None or state.class_left[other][klass]:
        return False
    return sum(trumps.values()) >= unit.size and \
        best_value(trumps, order, [unit.kind]) is not None


def _top_power(suit: dict[int, int], order: CardOrder) -> int:
    """The highest power among the cards of ``suit`` (-1 if none)."""
    power = order.power
    top = -1
    for card, n in suit.items():
        if n and power[card] > top:
            top = power[card]
    return top


def _beaten(state: HandReplay, theirs: list[tuple[int, dict[int, int]]], tops: list[int],
            klass: int, u: Unit, trumps: dict[int, dict[int, int]],
            ruffs: dict[int, bool]) -> bool:
    """Whether an opponent (``theirs``: each with its holding of ``klass``; ``tops``: its
    highest power there) could beat ``u`` led in ``klass``: by a higher unit or a ruff
    (whether it can ruff a unit of that kind there, kept in ``ruffs`` for the lead)."""
    order = state.order
    assert order is not None
    single = u.width == 1 and u.length == 1
    for i, (o, suit) in enumerate(theirs):
        if single:
            if tops[i] > u.low:  # as beats_unit finds for a single
                return True
        elif beats_unit(suit, order, u) is not None:
            return True
        key = (o * 8 + klass) * 65536 + u.width * 256 + u.length
        ruff = ruffs.get(key)
        if ruff is None:
            ruff = ruffs[key] = _can_ruff(state, o, klass, u, trumps[o])
        if ruff:
            return True
    return False


def greedy_lead(state: HandReplay, seat: int) -> list[int]:
    order = state.order
    assert order is not None
    rules = state.rules
    points = state.points_table
    opponents = _opponents(state, seat)
    defender = not state.team_side(seat)
    # the best lead so far: its score and its cards (or the unit, made into cards at the end)
    best_score = 0.0
    best_cards: list[int] | None = None
    best_unit: Unit | None = None
    longest = -1
    trumps = {o: _holding(state, o, TRUMP) for o in opponents}  # made once, read often
    ruffs: dict[int, bool] = {}
    for klass in range(5):
        holding = _holding(state, seat, klass)
        if not holding:
            continue
        units = units_in(holding, order, state.max_width)
        theirs = [(o, _holding(state, o, klass)) for o in opponents]
        tops = [_top_power(suit, order) for _, suit in theirs]  # beats any lower single
        is_sure = [not _beaten(state, theirs, tops, klass, u, trumps, ruffs) for u in units]
        # by index: zip(..., strict=True) is a generic call when compiled
        sure = [units[i] for i in range(len(units)) if is_sure[i]]
        if len(sure) >= 2 and (klass != TRUMP or rules.trump_throws):
            throw: list[int] = []
            left = dict(holding)
            for u in sorted(sure, key=lambda u: (u.size, u.top), reverse=True):
                if all(left.get(c, 0) >= u.width for c in u.cards):
                    for c in u.cards:
                        left[c] -= u.width
                    throw.extend(u.all_cards())
            if len(decompose(throw, order)) >= 2 and not failing_units(state, seat, throw):
                score = 6.0 + len(throw) / 10
                if (best_cards is None and best_unit is None) or score > best_score:
                    best_score, best_cards, best_unit = score, throw, None
        count = sum(holding.values())
        for i in range(len(units)):
            u = units[i]
            if is_sure[i]:
                held_points = 0
                for c in u.cards:
                    held_points += points[c]
                score = 3.0 + u.size + held_points * u.width / 20
                if klass == TRUMP:
                    score -= 1.0 if defender else 0.0
            elif u.width > 1:
                score = 1.0 + u.size / 4 - order.power[u.top] / 100
            else:
                # a low single of the longest side suit; trump last
                card = u.cards[0]
                score = -order.power[card] / 100 - points[card] / 5 \
                    + (count / 100 if klass != TRUMP else -1.0)
            if (best_cards is None and best_unit is None) or score > best_score:
                best_score, best_cards, best_unit = score, None, u
        if klass != TRUMP:
            longest = max(longest, count)
    for kind in rules.pattern_kinds:  # 打万分's special patterns: only their like beats them
        found = rules.holds_pattern(kind, state.held[seat], order, 0)
        if found is not None:
            score = 8.0 + len(found) / 2
            if (best_cards is None and best_unit is None) or score > best_score:
                best_score, best_cards, best_unit = score, found, None
    if best_cards is not None:
        return best_cards
    assert best_unit is not None
    return best_unit.all_cards()


def greedy_follow(state: HandReplay, seat: int, spec: FollowSpec) -> list[int]:
    """The rollout player's follow, among the follows ``spec`` allows (a few built ones when
    they are too many to list)."""
    order = state.order
    assert order is not None
    points = state.points_table
    power = order.power
    found = spec.follows(limit=_ENUMERATE)
    if found is None:
        klass = order.klass
        found = spec.lowest_each([lambda c: (points[c], power[c]),
                                  lambda c: (-points[c], power[c]),
                                  lambda c: (klass[c] != TRUMP, -power[c]),
                                  lambda c: (klass[c] != TRUMP, power[c])])
    return _choose_follow(state, seat, found)


def _choose_follow(state: HandReplay, seat: int, found: list[list[int]]) -> list[int]:
    """The follow the rollout player makes among ``found`` (legal follows, in the order the
    search lists them: ties go to the first)."""
    order = state.order
    trick = state.trick
    assert order is not None and trick is not None
    if len(found) == 1:
        return found[0]
    points = state.points_table
    power = order.power
    kinds = [u.kind for u in trick.lead_units]
    best_now: tuple[int, int] | None = None
    winner = None
    for p in trick.plays:
        key = _strength(state, order, trick, kinds, p.cards)
        if key is not None and (best_now is None or key > best_now):
            best_now, winner = key, p.seat
    side = state.team_side(seat)
    later = [(trick.plays[0].seat + i) % state.players
             for i in range(len(trick.plays) + 1, state.players)]
    threat = _threat(state, [o for o in later if state.team_side(o) != side], kinds)
    on_table = sum(points[c] for p in trick.plays for c in p.cards)
    # each follow's points and power, summed once (ties below go to the first listed)
    pts: list[int] = []
    pws: list[int] = []
    for cs in found:
        a = b = 0
        for c in cs:
            a += points[c]
            b += power[c]
        pts.append(a)
        pws.append(b)
    pick = 0
    if winner is not None and state.team_side(winner) == side and \
            (threat is None or best_now is None or threat <= best_now):
        # the trick is ours whatever comes: feed it (the most points, then the lowest cards)
        for i in range(1, len(found)):
            if pts[i] > pts[pick] or (pts[i] == pts[pick] and pws[i] < pws[pick]):
                pick = i
        return found[pick]
    winning: list[int] = []
    lead_class = trick.lead_class
    bound = not trick.special and best_now is not None
    best_code = best_now[0] * 65536 + best_now[1] if best_now is not None else 0
    for i, cs in enumerate(found):
        if bound and strength_bound(order, lead_class, cs) <= best_code:
            continue  # cannot win: not valued
        key = _strength(state, order, trick, kinds, cs)
        if key is not None and (best_now is None or key > best_now) and \
                (threat is None or threat <= key):
            winning.append(i)
    if winning and (on_table > 0 or not later or any(pts[i] for i in winning)):
        # a sure win: the cheapest, and our own points in it
        pick = winning[0]
        for i in winning:
            if pws[i] < pws[pick] or (pws[i] == pws[pick] and pts[i] > pts[pick]):
                pick = i
        return found[pick]
    for i in range(1, len(found)):  # the cheapest: fewest points, then the lowest cards
        if pts[i] < pts[pick] or (pts[i] == pts[pick] and pws[i] < pws[pick]):
            pick = i
    return found[pick]


def _strength(state: HandReplay, order: CardOrder, trick: Trick,
              kinds: list[tuple[int, int]], cards: list[int]) -> tuple[int, int] | None:
    """How strongly ``cards`` compete in the trick in progress (a special pattern's own
    strength, else :func:`play_strength`)."""
    if trick.special:
        return state.rules.pattern_strength(trick.special, cards, order)
    return play_strength(order, trick.lead_class, kinds, cards)


def _threat(state: HandReplay, seats: list[int], kinds: list[tuple[int, int]]
            ) -> tuple[int, int] | None:
    """The strongest play any of ``seats`` could make in the trick in progress (an upper bound
    on what they will play), in :func:`play_strength` terms; ``None`` if none can compete."""
    order = state.order
    trick = state.trick
    assert order is not None and trick is not None
    if trick.special or not seats:
        return None
    k = trick.lead_class
    n = sum(u.size for u in trick.lead_units)
    out: tuple[int, int] | None = None
    for o in seats:
        suit = _holding(state, o, k)
        if suit:
            if sum(suit.values()) < n:
                continue
            value = best_value(suit, order, kinds)
            key = None if value is None else (0, value)
        elif k != TRUMP:
            trumps = _holding(state, o, TRUMP)
            if sum(trumps.values()) < n:
                continue
            value = best_value(trumps, order, kinds)
            key = None if value is None else (1, value)
        else:
            continue
        if key is not None and (out is None or key > out):
            out = key
    return out
