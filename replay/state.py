"""The state of one hand as the replayer keeps it (:class:`HandState`): the one object every
phase of :mod:`replay.phases` reads and advances.

It holds the true state (each seat's holding as a count vector plus a number of hidden cards,
trump, level, declarer, leader, the trick in progress, points taken) and the violations found
so far. Compiled with the engine (setup.py).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from gamelog.cards import CARD_BY_TOKEN, Rank, Suit
from gamelog.model import Hand
from gamelog.reader import RecordWarning
from replay.order import CardOrder
from replay.results import MatchContext
from replay.rulesets.base import Declaration, Outcome, Ruleset
from replay.trick import Trick, _rebuild, _state_of
from replay.violations import ViolationLog

RANK_OF: Final[dict[str, Rank]] = {str(r): r for r in Rank}
INDEX: Final[dict[str, int]] = {t: int(c) for t, c in CARD_BY_TOKEN.items()}
"""Card token -> index in a count vector (plain ints: the replay needs no more)."""
SUIT_OF: Final[dict[str, Suit]] = {"S": Suit.SPADES, "H": Suit.HEARTS, "C": Suit.CLUBS, "D": Suit.DIAMONDS}


_TABLES: Final[dict[int, tuple[list[int], int, int, int]]] = {}


def ruleset_tables(rules: Ruleset) -> tuple[list[int], int, int, int]:
    """A ruleset's points table, widest unit, hand size and kitty size, asked of it once per
    identity (:attr:`Ruleset.memo_key`: its class and options decide them; the ruleset's
    methods are Python, and a match header makes a new ruleset)."""
    found = _TABLES.get(rules.memo_key)
    if found is None:
        found = _TABLES[rules.memo_key] = (rules.points_table(), rules.max_width(),
                                           rules.hand_size(), rules.kitty_size())
    return found


class HandState:
    """Everything the rules need to judge the next event of a hand, grouped by the phase that
    sets it. Phases read any of it; each writes its own part (see docs/architecture.md)."""

    SEAT_FIELDS: ClassVar[tuple[str, ...]] = ("seat", "dealer", "declarer", "first_draw",
                                              "leader", "winner")
    """Fields of an event that name a seat (checked before any phase sees the event)."""

    def __init__(self, ruleset: Ruleset, hand: Hand, *, strict: bool = False,
                 context: MatchContext | None = None) -> None:
        self.rules = ruleset
        self.hand = hand
        self.context = context or MatchContext()
        self.log = ViolationLog(hand.match, hand.number, strict)
        n = ruleset.players
        self.players = n
        self.seq: int | None = None
        self.points_table, self.max_width, _, _ = ruleset_tables(ruleset)
        """The widest unit the ruleset knows (read often by legal plays and the rollouts)."""
        self.gaps = any(not isinstance(i, RecordWarning) for i in hand.issues)
        """Lines of this hand could not be read: a play out of turn then stops the replay."""
        self.stopped = False
        # -- the deal: holdings, kitty, dealer, level --
        self.held: list[list[int]] = [[0] * 54 for _ in range(n)]
        self.hidden = [0] * n
        self.left = [0] * n  # cards in each seat's hand, known or hidden
        self.known = False  # holdings set by a deal or set-up
        self.drawn: list[list[str]] | None = None  # the deal, for declarations
        self.first_draw = 0
        self.dealt_kitty: list[str] | None = None
        self.kitty: list[int] = []
        self.kitty_hidden = 0
        self.dealer: int | None = None
        self.declarer: int | None = None
        self.level: str | None = None
        self.levels: list[str] | None = None
        self.bombs: tuple[int, ...] = ()
        # -- declarations and trump --
        self.trump: Suit | None = None
        self.trump_known = False
        self.declaration: tuple[int, Declaration] | None = None
        self.dealer_by_declaring = False
        """The first hand: the dealer is whoever declares last (not known from the start)."""
        self.undetermined = False  # trump cannot be known: the play is not checked
        # -- auction (标分) --
        self.bids: list[tuple[int, int | None]] = []
        self.passed: set[int] = set()
        self.contract: int | None = None
        self.high_bidder: int | None = None
        self.auction_closed = False
        # -- kitty --
        self.kitty_seen = False
        self.kitty_buried = False
        # -- tricks --
        self.order: CardOrder | None = None
        self.class_left: list[list[int]] | None = None  # known cards per suit class, once
        self.holding_cache: list[dict[int, int] | None] | None = None
        """class_holding's answers by seat × 5 + class while a playout runs (``None``: off);
        :meth:`remove` drops the seat's. The answers are shared: read them, never change them."""
        self.judge: Any = None
        """The C core's checks for this hand's order (:func:`replay.phases.follow.core_judge`;
        ``None``: the Python checks alone)."""
        self.leader: int | None = None
        self.trick: Trick | None = None
        self.tricks: list[Trick] = []
        self.defender_points = 0
        self.tricks_before = 0
        self.void: list[set[int]] = [set() for _ in range(n)]
        # after a failed throw: the seat, the forced plays it may make (each the cards of one
        # lowest failing unit: ties are all acceptable, ruling 33b) and the cards it tried
        self.pending_forced: tuple[int, list[list[int]], list[int]] | None = None
        self.other_leaders: list[int] = []
        """Seats besides the last trick's winner that may lead the next (ruling 12)."""
        # -- outcome --
        self.outcome: Outcome | None = None
        self.finished = False
        self.surrendered = False
        self.round_options: list = []
        self._side: set[int] = set()
        self._side_of: int | None = None

    def __reduce__(self) -> tuple[Any, ...]:  # explicit: pickle and copy work compiled too
        state = _state_of(self)
        state["judge"] = None  # a C object: a copy is judged by the Python checks alone
        return (_rebuild, (type(self), (self.rules, self.hand), state))

    def violation(self, rule: str, message: str, **kw) -> None:  # type: ignore[no-untyped-def]
        """Record a broken rule at the current event and trick (unless ``kw`` says where)."""
        kw.setdefault("seq", self.seq)
        if "trick" not in kw:
            kw["trick"] = self.trick.number if self.trick else None
        self.log.add(rule, message, **kw)

    def cards_left(self, seat: int) -> int:
        return self.left[seat]

    def team_side(self, seat: int) -> bool:
        """True for the declarer's side."""
        if self.declarer is None:
            return False
        if self._side_of != self.declarer:
            self._side = self.rules.declarer_side(self.declarer)
            self._side_of = self.declarer
        return seat in self._side

    def class_holding(self, seat: int, klass: int) -> dict[int, int]:
        """A seat's known cards of one suit class, as card -> copies."""
        order = self.order
        assert order is not None
        cache = self.holding_cache
        if cache is not None:
            found = cache[seat * 5 + klass]
            if found is not None:
                return found
        held = self.held[seat]
        out: dict[int, int] = {}
        for c in order.members[klass]:
            copies: int = held[c]
            if copies:
                out[c] = copies
        if cache is not None:
            cache[seat * 5 + klass] = out
        return out

    def remove(self, seat: int, cards: list[int]) -> list[int]:
        """Take cards from a holding; a card not among the known ones uses up a hidden card;
        returns the cards that could not be there."""
        held: list[int] = self.held[seat]
        counts: list[int] | None = None
        klass: tuple[int, ...] = ()
        if self.class_left is not None and self.order is not None:
            counts, klass = self.class_left[seat], self.order.klass
        missing: list[int] = []
        taken = 0
        cache = self.holding_cache
        if cache is not None:
            for k in range(5):
                cache[seat * 5 + k] = None
        for c in cards:  # plain reads and writes: mypyc compiles `x[i] -= 1` generically
            n: int = held[c]
            if n > 0:
                held[c] = n - 1
                if counts is not None:
                    k = klass[c]
                    left_in_class: int = counts[k]
                    counts[k] = left_in_class - 1
            else:
                hidden: int = self.hidden[seat]
                if hidden > 0:
                    self.hidden[seat] = hidden - 1
                else:
                    missing.append(c)
                    continue
            taken += 1
        if taken:
            left: int = self.left[seat]
            self.left[seat] = left - taken
        return missing


def copy_state(o: HandState) -> HandState:
    """A copy of ``o`` for play to go on in (:func:`replay.search.clone`): every container
    copied one level down (lists of lists and sets included), everything else shared (the
    ruleset, the record, the card order, the points table, the completed tricks, tuples).
    The trick in progress, the violation log and the match context are shared here: the
    caller copies them. Attribute by attribute, so about ten times cheaper than going through
    ``copy.copy`` (``__reduce__`` and a dict of every attribute); ``tests/test_review.py``
    checks that it copies every attribute the class has."""
    new: HandState = type(o)(o.rules, o.hand, context=o.context)
    new.log = o.log
    new.players = o.players
    new.seq = o.seq
    new.points_table = o.points_table
    new.max_width = o.max_width
    new.gaps = o.gaps
    new.stopped = o.stopped
    new.held = [list(h) for h in o.held]
    new.hidden = list(o.hidden)
    new.left = list(o.left)
    new.known = o.known
    new.drawn = None if o.drawn is None else [list(d) for d in o.drawn]
    new.first_draw = o.first_draw
    new.dealt_kitty = None if o.dealt_kitty is None else list(o.dealt_kitty)
    new.kitty = list(o.kitty)
    new.kitty_hidden = o.kitty_hidden
    new.dealer = o.dealer
    new.declarer = o.declarer
    new.level = o.level
    new.levels = None if o.levels is None else list(o.levels)
    new.bombs = o.bombs
    new.trump = o.trump
    new.trump_known = o.trump_known
    new.declaration = o.declaration
    new.dealer_by_declaring = o.dealer_by_declaring
    new.undetermined = o.undetermined
    new.bids = list(o.bids)
    new.passed = set(o.passed)
    new.contract = o.contract
    new.high_bidder = o.high_bidder
    new.auction_closed = o.auction_closed
    new.kitty_seen = o.kitty_seen
    new.kitty_buried = o.kitty_buried
    new.order = o.order
    new.class_left = None if o.class_left is None else [list(c) for c in o.class_left]
    new.holding_cache = None  # the copy's holdings change apart: its own cache, if any
    new.judge = o.judge
    new.leader = o.leader
    new.trick = o.trick
    new.tricks = list(o.tricks)
    new.defender_points = o.defender_points
    new.tricks_before = o.tricks_before
    new.void = [set(v) for v in o.void]
    new.pending_forced = o.pending_forced
    new.other_leaders = list(o.other_leaders)
    new.outcome = o.outcome
    new.finished = o.finished
    new.surrendered = o.surrendered
    new.round_options = list(o.round_options)
    new._side = set(o._side)
    new._side_of = o._side_of
    return new


def held_list(counts: dict[int, int]) -> list[int]:
    """Card -> copies as a sorted list of cards."""
    return [c for c, n in sorted(counts.items()) for _ in range(n)]
