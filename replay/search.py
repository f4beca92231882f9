"""The game as a search sees it: a hand's state cloned and played on, every legal play in a
world where every card is known, and the exact perfect-information search (alpha-beta with a
transposition table) with :func:`brute_force` beside it for tests. Used by the review
(:mod:`replay.review`); knows nothing of decisions or marks.

:func:`solve` runs on the C core (``replay/_core_search.h``, part of ``replay/_greedy.c``) where that
is built and takes the position, else here: the same choices at every node, so the same value
(``tests/test_native_search.py``)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from gamelog.cards import CARD_TOKENS, Card
from gamelog.model import Play, ThrowFail, TrickEnd
from replay._native import greedy_core
from replay.engine import HandReplay, MatchContext
from replay.legal import failing_units, follow_spec, forced_unit, legal_leads
from replay.phases.follow import core_rules
from replay.phases.outcome import hand_outcome, last_trick_award
from replay.state import copy_state
from replay.trick import Trick, TrickPlay
from replay.violations import ViolationLog

# -- the state: clone, whose turn, plays -------------------------------------------------------

def clone(state: HandReplay) -> HandReplay:
    """An independent copy of a hand's state (:func:`replay.state.copy_state`: every
    container copied one level down, what play never changes shared), with the trick in
    progress, the violation log and the match context copied too. ``tests/test_review.py``
    checks that playing on a clone leaves the original as it was, and that every attribute is
    copied."""
    new = copy_state(state)
    assert isinstance(new, HandReplay)
    trick = state.trick
    if trick is not None:
        copied = Trick(trick.number, trick.leader)
        copied.plays = [TrickPlay(p.seat, list(p.cards), p.seq, p.role) for p in trick.plays]
        copied.lead_units = list(trick.lead_units)
        copied.lead_class = trick.lead_class
        copied.winner = trick.winner
        copied.points = trick.points
        copied.trumped = trick.trumped
        copied.throw = trick.throw
        copied.failed_throw = trick.failed_throw
        copied.special = trick.special
        copied.forced = trick.forced
        copied.lead_size = trick.lead_size
        copied.lead_kinds = list(trick.lead_kinds)
        copied.singles_only = trick.singles_only
        new.trick = copied
    log = state.log
    new.log = ViolationLog(log.match, log.hand, log.strict, list(log.items), list(log.notices))
    new.context = _copy_context(state.context)
    return new


def _copy_context(context: MatchContext) -> MatchContext:
    """A match context with its lists (and the lists in them) copied: what ``copy.deepcopy``
    gives for its plain fields, a tenth of the cost (``tests/test_review.py`` checks that every
    field is copied)."""
    c = context
    return MatchContext(
        levels=None if c.levels is None else list(c.levels), next_dealer=c.next_dealer,
        accepted_levels=[list(x) for x in c.accepted_levels],
        accepted_dealers=list(c.accepted_dealers),
        round_declarers=[list(x) for x in c.round_declarers],
        scores=None if c.scores is None else list(c.scores))


def to_play(state: HandReplay) -> int | None:
    """The seat whose turn it is (``None`` when the hand is over)."""
    if state.finished:
        return None
    trick = state.trick
    if trick is None or not trick.plays:
        return state.leader
    return (trick.plays[-1].seat + 1) % state.players


_SEQ = 1 << 20  # sequence numbers of the review's own events, past any record's


def apply_play(state: HandReplay, seat: int, cards: list[int], checked: bool = False) -> None:
    """Play ``cards``, a legal play, for ``seat``: a lead is checked as a throw first (a
    failing throw is replaced by its forced lowest unit, as the rules say); the trick is closed
    when complete. The play is applied as known legal (:meth:`HandReplay.play_legal`), unless
    ``checked``, a throw failed or the seat has hidden cards: then as the recorded events would
    be, every rule judged."""
    global _SEQ
    order = state.order
    assert order is not None
    trick = state.trick
    failing: list = []
    if trick is None or not trick.plays:
        failing = failing_units(state, seat, cards)
    if not (checked or failing or state.stopped or state.finished or state.hidden[seat]):
        _SEQ += 1
        state.play_legal(seat, cards, _SEQ)
        if state.trick is None and state.tricks:
            _SEQ += 1  # the trick's close, numbered as the checked path numbers it
        return
    match, number = state.hand.match, state.hand.number
    if failing:  # a lead: found only for one
        _SEQ += 1
        state.apply(ThrowFail(match=match, hand=number, seq=_SEQ, seat=seat,
                              cards=[CARD_TOKENS[c] for c in cards]))
        cards = forced_unit(failing).all_cards()
    _SEQ += 1
    state.apply(Play(match=match, hand=number, seq=_SEQ, seat=seat,
                     cards=[CARD_TOKENS[c] for c in cards]))
    if state.trick is None and state.tricks:
        t = state.tricks[-1]
        _SEQ += 1
        state.apply(TrickEnd(match=match, hand=number, seq=_SEQ, trick=t.number,
                             winner=t.winner if t.winner is not None else 0, points=t.points))


def final_points(state: HandReplay) -> int:
    """The defenders' final points of a finished hand, the kitty award included."""
    if state.outcome is not None and state.outcome.defender_points is not None:
        return state.outcome.defender_points
    return state.defender_points


def defends(state: HandReplay, seat: int) -> bool:
    return not state.team_side(seat)


# -- choices -------------------------------------------------------------------------------------

def choices(state: HandReplay, seat: int, *, limit: int = 400,
            rng: random.Random | None = None) -> list[list[int]]:
    """The seat's distinct legal plays in a world where every card is known, up to
    equivalence: on a lead every unit it holds (single, n-of-a-kind, tractor) and every throw
    that stands, of any number of units; on a follow every legal
    follow (identical cards give one) or, when there are more than ``limit`` candidates (a
    pair or tractor to follow with none of the suit), the cheapest legal follow and 48 drawn
    at random. Each sorted in the hand's order."""
    order = state.order
    assert order is not None
    seen: set[tuple[int, ...]] = set()
    out: list[list[int]] = []
    trick = state.trick
    if trick is None or not trick.plays:
        found = [list(lead.cards) for lead in legal_leads(state, seat,
                                                          max_throw_units=sum(state.held[seat]))
                 if lead.stands]
    else:
        spec = follow_spec(state, seat)
        listed = spec.enumerate(limit=limit)
        if listed is None:
            draw = rng or random.Random(0)
            power = order.power
            listed = [spec.lowest(lambda c: (Card(c).points, power[c]))]
            listed += [spec.sample(draw) for _ in range(48)]
        found = listed
    for cards in found:
        key = tuple(sorted(cards, key=order.sort_key))
        if key not in seen:
            seen.add(key)
            out.append(list(key))
    return out


# -- the exact search ------------------------------------------------------------------------------

def core_position(state: HandReplay) -> tuple | None:
    """The position as the C core takes it (the arguments of ``play_out`` and ``solve`` in
    ``replay/_greedy.c``), or ``None`` where it does not: hidden cards, a throw being judged,
    a finished or stopped hand, patterns other than 打万分's."""
    order = state.order
    rules = state.rules
    if order is None or state.finished or state.stopped or state.pending_forced is not None:
        return None
    straight: Any = None
    if rules.pattern_kinds:  # only 打万分's patterns are written in C
        straight = rules.pattern_cards(order)
        if straight is None:
            return None
    for n in state.hidden:
        if n:
            return None
    trick = state.trick
    plays: list[tuple[int, list[int]]] = []
    lead_class = 0
    lead_size = 0
    special = 0
    kinds: list[tuple[int, int]] = []
    if trick is not None and trick.plays:
        if trick.forced is not None or trick.failed_throw is not None:
            return None
        if trick.special:
            special = rules.pattern_kinds.index(rules.pattern_kind(trick.special)) + 1
        plays = [(p.seat, p.cards) for p in trick.plays]
        lead_class = trick.lead_class
        lead_size = trick.lead_size
        kinds = trick.lead_kinds
    memo_key, width, trump_throws, patterns, table = core_rules(rules)
    side = [1 if state.team_side(s) else 0 for s in range(state.players)]
    leader = state.leader
    level = 0 if order.level is None else int(order.level)
    # the holdings (state.held): the C core's play_values_deals puts each deal's there
    return (order.uid, order.power, order.klass, order.members, straight, level, memo_key, width,
            trump_throws, patterns, table, state.points_table, state.held, side,
            0 if leader is None else leader, plays, lead_class, lead_size, kinds, special,
            state.defender_points)


_NATIVE_TABLE = "native"  # where a search's table keeps the C core's own


def core_table(table: dict) -> Any:
    """The C core's table kept in a search's ``table`` (one deal's searches share it, as they
    share the Python one); made on first use."""
    native = table.get(_NATIVE_TABLE)
    if native is None:
        core: Any = greedy_core()
        native = table[_NATIVE_TABLE] = core.Table()
    return native


def settler(state: HandReplay) -> Callable[[int, int, list[int], bool], int]:
    """The defenders' final points of ``state``'s hand ended with ``face`` points from the
    tricks and the last one taken by ``winner`` with ``winning`` (for the C core). Each
    kitty award is worked out once for the winning cards (with whether they were led as a
    pattern) and each outcome once for what it reads (the face points, the points with the
    award, its multiplier): all else it reads is ``state``'s."""
    awards: dict[tuple, tuple[int | None, int | None]] = {}
    values: dict[tuple[int, int, int | None], int] = {}

    def settled(face: int, winner: int, winning: list[int], special: bool) -> int:
        if state.team_side(winner) or state.declarer is None:
            award, multiplier = None, None
        else:
            key = (tuple(sorted(winning)), special)
            found = awards.get(key)
            if found is None:
                found = awards[key] = last_trick_award(state, winner, winning, special)
            award, multiplier = found
        points = face if award is None else face + award
        value = values.get((face, points, multiplier))
        if value is None:
            outcome = hand_outcome(state, face, points, multiplier)
            value = face
            if outcome is not None and outcome.defender_points is not None:
                value = outcome.defender_points
            values[(face, points, multiplier)] = value
        return value

    return settled


def _native_solve(state: HandReplay, table: dict) -> int | None:
    """:func:`solve` on the C core; ``None`` where it is not built or hands the position back."""
    core: Any = greedy_core()
    if core is None or state.finished:
        return None
    position = core_position(state)
    if position is None:
        return None
    try:
        value: int | None = core.solve(*position, core_table(table), settler(state))
    except ValueError:  # past its fixed sizes
        return None
    return value


def table_size(table: dict) -> int:
    """The positions a search's table holds (the C core's and the Python search's)."""
    native = table.get(_NATIVE_TABLE)
    return len(table) - (native is not None) + (0 if native is None else len(native))


def _key(state: HandReplay) -> tuple:
    trick = state.trick
    plays = tuple((p.seat, tuple(sorted(p.cards))) for p in trick.plays) if trick else ()
    return (tuple(tuple(h) for h in state.held), plays, state.leader, state.defender_points)


def solve(state: HandReplay, table: dict | None = None) -> int:
    """The defenders' final points under perfect play by both sides from ``state`` (every card
    known): alpha-beta, the defenders maximising; ``table`` caches exact values and bounds
    (keep one for the searches of one deal). On the C core where it takes the position."""
    table = {} if table is None else table
    found = _native_solve(state, table)
    if found is not None:
        return found
    return solve_python(state, table)


def solve_python(state: HandReplay, table: dict | None = None, alpha: float = -1.0,
                 beta: float = 1e9) -> int:
    """:func:`solve` in Python alone (the reference the C search is held to)."""
    if state.finished:
        return final_points(state)
    table = {} if table is None else table
    key = _key(state)
    hit = table.get(key)
    if hit is not None:
        low, high = hit
        if low == high or low >= beta:
            return int(low)
        if high <= alpha:
            return int(high)
        alpha, beta = max(alpha, low), min(beta, high)
    seat = to_play(state)
    assert seat is not None
    maximise = defends(state, seat)
    best = -1.0 if maximise else 1e9
    a, b = alpha, beta
    for cards in merge_touching(state, seat, choices(state, seat)):
        child = clone(state)
        apply_play(child, seat, cards)
        value = solve_python(child, table, a, b)
        if maximise:
            best = max(best, value)
            a = max(a, best)
        else:
            best = min(best, value)
            b = min(b, best)
        if a >= b:
            break
    low, high = table.get(key, (-1.0, 1e9))
    if best <= alpha:
        table[key] = (low, best)
    elif best >= beta:
        table[key] = (best, high)
    else:
        table[key] = (best, best)
    return int(best)


def merge_touching(state: HandReplay, seat: int, plays: list[list[int]]) -> list[list[int]]:
    """``plays`` without the single cards that play exactly like a lower one the seat also
    holds (every card known): :func:`touching_lowest`, with every card of another seat's
    holding or of the trick on the table able to come between."""
    order = state.order
    assert order is not None
    if state.rules.pattern_kinds or sum(len(p) == 1 for p in plays) < 2:
        return plays
    power, klass = order.power, order.klass
    live: dict[int, list[int]] = {}  # class -> powers of the cards that could come between
    for o in range(state.players):
        if o != seat:
            for c in range(54):
                if state.held[o][c]:
                    live.setdefault(klass[c], []).append(power[c])
    if state.trick is not None:
        for p in state.trick.plays:
            for c in p.cards:
                live.setdefault(klass[c], []).append(power[c])
    dropped = touching_lowest(state, seat, live, [p[0] for p in plays if len(p) == 1])
    return [p for p in plays if not (len(p) == 1 and p[0] in dropped)]


def touching_lowest(state: HandReplay, seat: int, live: dict[int, list[int]],
                    cards: list[int]) -> dict[int, int]:
    """Each of ``cards`` that plays exactly like a lower one of them, mapped to the lowest of
    its run: touching cards of one suit and class, worth the same points, one copy each in the
    seat's hand, with no card of ``live`` (per class, the powers of the cards that could come
    between: another seat's, the trick's) ranking between them or level with them. Empty in
    打万分, whose patterns read suits and ranks beyond the order."""
    order = state.order
    assert order is not None
    if state.rules.pattern_kinds:
        return {}
    power, klass, points = order.power, order.klass, state.points_table
    held = state.held[seat]
    codes: list[int] = []  # by class, power and card, as one int (no key function to call)
    for c in cards:
        if held[c] == 1:
            codes.append((klass[c] * 256 + power[c]) * 64 + c)
    codes.sort()
    out: dict[int, int] = {}
    low = -1
    for code in codes:
        c = code % 64
        if c == low:
            continue  # listed twice
        if low >= 0 and klass[c] == klass[low] and Card(c).suit == Card(low).suit \
                and points[c] == points[low] and not any(
                    power[low] <= q <= power[c] for q in live.get(klass[c], ())):
            out[c] = low
            continue
        low = c
    return out


def brute_force(state: HandReplay) -> int:
    """:func:`solve` without pruning or table: every line of play, minimax (for tests)."""
    if state.finished:
        return final_points(state)
    seat = to_play(state)
    assert seat is not None
    values = []
    for cards in choices(state, seat):
        child = clone(state)
        apply_play(child, seat, cards)
        values.append(brute_force(child))
    return max(values) if defends(state, seat) else min(values)


