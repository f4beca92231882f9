"""A trick as the rules decide it (:class:`Trick`, one :class:`TrickPlay` per seat) and how
strongly a play competes in it (:func:`play_strength`). Compiled with the engine (setup.py)."""

from __future__ import annotations

from typing import Any

from replay.order import TRUMP, CardOrder
from replay.units import Unit, best_value


class TrickPlay:
    """One seat's cards in a trick, the event's sequence number, and the play's role once the
    trick is complete: ``lead``, ``follow`` (all of the led suit), ``trump`` (all trumps, on an
    off-suit lead, having none of it), or ``discard`` (anything else: 垫牌)."""

    __slots__ = ("cards", "role", "seat", "seq")

    def __init__(self, seat: int, cards: list[int], seq: int, role: str = "") -> None:
        self.seat = seat
        self.cards = cards
        self.seq = seq
        self.role = role

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TrickPlay):
            return NotImplemented
        return self.seat == other.seat and self.cards == other.cards and self.seq == other.seq

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it was

    def __repr__(self) -> str:
        return f"TrickPlay(seat={self.seat}, cards={self.cards!r}, seq={self.seq})"

    def __reduce__(self) -> tuple[Any, ...]:  # explicit: pickle works compiled too
        return (TrickPlay, (self.seat, self.cards, self.seq, self.role))


class Trick:
    """A trick as the rules decide it (a plain slotted class: one is made per trick)."""

    __slots__ = ("failed_throw", "forced", "lead_class", "lead_kinds", "lead_size",
                 "lead_units", "leader", "number", "plays", "points", "singles_only", "special",
                 "throw", "trumped", "winner")

    def __init__(self, number: int, leader: int) -> None:
        self.number = number
        self.leader = leader
        self.plays: list[TrickPlay] = []
        self.lead_units: list[Unit] = []
        self.lead_class = 0
        self.winner: int | None = None
        self.points = 0
        self.trumped = False
        self.throw = False
        self.failed_throw: list[int] | None = None  # the cards attempted, when a throw failed
        self.special = ""
        """The special pattern the trick was led with (打万分's 同花顺 / 发财 / 四季), if any."""
        self.forced: list[list[int]] | None = None
        """After a failed throw: the forced plays the rules allow (each a lowest failing
        unit; several when they tie, ruling 33b; empty when hidden cards decide)."""
        self.lead_size = 0
        self.lead_kinds: list[tuple[int, int]] = []
        self.singles_only = True

    def __reduce__(self) -> tuple[Any, ...]:  # explicit: pickle and copy work compiled too
        return (_rebuild, (Trick, (self.number, self.leader), _state_of(self)))

    def __repr__(self) -> str:
        return (f"Trick(number={self.number}, leader={self.leader}, winner={self.winner}, "
                f"points={self.points}, plays={self.plays!r})")


def made_trick(number: int, leader: int, plays: list[TrickPlay], units: list[Unit],
               kinds: list[tuple[int, int]], lead_class: int, lead_size: int,
               singles_only: bool, throw: bool, winner: int, points: int,
               trumped: bool) -> Trick:
    """A complete trick as the C core judged it (``replay/_greedy.c``'s ``run_tricks``), with
    what :mod:`replay.phases.tricks` would have set on it."""
    trick = Trick(number, leader)
    trick.plays = plays
    trick.lead_units = units
    trick.lead_kinds = kinds
    trick.lead_class = lead_class
    trick.lead_size = lead_size
    trick.singles_only = singles_only
    trick.throw = throw
    trick.winner = winner
    trick.points = points
    trick.trumped = trumped
    return trick


def _state_of(obj: object) -> dict[str, Any]:
    """An object's attributes, compiled (mypyc lists them per class) or not."""
    names: list[str] = []
    for klass in type(obj).__mro__:
        own = klass.__dict__.get("__mypyc_attrs__") or klass.__dict__.get("__slots__")
        if own:
            names.extend(n for n in own if n not in names and n != "__dict__")
    if not names:
        return dict(vars(obj))
    state = {name: getattr(obj, name) for name in names if hasattr(obj, name)}
    extra = getattr(obj, "__dict__", None)
    if extra:
        state.update(extra)
    return state


def _rebuild(cls: Any, args: tuple[Any, ...], state: dict[str, Any]) -> Any:
    """Unpickle (or copy) a :class:`Trick` or a hand's state: a compiled class cannot be made
    without calling its ``__init__``."""
    obj = cls(*args)
    for name, value in state.items():
        setattr(obj, name, value)
    return obj


def play_strength(order: CardOrder, lead_class: int, kinds: list[tuple[int, int]],
                  cards: list[int]) -> tuple[int, int] | None:
    """How strongly ``cards`` compete in a trick led in ``lead_class`` with units ``kinds``:
    ``(0, v)`` in the led suit, ``(1, v)`` trumping an off-suit lead, ``None`` when it cannot
    win (another suit, or the lead's units not covered: ruling 7). Higher wins; ties go to the
    first played."""
    klass = order.klass
    first = klass[cards[0]]
    rank = _rank(first, lead_class)
    if rank < 0:
        return None
    power = order.power
    n = len(cards)
    if n == 1:
        return (rank, power[cards[0]])
    if len(kinds) == 1:
        width, length = kinds[0]
        if length == 1 and width == n:  # one n-of-a-kind led: n copies of one card, or none
            card = cards[0]
            for c in cards:
                if c != card:
                    break
            else:
                return (rank, power[card])
            return None  # n cards that are not n copies of one card hold no n-of-a-kind
    for c in cards:
        if klass[c] != first:
            return None
    singles = True
    for width, _ in kinds:
        if width != 1:
            singles = False
            break
    if singles:  # singles only led: the highest card (as best_value finds it)
        top = -1
        for c in cards:
            if power[c] > top:
                top = power[c]
        return (rank, top)
    counts: dict[int, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    value = best_value(counts, order, kinds)
    return None if value is None else (rank, value)


def _rank(first: int, lead_class: int) -> int:
    """The rank of a play whose first card is of class ``first`` (see :func:`play_strength`):
    0 in the led suit, 1 trumping an off-suit lead, -1 when it cannot win."""
    if first == lead_class:
        return 0
    if lead_class != TRUMP and first == TRUMP:
        return 1
    return -1


def strength_bound(order: CardOrder, lead_class: int, cards: list[int]) -> int:
    """An upper bound on :func:`play_strength` as a code (rank * 2**16 + value): the play's
    rank with its highest card's power, since the value is a top power of a unit of its cards;
    -1 when it cannot win. A play whose bound does not beat the best so far need not be valued
    (the trick's winner, the rollout player's follows)."""
    rank = _rank(order.klass[cards[0]], lead_class)
    if rank < 0:
        return -1
    power = order.power
    top = 0
    for c in cards:
        p = power[c]
        if p > top:
            top = p
    return rank * 65536 + top


def voids_shown(order: CardOrder, tricks: list[Trick], players: int) -> list[set[int]]:
    """The suit classes each seat has shown a void in on ``tricks``: it followed with fewer
    cards of the led class than were led (see :func:`replay.deals.shown_voids`, which adds the
    engine's record). What any seat at the table can read from the play."""
    out: list[set[int]] = [set() for _ in range(players)]
    klass = order.klass
    for t in tricks:
        if t.special or len(t.plays) < 2:
            continue
        k = t.lead_class
        for p in t.plays[1:]:
            if sum(1 for c in p.cards if klass[c] == k) < t.lead_size:
                out[p.seat].add(k)
    return out
