"""Follow judgement (跟牌), for the tricks phase: the count, the led suit as far as it is held,
and structure: the played cards must show the best answer to each lead unit the holding allows
(pairs to a pair, a tractor to a tractor, ...; D-2); a special pattern's followers (ruling 15).

Asks of the ruleset (its "tricks" section): ``answers``, ``follow_rule_id``,
``special_lead``, ``pattern_kind``, ``holds_pattern``.
"""

from __future__ import annotations

from typing import Any, Final

from replay._native import greedy_core
from replay.order import TRUMP, CardOrder
from replay.rulesets.base import Ruleset
from replay.state import HandState, held_list, ruleset_tables
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


LONGEST: Final = 13
"""The longest chain the C core is given answers for: the longest unit a holding leads
(:func:`replay.legal.units_in`); a longer one leaves the question to Python."""

_TABLES: Final[dict[int, dict[tuple[int, int], Any]]] = {}
"""The answers owed to every unit kind, by ruleset (its memo key): what the C core reads."""

_JUDGES: Final[dict[tuple[int, int], Any]] = {}
"""The C core's checks by card order (its uid) and ruleset (its memo key)."""


def core_rules(rules: Ruleset) -> tuple[int, int, int, int, dict[tuple[int, int], Any]]:
    """The ruleset as the C core (``replay/_greedy.c``) is given it, the same for every caller
    (it keeps the first it is given): memo key, widest unit, trump throws, special patterns
    (打万分's), and the answers owed to each unit kind. All of it follows from the memo key."""
    width = ruleset_tables(rules)[1]
    table = _TABLES.get(rules.memo_key)
    if table is None:
        table = {}
        for w in range(1, width + 1):
            for length in range(1, LONGEST + 1 if w > 1 else 2):
                table[(w, length)] = answers_to(rules, (w, length))
        _TABLES[rules.memo_key] = table
    return (rules.memo_key, width, 1 if rules.trump_throws else 0,
            1 if rules.pattern_kinds else 0, table)


def core_judge(rules: Ruleset, order: CardOrder) -> Any:
    """The C core's checks of recorded plays for this order and ruleset (``replay/_greedy.c``'s
    ``Judge``: a follow's structure, a play's strength, a throw's units), or ``None`` where the
    core is not built or cannot take them (the Python checks then do all the work)."""
    key = (order.uid, rules.memo_key)
    if key in _JUDGES:
        return _JUDGES[key]
    core: Any = greedy_core()
    judge: Any = None
    if core is not None:
        level = 0 if order.level is None else int(order.level)
        memo_key, widest, trump_throws, patterns, table = core_rules(rules)
        try:
            straight = rules.pattern_cards(order) if rules.pattern_kinds else None
            judge = core.judge(order.uid, order.power, order.klass, order.members, straight, level,
                               memo_key, widest, trump_throws, patterns, table)
        except ValueError:  # past its fixed sizes (a power over 63, units over four wide)
            judge = None
    if len(_JUDGES) > 1000:
        _JUDGES.clear()
    _JUDGES[key] = judge
    return judge


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
    judge = s.judge
    if judge is not None and judge.follow_ok(s.held[seat], k, in_suit, trick.lead_kinds,
                                             budget):
        return  # the C core found the best answers shown (else the search below words why)
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
