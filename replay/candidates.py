"""The alternatives of a recorded decision, from what the deciding seat could know (every
unit, every throw sure to stand, follows grouped past 400 candidates). Used by the review."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replay.agents import unseen_by
from replay.engine import HandReplay
from replay.legal import follow_spec, legal_leads
from replay.order import CLASS_NAMES
from replay.order import TRUMP as TRUMP_CLASS


def sure_from_view(state: HandReplay, seat: int, unit: Any, klass: int) -> bool:
    """Whether no card ``seat`` has not seen could beat ``unit`` (as if one seat held every
    unseen card of its suit: a throw of such units stands whatever the deal)."""
    from replay.units import beats_unit

    order = state.order
    assert order is not None
    unseen = unseen_by(state, seat)
    avail = {c: n for c in range(54) if (n := unseen[c]) and order.klass[c] == klass}
    return beats_unit(avail, order, unit) is None


MAX_THROWS = 64
"""Sure throws listed per suit at most (the largest first)."""


def decision_choices(state: HandReplay, seat: int, made: list[int] | None = None,
                     same: Callable[[list[int]], tuple[int, ...]] | None = None
                     ) -> tuple[list[list[int]], str | None]:
    """The alternatives of a recorded decision, from what the seat could know, up to
    equivalence (``same``, else :func:`equivalence`; ``made``, the play made, stands for its
    class), and how they were grouped (``None``: every legal play).

    A lead: every unit the seat holds, and every throw (of any number of units) that stands
    whatever the unseen cards are; a throw that some deal would make fail is represented by
    the unit it would be forced to (already listed). A follow: every legal follow, or, when
    there are more than 400 candidate card sets, one per way of choosing what decides the
    value: the cheapest follow, the one giving the most points, the strongest, and the
    cheapest keeping each other suit (deterministic: never a random subset)."""
    order = state.order
    assert order is not None
    trick = state.trick
    grouped: str | None = None
    found: list[list[int]] = []
    if trick is None or not trick.plays:
        for lead in legal_leads(state, seat, max_throw_units=1):
            found.append(list(lead.cards))
        rules = state.rules
        for klass in range(len(CLASS_NAMES)):
            if klass == TRUMP_CLASS and not rules.trump_throws:
                continue
            holding = state.class_holding(seat, klass)
            if not holding:
                continue
            from replay.legal import units_in

            sure = [u for u in units_in(holding, order, rules.max_width())
                    if sure_from_view(state, seat, u, klass)]
            throws = _throws_of(sure, holding, order)
            if len(throws) > MAX_THROWS:
                throws.sort(key=len, reverse=True)
                throws = throws[:MAX_THROWS]
                grouped = f"the {MAX_THROWS} largest sure throws per suit"
            found.extend(throws)
    else:
        spec = follow_spec(state, seat)
        listed = spec.enumerate(limit=400)
        if listed is not None:
            found = listed
        else:
            power = order.power
            points = state.points_table
            keys: list[Callable[[int], Any]] = [
                lambda c: (points[c], power[c]),          # the cheapest
                lambda c: (-points[c], power[c]),         # the most points (to a partner)
                lambda c: (-power[c], points[c]),         # the strongest
            ]
            for k in range(len(CLASS_NAMES)):  # the cheapest, keeping suit k
                keys.append(lambda c, k=k: (order.klass[c] == k, points[c], power[c]))
            found = spec.lowest_each(keys)
            grouped = ("one follow per way of choosing what decides the value (cheapest, most "
                       "points, strongest, keeping each suit): more than 400 candidates")
    if same is None:
        same = equivalence(state, seat)
    seen: dict[tuple[int, ...], int] = {}
    out: list[list[int]] = []
    for cards in found:
        key = same(cards)
        if key not in seen:
            seen[key] = len(out)
            out.append(sorted(cards, key=order.sort_key))
    if made is not None and (at := seen.get(same(made))) is not None:
        out[at] = sorted(made, key=order.sort_key)  # the play made stands for its class
    return out, grouped


def equivalence(state: HandReplay, seat: int) -> Callable[[list[int]], tuple[int, ...]]:
    """A key on the seat's plays, equal for plays that are the same up to equivalence from
    what the seat could know: identical cards, and touching cards — singles of one suit and
    class, worth the same points, one copy each in its hand, with no card it has not seen
    and no card of the trick on the table ranking between them or level with them
    (:func:`replay.search.touching_lowest`); whichever of them it plays, every deal of the
    unseen cards plays on alike. Not in 打万分, nor when the record hides some of the seat's
    cards."""
    from replay.search import touching_lowest

    order = state.order
    assert order is not None
    lowest: dict[int, int] = {}
    if not state.hidden[seat] and not state.rules.pattern_kinds:
        power, klass = order.power, order.klass
        unseen = unseen_by(state, seat)
        if state.trick is not None:
            for p in state.trick.plays:
                for c in p.cards:
                    unseen[c] += 1
        live: dict[int, list[int]] = {}
        for c in range(54):
            if unseen[c]:
                live.setdefault(klass[c], []).append(power[c])
        lowest = touching_lowest(state, seat, live, list(range(54)))

    def key(cards: list[int]) -> tuple[int, ...]:
        return tuple(sorted(lowest.get(c, c) for c in cards))

    return key


def _throws_of(units: list[Any], holding: dict[int, int], order: Any) -> list[list[int]]:
    """Every union of two or more of ``units`` that fits ``holding`` and reads back as that
    many units (a lead is decomposed as the rules do)."""
    import itertools

    from replay.units import decompose

    out: list[list[int]] = []
    seen: set[tuple[int, ...]] = set()
    for k in range(2, len(units) + 1):
        for combo in itertools.combinations(units, k):
            cards = sorted(c for u in combo for c in u.all_cards())
            if any(cards.count(c) > holding.get(c, 0) for c in set(cards)):
                continue
            key = tuple(cards)
            if key in seen or len(decompose(cards, order)) < 2:
                continue
            seen.add(key)
            out.append(cards)
            if len(out) > 4 * MAX_THROWS:
                return out
    return out

