"""Follow judgement (跟牌), for the tricks phase: the count, the led suit as far as it is held,
and structure: the played cards must show the best answer to each lead unit the holding allows
(pairs to a pair, a tractor to a tractor, ...; D-2); a special pattern's followers (ruling 15).

Asks of the ruleset (its "tricks" section): ``answers``, ``follow_rule_id``,
``special_lead``, ``pattern_kind``, ``holds_pattern``.
"""

from __future__ import annotations

from typing import Final

from replay.order import TRUMP
from replay.rulesets.base import Ruleset
from replay.state import HandState, held_list
from replay.units import Unit, counts_of, cover_all, shape_codes, shape_size, unit_name
from replay.violations import show

ANSWERS: Final[dict[tuple[int, ...], tuple[int, ...]]] = {}
"""Best answers by what decides them (see :func:`answer_ranks`)."""

_ANSWERS_TO: Final[dict[tuple[int, int, int], list[tuple[tuple[int, int], ...]]]] = {}
"""answers_to's lists, by the ruleset's memo key and the unit's kind."""


def answers_to(rules: Ruleset, kind: tuple[int, int]) -> list[tuple[tuple[int, int], ...]]:
    """The ruleset's answers to a lead unit of ``kind`` (:meth:`Ruleset.answers`), asked once
    per ruleset and kind (do not mutate the list)."""
    width, length = kind
    key = (rules.memo_key, width, length)
    found = _ANSWERS_TO.get(key)
    if found is None:
        found = _ANSWERS_TO[key] = rules.answers(kind)
    return found


def follow(s: HandState, seat: int, cards: list[int], suit_known: dict[int, int] | None,
           known_count: int, hidden: int) -> None:
    """A follow to an ordinary lead, judged after the cards left the seat's holding;
    ``known_count`` is the seat's known cards of the led suit before it played, ``hidden`` its
    hidden cards then, and ``suit_known`` those known cards when the follow is short of the
    suit (the violation lists them)."""
    order = s.order
    trick = s.trick
    assert order is not None and trick is not None
    lead_size = trick.lead_size
    if len(cards) != lead_size:
        s.violation("play.wrong-count",
                    f"seat {seat} plays {len(cards)} card(s) to a lead of {lead_size}.",
                    seat=seat, cards=cards, required=f"{lead_size} card(s)")
        return
    k = trick.lead_class
    in_suit = [c for c in cards if order.klass[c] == k]
    if len(in_suit) < min(lead_size, known_count):
        if suit_known is None:
            suit_known = _holding_before(s, seat, k, counts_of(in_suit))
        shortfall = min(lead_size, known_count)
        s.violation("follow.suit-required",
                    f"seat {seat} plays {len(in_suit)} card(s) of the led suit "
                    f"({order.class_name(k)}) but held {known_count}.",
                    seat=seat, cards=cards,
                    required=f"{shortfall} card(s) of {order.class_name(k)}; seat {seat} "
                             f"held {show(held_list(suit_known))}")
        return
    if len(in_suit) < lead_size and hidden:
        s.void[seat].add(k)
    # Structure: the played suit cards must show the best answers the holding allows.
    if trick.singles_only:
        return
    budget = len(in_suit)
    units = trick.lead_units
    if len(units) == 1 and units[0].length == 1 and budget >= units[0].width and \
            in_suit.count(in_suit[0]) >= units[0].width:
        # a pair (triple, quad) answered in kind: the best answer there is (such a lead is
        # that many cards, so the follow's suit cards are all one card)
        return
    played = counts_of(in_suit)
    holding = _holding_before(s, seat, k, played)
    most = 0
    total = 0
    for copies in holding.values():
        total += copies
        if copies > most:
            most = copies
    if most < 2:
        return  # every answer with structure needs two copies of a card: none is owed
    if total == budget:
        return  # every card of the suit it held is played: it showed all it could
    shown = answer_ranks(s, played, units, budget)
    if not any(shown):
        return  # the best answer to every unit: nothing better could have been owed
    best = answer_ranks(s, holding, units, budget)
    for i, (want, got) in enumerate(zip(best, shown, strict=True)):
        if got > want:  # a worse answer (answers are indexed best first)
            unit = units[i]
            ordered = {c: holding[c] for c in order.members[k] if c in holding}
            want_units = compute_answers(s, ordered, units, budget)[i][2]
            answers = answers_to(s.rules, unit.kind)
            could = ", ".join(show(x.all_cards()) for x in want_units) or "singles"
            s.violation(s.rules.follow_rule_id(unit.kind),
                        f"seat {seat} answers the led {unit_name(*unit.kind)} with "
                        f"{_shape_text(answers[got])} but could show "
                        f"{_shape_text(answers[want])}.", seat=seat, cards=cards,
                        required=f"seat {seat} held {could}")
            return


def follow_special(s: HandState, seat: int, cards: list[int], hidden: int) -> None:
    """Following a special pattern (ruling 15): the same pattern if the seat held one, else
    trumps as far as it held them, then anything."""
    order = s.order
    trick = s.trick
    assert order is not None and trick is not None
    if len(cards) != trick.lead_size:
        s.violation("play.wrong-count",
                    f"seat {seat} plays {len(cards)} card(s) to a lead of "
                    f"{trick.lead_size}.", seat=seat, cards=cards,
                    required=f"{trick.lead_size} card(s)")
        return
    if hidden:
        return
    rules = s.rules
    before = list(s.held[seat])
    for c in cards:
        before[c] += 1
    kind = rules.pattern_kind(trick.special)
    if rules.special_lead(cards, order) is not None and \
            rules.pattern_kind(rules.special_lead(cards, order) or "") == kind:
        return
    held_pattern = rules.holds_pattern(kind, before, order, len(cards))
    if held_pattern is not None:
        s.violation("follow.pattern-required",
                    f"seat {seat} answers the led {trick.special} with {show(cards)} but "
                    f"held one ({show(held_pattern)}).", seat=seat, cards=cards,
                    required=f"seat {seat} plays {show(held_pattern)}")
        return
    klass = order.klass
    trumps_held = sum(before[c] for c in order.members[TRUMP])
    played = sum(1 for c in cards if klass[c] == TRUMP)
    if played < min(len(cards), trumps_held):
        s.violation("follow.suit-required",
                    f"seat {seat} plays {played} trump(s) to a {trick.special}, a trump "
                    f"lead, but held {trumps_held}.", seat=seat, cards=cards,
                    required=f"{min(len(cards), trumps_held)} trump(s)")


def _holding_before(s: HandState, seat: int, klass: int, played: dict[int, int]
                    ) -> dict[int, int]:
    """A seat's cards of a suit class before it played ``played`` (card -> copies), as far
    as they were known: what is left plus the cards played. A card played out of hidden ones,
    or not held at all, counts as held (it came from the hand): each card's copies are
    max(held before, played), since playing a card uses the held copies first. In no
    particular order (the answers owed depend on the copies alone)."""
    assert s.order is not None
    held = s.held[seat]
    out: dict[int, int] = {}
    for c in s.order.members[klass]:
        copies: int = held[c]
        if copies:
            out[c] = copies
    for c, n in played.items():
        out[c] = out.get(c, 0) + n
    return out


def answer_ranks(s: HandState, avail: dict[int, int], units: list[Unit], budget: int
                 ) -> tuple[int, ...]:
    """For each lead unit, most significant first: the index of the best answer ``avail``
    can show within the cards still to play (D-2). Memoised on what decides it: the copies
    of the cards held at least twice (every structured answer needs pairs) and how their
    powers touch (:func:`~replay.units.shape_codes`), the units' kinds, the budget and the
    ruleset."""
    order = s.order
    assert order is not None
    codes = [s.rules.memo_key]
    for u in units:
        codes.append(u.width * 256 + u.length)
    codes.append(budget)
    shape_codes(avail, order.power, 2, codes)
    key = tuple(codes)  # flat ints: cheap to hash
    found = ANSWERS.get(key)
    if found is None:
        if len(ANSWERS) > 20_000:
            ANSWERS.clear()
        found = ANSWERS[key] = tuple(
            [got for _, got, _ in compute_answers(s, avail, units, budget)])
    return found


def compute_answers(s: HandState, avail: dict[int, int], units: list[Unit], budget: int
                    ) -> list[tuple[Unit, int, list[Unit]]]:
    """The lexicographically best answers: for each unit in turn, the best answer that can
    still be shown together with the answers already fixed for the units before it (a greedy
    placement could spend cards a later unit needs)."""
    order = s.order
    assert order is not None
    shapes: list[tuple[tuple[int, int], ...]] = []
    out = []
    left = budget
    for unit in units:
        answers = answers_to(s.rules, unit.kind)
        room = max(0, min(unit.size, left))
        for i, shape in enumerate(answers):
            if shape_size(shape) > room:
                continue
            found = cover_all(avail, order, [*shapes, shape])
            if found is not None:
                shapes.append(shape)
                out.append((unit, i, found[-1]))
                break
        left -= unit.size
    return out


def _shape_text(shape: tuple[tuple[int, int], ...]) -> str:
    if not shape:
        return "no pair or longer unit"
    return " + ".join(unit_name(w, n) for w, n in shape)
