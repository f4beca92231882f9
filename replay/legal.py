"""Legal plays for the seat on turn: leads enumerated, follows described as constraints.

Written apart from the checker in :mod:`replay.engine`: leads are built from the units a holding
contains, follows from the obligations (cards of the led suit, then the best answer to each lead
unit) worked out here by exhaustive search rather than the checker's greedy pass. The property
test in tests/test_legal.py holds the two to the same verdicts.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from replay.engine import HandReplay
from replay.order import TRUMP, CardOrder
from replay.phases.follow import answers_to
from replay.units import Unit, counts_of, decompose, find_chains, shape_codes, shape_size


@dataclass(frozen=True)
class Lead:
    """A possible lead: its cards, its units, and whether it stands (a throw may fail)."""

    cards: tuple[int, ...]
    units: tuple[Unit, ...]
    stands: bool

    @property
    def is_throw(self) -> bool:
        return len(self.units) > 1


_UNITS_IN: Final[dict[tuple[int, ...], list[Unit]]] = {}
"""units_in's answers, keyed on everything that decides them: the order, the widest unit and
the holding as given (card and copies, in its order: the answer lists units in that order).
Playouts of one deal meet the same holdings again and again."""


_ACHIEVED: Final[dict[tuple[int, ...], bool]] = {}
"""Whether a suit holding shows the answers a follow owes (:meth:`FollowSpec._achieves`), by
what decides it: the ruleset, the lead's kinds, the answers owed, the budget and the shape of
the cards held twice or more (every answer with structure is made of those:
:func:`~replay.units.shape_codes`). Still found by this module's own exhaustive search, once a
shape."""


def _memo_key(head: list[int], budget: int, avail: dict[int, int], order: CardOrder
              ) -> tuple[int, ...]:
    """``head`` (what the ruleset and the lead decide), the budget and the holding's shape."""
    codes = list(head)
    codes.append(budget)
    shape_codes(avail, order.power, 2, codes)
    return tuple(codes)


def units_in(holding: dict[int, int], order: CardOrder, max_width: int) -> list[Unit]:
    """Every unit a holding of one suit class can lead: singles, n-of-a-kind, chains."""
    codes = [order.uid, max_width]
    for card, copies in holding.items():  # flat ints, in the holding's order: cheap to hash
        codes.append(card * 16 + copies)
    key = tuple(codes)
    known = _UNITS_IN.get(key)
    if known is None:
        if len(_UNITS_IN) > 20_000:
            _UNITS_IN.clear()
        known = _UNITS_IN[key] = _units_in(holding, order, max_width)
    return list(known)


def _units_in(holding: dict[int, int], order: CardOrder, max_width: int) -> list[Unit]:
    out: list[Unit] = []
    for width in range(1, max_width + 1):
        out.extend(find_chains(holding, order, width, 1))
        if width >= 2:
            for length in range(2, 14):
                found = list(find_chains(holding, order, width, length))
                if not found:
                    break
                out.extend(found)
    return out


def beaten_by_others(state: HandReplay, seat: int, unit: Unit, klass: int) -> bool:
    """Whether another seat's known cards beat ``unit`` (rulings 1, 3)."""
    from replay.units import beats_unit

    assert state.order is not None
    return any(beats_unit(state.class_holding(o, klass), state.order, unit) is not None
               for o in range(state.players) if o != seat)


def failing_units(state: HandReplay, seat: int, cards: list[int]) -> list[Unit]:
    """The units of a lead that another seat's known cards beat, when the lead is a throw
    (several units of one suit, not a special pattern); empty when it stands or is no throw.
    The play the rules then force is :func:`forced_unit` of them."""
    from replay.units import decompose

    order = state.order
    assert order is not None
    if len(cards) < 2:
        return []
    parts = decompose(cards, order)
    if len(parts) < 2 or (len(cards) >= 4 and state.rules.special_lead(cards, order) is not None):
        return []
    klass = order.klass[cards[0]]
    return [u for u in parts if beaten_by_others(state, seat, u, klass)]


def forced_unit(failing: list[Unit]) -> Unit:
    """The unit a failed throw is played as: its lowest failing unit (the smaller of two that
    start as low)."""
    return min(failing, key=lambda u: (u.low, u.size))


def legal_leads(state: HandReplay, seat: int, *, max_throw_units: int = 4) -> list[Lead]:
    """Every single-unit lead, and throws of up to ``max_throw_units`` units: the standing ones
    and those that would fail (marked ``stands=False``)."""
    order = state.order
    assert order is not None
    rules = state.rules
    leads: list[Lead] = []
    for klass in range(5):
        holding = state.class_holding(seat, klass)
        if not holding:
            continue
        units = units_in(holding, order, state.max_width)
        for u in units:
            leads.append(Lead(tuple(u.all_cards()), (u,), True))
        if klass == TRUMP and not rules.trump_throws:
            continue
        # Throws: unions of units whose cards fit the holding; decomposed as a lead would be.
        seen: set[tuple[int, ...]] = set()
        tops = [u for u in units if u.width >= 1]
        for k in range(2, max_throw_units + 1):
            for combo in itertools.combinations(tops, k):
                cards = sorted(c for u in combo for c in u.all_cards())
                counts = counts_of(cards)
                if any(counts[c] > holding.get(c, 0) for c in counts):
                    continue
                key = tuple(cards)
                if key in seen:
                    continue
                seen.add(key)
                parts = decompose(cards, order)
                if len(parts) < 2:
                    continue
                stands = not any(beaten_by_others(state, seat, u, klass) for u in parts)
                leads.append(Lead(key, tuple(parts), stands))
            if len(leads) > 400:
                break
    return leads


def _multisets_count(items: list[tuple[int, int]], n: int) -> int:
    """How many sub-multisets of ``n`` cards the ``(card, copies)`` items hold."""
    if n <= 1:  # none or one card: one way, or one per card held
        return 1 if n == 0 else sum(1 for _, k in items if k > 0)
    ways = [1] + [0] * n
    for _, k in items:
        new = [0] * (n + 1)
        for have, w in enumerate(ways):
            if w:
                for take in range(min(k, n - have) + 1):
                    new[have + take] += w
        ways = new
    return ways[n]


def _multisets(items: list[tuple[int, int]], n: int,
               keep: Callable[[list[int]], bool] | None = None, cap: int = -1
               ) -> list[list[int]]:
    """Every sub-multiset of ``n`` cards of the ``(card, copies)`` items, as card lists: the
    most copies of the first item first, then of the next (depth first). Branches that the
    items left cannot fill are not walked (they hold no multiset). Only those ``keep``
    accepts, when given; with ``cap`` >= 0 the walk stops once it has ``cap + 1`` (enough to
    know there are more than ``cap``)."""
    if n == 1:  # one card: each card held, in the items' order (as the walk finds them)
        return [[card] for card, k in items if k > 0 and (keep is None or keep([card]))]
    out: list[list[int]] = []
    room = [0] * (len(items) + 1)  # copies held by items i.. (what is left to take from)
    for i in range(len(items) - 1, -1, -1):
        room[i] = room[i + 1] + items[i][1]
    chosen: list[int] = []
    _walk_multisets(items, room, 0, n, chosen, out, keep, cap)
    return out


def _walk_multisets(items: list[tuple[int, int]], room: list[int], i: int, need: int,
                    chosen: list[int], out: list[list[int]],
                    keep: Callable[[list[int]], bool] | None, cap: int) -> bool:
    """The walk of :func:`_multisets`; ``True`` once it has more than ``cap``. From item
    ``i`` on, the next item to take copies of (the most first; skipping an item is moving to
    the next, without a level of recursion for it)."""
    if need == 0:
        if keep is None or keep(chosen):
            out.append(list(chosen))
            return 0 <= cap < len(out)
        return False
    for j in range(i, len(items)):
        if room[j] < need:
            return False  # the items left cannot fill it (nor can any later start)
        card, k = items[j]
        for take in range(min(k, need), 0, -1):
            if room[j + 1] < need - take:
                break  # taking fewer leaves even more to fill
            chosen.extend([card] * take)
            if _walk_multisets(items, room, j + 1, need - take, chosen, out, keep, cap):
                return True
            del chosen[-take:]
    return False


@dataclass
class FollowSpec:
    """What a follower owes: ``n`` cards, at least ``m`` of the led suit, and for each lead
    unit (most significant first) an answer no worse than ``required[i]`` (an index into the
    ruleset's answer list for that unit)."""

    n: int
    m: int
    suit: dict[int, int]
    others: dict[int, int]
    units: list[Unit]
    required: list[int]
    order: CardOrder
    answers: list[list[tuple[tuple[int, int], ...]]] = field(default_factory=list)
    pattern: list[int] | None = None
    """Against a special pattern (打万分's 同花顺 / 发财 / 四季): the one the seat holds and must
    play (ruling 15), if any."""
    same_kind: Callable[[list[int]], bool] | None = None
    """Against a special pattern: ``f(cards)``, whether cards make a pattern of the led kind."""
    memo: list[int] = field(default_factory=list)
    """What the ruleset and the lead decide of :meth:`_achieves` (its memo key's head; empty:
    not memoised)."""

    def contains(self, cards: list[int]) -> bool:
        """Whether ``cards`` is a legal follow (by exhaustive search over answers)."""
        if len(cards) != self.n:
            return False
        if self.pattern is not None:
            held = {**self.suit}
            for c, k in self.others.items():
                held[c] = held.get(c, 0) + k
            return (all(held.get(c, 0) >= k for c, k in counts_of(cards).items())
                    and self.same_kind is not None and bool(self.same_kind(cards)))
        have = counts_of(cards)
        pool = {**self.suit}
        for c, k in self.others.items():
            pool[c] = pool.get(c, 0) + k
        if any(pool.get(c, 0) < k for c, k in have.items()):
            return False
        in_suit = {c: k for c, k in have.items() if c in self.suit}
        if sum(in_suit.values()) < self.m:
            return False
        return self._achieves(in_suit, sum(in_suit.values()))

    def _achieves(self, avail: dict[int, int], budget: int) -> bool:
        if not self.memo:
            return _search(avail, self.order, self.units, self.answers, self.required, 0,
                           budget)
        key = _memo_key(self.memo, budget, avail, self.order)
        found = _ACHIEVED.get(key)
        if found is None:
            if len(_ACHIEVED) > 40_000:
                _ACHIEVED.clear()
            found = _ACHIEVED[key] = _search(avail, self.order, self.units, self.answers,
                                             self.required, 0, budget)
        return found

    def candidates(self) -> int:
        """How many distinct card multisets of the right size the seat could play (legal or
        not): the size of the space that :meth:`enumerate` would search."""
        pool = {**self.suit}
        for c, k in self.others.items():
            pool[c] = pool.get(c, 0) + k
        # coefficient of x^n in the product of (1 + x + ... + x^k) over the pool
        ways = [1] + [0] * self.n
        for k in pool.values():
            new = [0] * (self.n + 1)
            for have, w in enumerate(ways):
                if w:
                    for take in range(min(k, self.n - have) + 1):
                        new[have + take] += w
            ways = new
        return ways[self.n]

    def enumerate(self, limit: int = 20_000) -> list[list[int]] | None:
        """Every legal follow (as sorted card lists) when the candidates number at most
        ``limit``; ``None`` when they explode (use :meth:`contains` and :meth:`sample`)."""
        if self.candidates() > limit:
            return None
        pool = {**self.suit}
        for c, k in self.others.items():
            pool[c] = pool.get(c, 0) + k
        items = sorted(pool.items())
        out: list[list[int]] = []

        def walk(i: int, chosen: list[int]) -> None:
            if len(chosen) == self.n:
                if self.contains(chosen):
                    out.append(list(chosen))
                return
            if i == len(items):
                return
            card, k = items[i]
            for take in range(min(k, self.n - len(chosen)), -1, -1):
                walk(i + 1, chosen + [card] * take)

        walk(0, [])
        return out

    def follows(self, limit: int) -> list[list[int]] | None:
        """The legal follows (as sorted card lists), as :meth:`enumerate` finds them but by a
        smaller search: a follow holds exactly ``m`` cards of the led suit (all it has, or
        ``n``) and only those carry obligations, so the suit part is searched alone and the
        rest is any ``n - m`` other cards; ``None`` when the follows number more than
        ``limit``. The same set as :meth:`enumerate`, not in the same order."""
        if self.pattern is not None or self.same_kind is not None:
            return self.enumerate(limit)
        if self.n == 1:  # a single led: any card of its suit, else any card
            cards = self.suit or self.others
            return [[c] for c in sorted(cards)] if len(cards) <= limit else None
        suit_items = sorted(self.suit.items())
        rest = self.n - self.m
        other_items = sorted(self.others.items()) if rest else []  # none of them is played
        ways = _multisets_count(other_items, rest)  # the choices of the other cards
        if ways > limit or _multisets_count(suit_items, self.m) > 50 * limit:
            return None
        if ways == 0:
            return []
        cap = limit // ways  # more suit parts than this: more follows than the limit
        units = self.units
        if all(not self.answers[i][r] for i, r in enumerate(self.required)):
            # no structure owed: every one will do
            parts = _multisets(suit_items, self.m, None, cap)
        elif len(units) == 1 and units[0].length == 1 and self.n == self.m == units[0].width \
                and self.required[0] == 0 and self.answers[0][0] == ((units[0].width, 1),):
            # n of a kind led and held: the follows are the n-of-a-kinds held, in the order
            # the walk below would find them
            width = units[0].width
            parts = [[c] * width for c, k in suit_items if k >= width]
        else:
            parts = _achieving(suit_items, self.m, self.order, units, self.answers,
                               self.required, cap)
        if not parts:
            return []
        if len(parts) > cap:
            return None
        if not rest:
            return parts  # each already in card order, as the walk and the builders list it
        extras = _multisets(other_items, rest)
        return [sorted(p + e) for p in parts for e in extras]

    def first_follows(self, limit: int, max_checked: int = 2_000_000) -> list[list[int]]:
        """Up to ``limit`` legal follows (as sorted card lists) however many candidates there
        are: the led suit's cards are tried first, and the walk stops after ``limit`` follows
        or ``max_checked`` candidates checked."""
        items = sorted(self.suit.items()) + sorted(
            (c, k) for c, k in self.others.items() if c not in self.suit)
        out: list[list[int]] = []
        checked = 0

        def walk(i: int, chosen: list[int]) -> bool:  # True: stop
            nonlocal checked
            if len(chosen) == self.n:
                checked += 1
                if self.contains(chosen):
                    out.append(sorted(chosen))
                return len(out) >= limit or checked >= max_checked
            if i == len(items):
                return False
            card, k = items[i]
            for take in range(min(k, self.n - len(chosen)), -1, -1):
                if walk(i + 1, chosen + [card] * take):
                    return True
            return False

        walk(0, [])
        return out

    def sample(self, rng: random.Random) -> list[int]:
        """A random legal follow: the required answers first (placed so that every later
        requirement can still be met), then random suit cards, then random other cards."""
        return self._build(rng, None)

    def lowest(self, power) -> list[int]:  # type: ignore[no-untyped-def]
        """A legal follow that meets the obligations with the lowest cards it can."""
        return self._build(None, power)

    def lowest_each(self, keys: list[Callable[[int], Any]]) -> list[list[int]]:
        """:meth:`lowest` for each of ``keys`` (the answers owed placed once for all)."""
        if self.pattern is not None:
            return [list(self.pattern) for _ in keys]
        chosen, avail = self._place(None)
        return [self._fill(chosen, avail, None, key) for key in keys]

    def _build(self, rng: random.Random | None, power) -> list[int]:  # type: ignore[no-untyped-def]
        if self.pattern is not None:
            return list(self.pattern)
        chosen, avail = self._place(rng)
        return self._fill(chosen, avail, rng, power)

    def _place(self, rng: random.Random | None) -> tuple[list[int], dict[int, int]]:
        """The answers owed, placed (at random with ``rng``, else the first way that leaves
        the later ones room): their cards, and the suit cards left."""
        avail = dict(self.suit)
        chosen: list[int] = []
        budget = self.m
        for i, (answers, need) in enumerate(zip(self.answers, self.required, strict=True)):
            covers = list(itertools.islice(_all_covers(avail, self.order, answers[need]), 256))
            if rng is not None:
                rng.shuffle(covers)
            for placed in covers:
                rest = dict(avail)
                for u in placed:
                    for c in u.cards:
                        rest[c] -= u.width
                if _search(rest, self.order, self.units, self.answers, self.required, i + 1,
                           budget - self.units[i].size):
                    avail = rest
                    chosen.extend(c for u in placed for c in u.all_cards())
                    break
            budget -= self.units[i].size
        return chosen, avail

    def _fill(self, placed: list[int], avail: dict[int, int], rng: random.Random | None,
              power) -> list[int]:  # type: ignore[no-untyped-def]
        """The follow: the ``placed`` answers, then suit cards, then others (at random with
        ``rng``, else the lowest by ``power``)."""
        chosen = list(placed)
        rest_suit = [c for c, k in avail.items() for _ in range(k)]
        others = [c for c, k in self.others.items() for _ in range(k)]
        if rng is not None:
            rng.shuffle(rest_suit)
            rng.shuffle(others)
        else:
            rest_suit.sort(key=power)
            others.sort(key=power)
        chosen += rest_suit[: max(0, self.m - len(chosen))]
        chosen += others[: self.n - len(chosen)]
        return chosen


def _achieving(items: list[tuple[int, int]], m: int, order: CardOrder, units: list[Unit],
               answers, required: list[int], cap: int) -> list[list[int]]:
    """The sub-multisets of ``m`` cards of the suit ``items`` (by card) that show the ``required``
    answers (those :meth:`FollowSpec._achieves` accepts), in :func:`_multisets`' order; at
    most ``cap + 1`` of them (more: there are more than ``cap``). Built from the placements
    of the required answers (each way :func:`_search` can place them in the whole holding),
    each with every filling of the cards left: a multiset shows the answers exactly when it
    holds one such placement."""
    # A multiset of the items (ordered by card) as its cards in order: the walk lists the
    # most copies of the first item first, which is these tuples in ascending order.
    found: set[tuple[int, ...]] = set()
    for placed in _placements(dict(items), order, units, answers, required, 0, m):
        left = [(card, k - placed.get(card, 0)) for card, k in items]
        need = m - sum(placed.values())
        cards = [card for card, k in placed.items() for _ in range(k)]
        for filling in _multisets([x for x in left if x[1] > 0], need):
            found.add(tuple(sorted(cards + filling)))
            if len(found) > cap >= 0:
                break
        if len(found) > cap >= 0:
            break
    return [list(cards) for cards in sorted(found)]


def _placements(avail: dict[int, int], order: CardOrder, units: list[Unit], answers,
                required: list[int], i: int, budget: int) -> list[dict[int, int]]:
    """Every placement of the required answers for units i.. that :func:`_search` can make
    in ``avail`` (as the cards placed: card -> copies); empty when it can make none."""
    if i == len(units):
        return [{}]
    shape = answers[i][required[i]]
    room = max(0, min(units[i].size, budget))
    if shape_size(shape) > room:
        return []
    out: list[dict[int, int]] = []
    for placed in _all_covers(avail, order, shape):
        rest = dict(avail)
        here: dict[int, int] = {}
        for u in placed:
            for c in u.cards:
                rest[c] -= u.width
                here[c] = here.get(c, 0) + u.width
        for more in _placements(rest, order, units, answers, required, i + 1,
                                budget - units[i].size):
            both = dict(here)
            for c, k in more.items():
                both[c] = both.get(c, 0) + k
            out.append(both)
    return out


def _search(avail: dict[int, int], order: CardOrder, units: list[Unit], answers, required,
            i: int, budget: int) -> bool:
    """Can ``avail`` give, for units i.., answers at least as good as required (any order of
    placements, exhaustively)?"""
    if i == len(units):
        return True
    shape = answers[i][required[i]]
    room = max(0, min(units[i].size, budget))
    if shape_size(shape) > room:
        return False
    for placed in _all_covers(avail, order, shape):
        rest = dict(avail)
        for u in placed:
            for c in u.cards:
                rest[c] -= u.width
        if _search(rest, order, units, answers, required, i + 1, budget - units[i].size):
            return True
    return False


def _all_covers(avail: dict[int, int], order: CardOrder, shape):  # type: ignore[no-untyped-def]
    if not shape:
        yield []
        return
    (w, length), rest = shape[0], shape[1:]
    for unit in find_chains(avail, order, w, length):
        after = dict(avail)
        for c in unit.cards:
            after[c] -= w
        for more in _all_covers(after, order, rest):
            yield [unit, *more]


def follow_spec(state: HandReplay, seat: int) -> FollowSpec:
    """The obligations of ``seat`` following the trick in progress."""
    order = state.order
    trick = state.trick
    assert order is not None and trick is not None and trick.plays
    k = trick.lead_class
    n = trick.lead_size if trick.special else sum(u.size for u in trick.lead_units)
    suit = state.class_holding(seat, k)
    held = state.held[seat]
    klass = order.klass
    others: dict[int, int] = {}
    for c in range(54):
        copies: int = held[c]
        if copies and klass[c] != k:
            others[c] = copies
    m = min(n, sum(suit.values()))
    if trick.special:  # a special pattern: the same pattern if held, else trumps (ruling 15)
        rules = state.rules
        kind = rules.pattern_kind(trick.special)
        pattern = rules.holds_pattern(kind, list(held), order, n)

        def same_kind(cards: list[int]) -> bool:
            if pattern is None:
                return sum(1 for c in cards if order.klass[c] == k) >= m
            made = rules.special_lead(cards, order)
            return made is not None and rules.pattern_kind(made) == kind

        return FollowSpec(n, m, suit, others, [], [], order, [],
                          pattern=pattern, same_kind=same_kind) if pattern is not None else \
            FollowSpec(n, m, suit, others, [], [], order, [])
    units = list(trick.lead_units)
    answers = [answers_to(state.rules, u.kind) for u in units]
    singles = True
    for a in answers:
        if len(a) != 1 or a[0]:
            singles = False
            break
    # singles led: the one answer each ("any card") is always met, as _best_required finds
    if singles:
        return FollowSpec(n, m, suit, others, units, [0] * len(units), order, answers)
    head = [state.rules.memo_key, -1]
    for u in units:
        head.append(u.width * 256 + u.length)
    head.append(-2)
    required = _best_required(suit, order, units, answers, m, head)
    head.extend(required)
    return FollowSpec(n, m, suit, others, units, required, order, answers, memo=head)


def _best_required(suit: dict[int, int], order: CardOrder, units: list[Unit], answers,
                   m: int, head: list[int] | None = None) -> list[int]:
    """The best answer index per unit, lexicographically, that the suit holding allows
    (memoised on ``head``, the ruleset and the lead's kinds, when given)."""
    if head is None:
        return _find_required(suit, order, units, answers, m)
    key = _memo_key(head, m, suit, order)
    found = _REQUIRED.get(key)
    if found is None:
        if len(_REQUIRED) > 20_000:
            _REQUIRED.clear()
        found = _REQUIRED[key] = _find_required(suit, order, units, answers, m)
    return list(found)


_REQUIRED: Final[dict[tuple[int, ...], list[int]]] = {}
"""_best_required's answers, keyed as :data:`_ACHIEVED` is (without the answers owed)."""


def _find_required(suit: dict[int, int], order: CardOrder, units: list[Unit], answers,
                   m: int) -> list[int]:
    required: list[int] = []
    for i in range(len(units)):
        for j in range(len(answers[i])):
            trial = [*required, j] + [len(a) - 1 for a in answers[i + 1:]]
            if _search(suit, order, units, answers, trial, 0, m):
                required.append(j)
                break
    return required
