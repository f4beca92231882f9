"""The replayer: walks every event of a hand against a ruleset and reports every violation.

It keeps the true state (each seat's holding as a count vector plus a number of hidden cards,
trump, level, declarer, leader, the trick in progress, points taken) and goes on after every
violation with the recorded play, so that later checks stay meaningful. How the state is updated
after each kind of violation is documented in docs/rules/engine.md.

Why one module of about 1,300 lines (``HandReplay`` the most of it): mypyc compiles it as one
unit (setup.py), and the handlers share the state object; issue 26 turns it into a pipeline of
phases (deal and declarations, auction, kitty, tricks, outcome) with the ruleset hooks grouped
by phase, and issue 27 compiles that smaller hot path.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from gamelog.cards import CARD_BY_TOKEN, UNKNOWN, Card, Rank, Suit
from gamelog.model import (
    Bid,
    Deal,
    Declare,
    Event,
    Hand,
    HandStart,
    KittyBury,
    KittyTake,
    Pass,
    Play,
    Result,
    Setup,
    Surrender,
    ThrowFail,
    TrickEnd,
    TrumpChosen,
)
from gamelog.reader import RecordWarning
from replay.order import TRUMP, CardOrder
from replay.results import HandReport, MatchContext
from replay.rulesets.base import Declaration, Outcome, Ruleset
from replay.units import (
    Unit,
    beats_unit,
    best_value,
    counts_of,
    cover_all,
    decompose,
    shape_size,
    unit_name,
)
from replay.violations import StrictStop, ViolationLog, show

RANK_OF = {str(r): r for r in Rank}
_INDEX: dict[str, int] = {t: int(c) for t, c in CARD_BY_TOKEN.items()}
"""Card token -> index in a count vector (plain ints: the replay needs no more)."""
_ANSWERS: dict[tuple, tuple[int, ...]] = {}
_DECLARATIONS: dict[tuple, tuple[Ruleset, Declaration | str]] = {}
"""What shown cards declare, per ruleset object (kept in the value, so that a reused id never
matches another ruleset)."""
SUIT_OF = {"S": Suit.SPADES, "H": Suit.HEARTS, "C": Suit.CLUBS, "D": Suit.DIAMONDS}
LEVEL_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]


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


def _state_of(obj: object) -> dict[str, Any]:
    """An object's attributes, compiled (mypyc lists them) or not."""
    names = getattr(type(obj), "__mypyc_attrs__", None) or getattr(type(obj), "__slots__", None)
    if names is None:
        return dict(vars(obj))
    return {name: getattr(obj, name) for name in names}


def _rebuild(cls: Any, args: tuple[Any, ...], state: dict[str, Any]) -> Any:
    """Unpickle (or copy) a :class:`Trick` or :class:`HandReplay`: a compiled class cannot be
    made without calling its ``__init__``."""
    obj = cls(*args)
    for name, value in state.items():
        setattr(obj, name, value)
    return obj


class HandReplay:
    """The state of one hand, advanced one event at a time with :meth:`apply`."""

    def __init__(self, ruleset: Ruleset, hand: Hand, *, strict: bool = False,
                 context: MatchContext | None = None) -> None:
        self.rules = ruleset
        self.hand = hand
        self.context = context or MatchContext()
        self.log = ViolationLog(hand.match, hand.number, strict)
        n = ruleset.players
        self.players = n
        self.held: list[list[int]] = [[0] * 54 for _ in range(n)]
        self.hidden = [0] * n
        self.known = False  # holdings set by a deal or set-up
        self.drawn: list[list[str]] | None = None  # the deal, for declarations
        self.first_draw = 0
        self.dealt_kitty: list[str] | None = None
        self.kitty: list[int] = []
        self.kitty_hidden = 0
        self.kitty_buried = False
        self.dealer: int | None = None
        self.declarer: int | None = None
        self.level: str | None = None
        self.levels: list[str] | None = None
        self.trump: Suit | None = None
        self.trump_known = False
        self.declaration: tuple[int, Declaration] | None = None
        self.order: CardOrder | None = None
        self.leader: int | None = None
        self.trick: Trick | None = None
        self.tricks: list[Trick] = []
        self.defender_points = 0
        self.tricks_before = 0
        self.void: list[set[int]] = [set() for _ in range(n)]
        # after a failed throw: the seat, the forced plays it may make (each the cards of one
        # lowest failing unit: ties are all acceptable, ruling 33b) and the cards it tried
        self.pending_forced: tuple[int, list[list[int]], list[int]] | None = None
        self.outcome: Outcome | None = None
        self.finished = False
        self.undetermined = False
        self.other_leaders: list[int] = []
        """Seats besides the last trick's winner that may lead the next (ruling 12)."""
        self.dealer_by_declaring = False
        """The first hand: the dealer is whoever declares last (not known from the start)."""
        self.gaps = any(not isinstance(i, RecordWarning) for i in hand.issues)
        """Lines of this hand could not be read: a play out of turn then stops the replay."""
        self.stopped = False
        self.seq: int | None = None
        self.points_table = ruleset.points_table()
        self.left = [0] * n  # cards in each seat's hand, known or hidden
        self.bids: list[tuple[int, int | None]] = []
        self.passed: set[int] = set()
        self.contract: int | None = None
        self.high_bidder: int | None = None
        self.auction_closed = False
        self.kitty_seen = False
        self.surrendered = False
        self.bombs: tuple[int, ...] = ()
        self.round_options: list = []
        self._side: set[int] = set()
        self._side_of: int | None = None
        self.class_left: list[list[int]] | None = None  # known cards per suit class, once

    def __reduce__(self) -> tuple[Any, ...]:  # explicit: pickle and copy work compiled too
        return (_rebuild, (HandReplay, (self.rules, self.hand), _state_of(self)))

    # -- helpers ----------------------------------------------------------------------------------

    def violation(self, rule: str, message: str, **kw) -> None:  # type: ignore[no-untyped-def]
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
        order = self.order
        assert order is not None
        held = self.held[seat]
        return {c: held[c] for c in order.members[klass] if held[c]}

    # -- events ---------------------------------------------------------------------------------

    def apply(self, ev: Event) -> None:
        if self.stopped:
            return
        self.seq = ev.seq
        kind = type(ev)
        if kind is Play and not self.finished:  # the hot path: most events are plays
            if 0 <= ev.seat < self.players:  # type: ignore[union-attr,attr-defined]
                self.on_play(ev)  # type: ignore[arg-type]
                return
        elif kind is TrickEnd:  # the next most frequent: one per trick
            winner = ev.winner  # type: ignore[union-attr,attr-defined]
            if 0 <= winner < self.players:
                self.on_trick_claim(ev)  # type: ignore[arg-type]
                return
        elif self.finished and kind is not Result:
            self.violation("hand.event-after-end",
                           f"a {kind.__name__} event comes after the last trick.")
            return
        handler = _HANDLERS.get(kind)
        if handler is None or not self._seats_exist(ev):
            return
        handler(self, ev)

    _SEAT_FIELDS: ClassVar[tuple[str, ...]] = ("seat", "dealer", "declarer", "first_draw", "leader", "winner")

    def _seats_exist(self, ev: Event) -> bool:
        """Every seat an event names is at the table; otherwise it is reported and skipped."""
        for name in _seat_fields(type(ev)):
            seat = getattr(ev, name)
            if seat is not None and not 0 <= seat < self.players:
                self.violation("event.no-such-seat",
                               f"the {type(ev).__name__} event names seat {seat}, but the table "
                               f"has seats 0 to {self.players - 1}; the event is skipped.")
                return False
        for b in getattr(ev, "blockers", None) or []:
            if not 0 <= b.seat < self.players:
                self.violation("event.no-such-seat",
                               f"a blocker names seat {b.seat}, but the table has seats 0 to "
                               f"{self.players - 1}; the event is skipped.")
                return False
        return True

    def on_hand(self, ev: HandStart) -> None:
        length = self.rules.round_length
        if length and (ev.hand - 1) % length == 0:
            self.context.round_declarers = []
        self.dealer = ev.dealer
        self.declarer = ev.declarer if ev.declarer is not None else ev.dealer
        self.first_draw = ev.first_draw or 0
        self.levels = list(ev.levels) if ev.levels else self.context.levels
        self.level = ev.level
        ctx = self.context
        target = self.rules.match_target
        if target is not None and ctx.scores is not None and max(ctx.scores) >= target:
            self.violation("hand.after-match-end",
                           f"a hand is played after team {ctx.scores.index(max(ctx.scores))} "
                           f"reached {target:,} points (scores {ctx.scores}), which won the "
                           "match.", required="no further hand")
        dealers = ctx.accepted_dealers or ([ctx.next_dealer] if ctx.next_dealer is not None else [])
        if dealers and ev.dealer is not None and ev.dealer not in dealers:
            self.violation("hand.dealer-mismatch",
                           f"seat {ev.dealer} deals, but the previous hand's result gives the "
                           f"deal to seat {ctx.next_dealer}.", seat=ev.dealer,
                           required=f"seat {ctx.next_dealer} deals")
        accepted = ctx.accepted_levels or ([ctx.levels] if ctx.levels is not None else [])
        if accepted and ev.levels is not None and list(ev.levels) not in accepted:
            self.violation("hand.level-mismatch",
                           f"the hand starts with levels {'/'.join(ev.levels)}, but the previous "
                           f"hands give {'/'.join(accepted[0])}.",
                           required="levels " + "/".join(accepted[0]))
        if self.dealer is None and ctx.next_dealer is not None:
            self.dealer = self.declarer = ctx.next_dealer

    def on_deal(self, ev: Deal) -> None:
        r = self.rules
        self._set_holdings(ev.holdings, ev.kitty)
        self.drawn = [list(h) for h in ev.holdings]
        self.dealt_kitty = list(ev.kitty) if ev.kitty is not None else None
        sizes = [len(h) for h in ev.holdings]
        hand_size, kitty_size = r.hand_size(), r.kitty_size()
        if len(ev.holdings) != self.players or any(s != hand_size for s in sizes) or (
                ev.kitty is not None and len(ev.kitty) != kitty_size):
            self.violation("deal.card-count",
                           f"the deal gives {sizes} cards and a kitty of "
                           f"{len(ev.kitty) if ev.kitty is not None else 'none'}; "
                           f"{r.title} deals {hand_size} to each of {self.players} seats and "
                           f"{kitty_size} to the kitty.",
                           required=f"{self.players} × {hand_size} + {kitty_size}")
        self._check_conservation(exact=ev.kitty is not None)
        self._find_bombs()

    def _find_bombs(self) -> None:
        """Seats holding eight cards of one rank (标分's 炸弹, ruling 58), in a deal or a set-up
        position alike."""
        self.bombs = tuple(seat for seat, h in enumerate(self.held)
                           if max(h[r] + h[13 + r] + h[26 + r] + h[39 + r] for r in range(13)) >= 8)

    def on_setup(self, ev: Setup) -> None:
        self._set_holdings(ev.holdings, ev.kitty)
        if ev.trump is not None:
            self.trump = None if ev.trump == "NT" else SUIT_OF[ev.trump]
            self.trump_known = True
        if ev.level is not None:
            self.level = ev.level
        if ev.declarer is not None:
            self.declarer = ev.declarer
            if self.dealer is None:
                self.dealer = ev.declarer
        self.leader = ev.leader
        self.defender_points = ev.points
        self.tricks_before = ev.tricks
        self.kitty_buried = True  # a set-up starts at a trick boundary
        if ev.contract is not None:  # an auction game past its auction
            self.contract = ev.contract
            self.auction_closed = True
        self._check_conservation(exact=False)
        self._find_bombs()

    def _set_holdings(self, holdings: list[list[str]], kitty: list[str] | None) -> None:
        for seat, tokens in enumerate(holdings[: self.players]):
            self.left[seat] += len(tokens)
            for t in tokens:
                if t == UNKNOWN:
                    self.hidden[seat] += 1
                else:
                    self.held[seat][_INDEX[t]] += 1
        if kitty is not None:
            self.kitty = [_INDEX[t] for t in kitty if t != UNKNOWN]
            self.kitty_hidden = sum(1 for t in kitty if t == UNKNOWN)
        self.known = True

    def _check_conservation(self, exact: bool) -> None:
        decks = self.rules.decks
        total = [0] * 54
        for held in self.held:
            for c in range(54):
                total[c] += held[c]
        for c in self.kitty:
            total[c] += 1
        extra = [c for c in range(54) if total[c] > decks]
        hidden = sum(self.hidden) + self.kitty_hidden
        missing = [c for c in range(54) if total[c] < decks]
        if extra:
            self.violation("deal.not-a-deck",
                           f"the deal has more copies of {show(extra)} than {decks} deck(s) hold.",
                           cards=extra, required=f"at most {decks} of each card")
        elif exact and not hidden and missing:
            self.violation("deal.not-a-deck",
                           f"the deal lacks {show(missing)}: it is not {decks} full deck(s).",
                           cards=missing, required=f"exactly {decks} of each card")

    def on_declare(self, ev: Declare) -> None:
        r = self.rules
        cards = [_INDEX[t] for t in ev.cards]
        level = RANK_OF.get(self._current_level_for_declaring(), Rank.TWO)
        key = (id(r), tuple(cards), level)
        found = _DECLARATIONS.get(key)
        if found is None or found[0] is not r:
            if len(_DECLARATIONS) > 1000:
                _DECLARATIONS.clear()
            found = _DECLARATIONS[key] = (r, r.declaration([Card(c) for c in cards], level))
        decl = found[1]
        if isinstance(decl, str):
            self.violation("declare.not-a-step", f"seat {ev.seat} shows {show(cards)}: {decl}.",
                           seat=ev.seat, cards=cards)
            return
        dealt = sum(map(len, self.drawn)) if self.drawn is not None else 0
        if self.drawn is not None and ev.drawn is not None and not 0 <= ev.drawn <= dealt:
            self.violation("declare.cards-not-held",
                           f"seat {ev.seat} declares with {show(cards)} after {ev.drawn} cards "
                           f"had been dealt, but the deal has {dealt} cards in all.",
                           seat=ev.seat, cards=cards)
        elif self.drawn is not None and 0 <= ev.seat < len(self.drawn):
            held_then = self._held_at(ev.seat, ev.drawn)
            if held_then is not None:
                need = counts_of(cards)
                lacking = [c for c, n in need.items() if held_then.get(c, 0) < n]
                if lacking:
                    when = (f"after {ev.drawn} cards had been dealt" if ev.drawn is not None
                            else "after the deal")
                    self.violation("declare.cards-not-held",
                                   f"seat {ev.seat} declares with {show(cards)} but did not hold "
                                   f"them {when}.", seat=ev.seat, cards=cards,
                                   required=f"seat {ev.seat} held {show(self._held_list(held_then))}")
        prev = self.declaration
        if prev is not None:
            pseat, pdecl = prev
            switched = pdecl.trump != decl.trump or (
                pdecl.card is not None and decl.card is not None and pdecl.card != decl.card)
            if pseat == ev.seat and switched:
                self.violation("declare.own-switch",
                               f"seat {ev.seat} overrides its own declaration of {pdecl.label} "
                               f"with {decl.label}; a seat may only reinforce its own suit.",
                               seat=ev.seat, cards=cards)
            elif decl.step <= pdecl.step:
                self.violation("declare.not-higher",
                               f"seat {ev.seat} declares {decl.label}, which does not rank "
                               f"above seat {pseat}'s declaration ({pdecl.label}).",
                               seat=ev.seat, cards=cards, required="a strictly higher declaration")
        self.declaration = (ev.seat, decl)
        self.trump = decl.trump
        self.trump_known = True
        if (self.dealer is None and prev is None) or (
                self.dealer_by_declaring and self.rules.first_dealer_declares_last):
            # 第一局的庄家由翻主方担任: the seat whose declaration stands at the end of declaring,
            # after every override, deals and takes the kitty (ruling 33c)
            self.dealer = self.declarer = ev.seat
            self.dealer_by_declaring = True

    def _current_level_for_declaring(self) -> str:
        if self.level:
            return self.level
        if self.levels and self.dealer is not None:
            return self.levels[self.rules.team_of(self.dealer, self.declarer)]
        if self.levels and len(set(self.levels)) == 1:
            return self.levels[0]
        return "2"

    def _held_at(self, seat: int, drawn: int | None) -> dict[int, int] | None:
        assert self.drawn is not None
        cards = self.drawn[seat]
        if drawn is not None:
            offset = (seat - self.first_draw) % self.players  # the seat's first card
            k = 0 if drawn <= offset else (drawn - offset - 1) // self.players + 1
            cards = cards[:k]
        if any(t == UNKNOWN for t in cards):
            return None
        return counts_of([_INDEX[t] for t in cards])

    @staticmethod
    def _held_list(counts: dict[int, int]) -> list[int]:
        return [c for c, n in sorted(counts.items()) for _ in range(n)]

    def on_trump(self, ev: TrumpChosen) -> None:
        named = None if ev.trump == "NT" else SUIT_OF[ev.trump]
        if self.rules.has_auction:
            self.close_auction()
            if self.declarer is not None and ev.seat != self.declarer:
                self.violation("auction.trump-wrong-seat",
                               f"seat {ev.seat} names trump, but seat {self.declarer} won the "
                               "auction.", seat=ev.seat, required=f"seat {self.declarer} names it")
            if self.kitty_seen:
                self.violation("auction.trump-after-kitty",
                               "trump is named after the declarer has taken the kitty; it must be "
                               "named before seeing it.", seat=ev.seat)
            if named is None:
                self.violation("auction.trump-not-a-suit",
                               "the declarer must name one of the four suits, not no-trump.",
                               seat=ev.seat)
        if self.declaration is None:
            options = self._kitty_trumps()
            if options is not None and named not in options:
                what = " or ".join("no-trump" if due is None else due.name.lower()
                                   for due in options)
                self.violation("trump.wrong",
                               f"nobody declared, so the kitty's cards name trump ({what}), but "
                               f"the record makes {ev.trump} trump.", seat=ev.seat,
                               required=f"trump {what}")
        self.trump = named
        self.trump_known = True

    def _kitty_trump(self) -> Suit | str | None:
        """Trump by the ruleset's rule for a deal without declarations, where it decides one
        (``"undetermined"`` where it does not, or leaves a choice)."""
        options = self._kitty_trumps()
        if options is None or len(options) != 1:
            return "undetermined"
        return options[0]

    def _kitty_trumps(self) -> list[Suit | None] | None:
        """Every trump the ruleset's rule allows for a deal without declarations (``None``:
        the rule decides nothing here)."""
        if self.dealt_kitty is None or UNKNOWN in self.dealt_kitty:
            return None
        return self.rules.trumps_without_declaration(
            [Card(_INDEX[t]) for t in self.dealt_kitty], self.level)

    def on_auction(self, ev: Bid | Pass) -> None:
        if not self.rules.has_auction:
            self.violation("auction.not-allowed",
                           f"{self.rules.name} has no auction, but seat {ev.seat} bids or passes.",
                           seat=ev.seat)
            return
        seat = ev.seat
        if self.auction_closed:
            self.violation("auction.out-of-turn",
                           f"seat {seat} bids or passes after the auction has closed.", seat=seat)
            return
        if self.bids:
            expected = self.next_bidder()
            if expected is not None and seat != expected:
                self.violation("auction.out-of-turn",
                               f"seat {seat} bids or passes, but it is seat {expected}'s turn.",
                               seat=seat, required=f"seat {expected} bids or passes")
        if seat in self.passed:
            self.violation("auction.after-pass",
                           f"seat {seat} has passed, and a pass is final, but it bids again.",
                           seat=seat)
        if isinstance(ev, Bid):
            why = self.rules.check_bid(ev.points, self.contract)
            if why is not None:
                rule = "auction.not-lower" if "lower" in why else "auction.bad-amount"
                self.violation(rule, f"seat {seat} bids {ev.points}: {why}.", seat=seat)
            self.contract = ev.points
            self.high_bidder = seat
        else:
            self.passed.add(seat)
        self.bids.append((seat, ev.points if isinstance(ev, Bid) else None))

    def next_bidder(self) -> int | None:
        """The next seat still in the auction after the last one to act."""
        last = self.bids[-1][0]
        for k in range(1, self.players + 1):
            seat = (last + k) % self.players
            if seat not in self.passed:
                return seat
        return None

    def close_auction(self) -> None:
        """Settle the declarer once the auction is over: the lowest bidder, or the opener at 80
        if nobody bid (ruling 54)."""
        if self.auction_closed or not self.rules.has_auction:
            return
        self.auction_closed = True
        if self.high_bidder is not None:
            self.declarer = self.dealer = self.high_bidder
        elif self.bids:
            self.declarer = self.dealer = self.bids[0][0]
            self.contract = 80
        elif self.declarer is not None:
            self.dealer = self.declarer

    def on_kitty_take(self, ev: KittyTake) -> None:
        self.close_auction()
        self.kitty_seen = True
        if self.declarer is not None and ev.seat != self.declarer:
            self.violation("kitty.wrong-seat",
                           f"seat {ev.seat} takes the kitty, but seat {self.declarer} declares.",
                           seat=ev.seat, required=f"seat {self.declarer} takes the kitty")
        taken = [_INDEX[t] for t in ev.cards if t != UNKNOWN]
        hidden = sum(1 for t in ev.cards if t == UNKNOWN)
        known = self.dealt_kitty is not None and UNKNOWN not in self.dealt_kitty and not hidden
        if known and sorted(taken) != sorted(self.kitty):
            self.violation("kitty.take-mismatch",
                           f"seat {ev.seat} takes {show(taken)}, but the kitty dealt was "
                           f"{show(self.kitty)}.", seat=ev.seat, cards=taken,
                           required=f"the kitty {show(self.kitty)}")
        for c in taken:
            self.held[ev.seat][c] += 1
        self.hidden[ev.seat] += hidden
        self.left[ev.seat] += len(ev.cards)
        self.kitty = []
        self.kitty_hidden = 0

    def on_kitty_bury(self, ev: KittyBury) -> None:
        r = self.rules
        if self.declarer is not None and ev.seat != self.declarer:
            self.violation("kitty.wrong-seat",
                           f"seat {ev.seat} buries the kitty, but seat {self.declarer} declares.",
                           seat=ev.seat, required=f"seat {self.declarer} buries")
        if len(ev.cards) != r.kitty_size():
            self.violation("kitty.wrong-size",
                           f"seat {ev.seat} buries {len(ev.cards)} cards; the kitty has "
                           f"{r.kitty_size()}.", seat=ev.seat,
                           required=f"{r.kitty_size()} cards")
        cards = [_INDEX[t] for t in ev.cards if t != UNKNOWN]
        hidden = sum(1 for t in ev.cards if t == UNKNOWN)
        missing = self._remove(ev.seat, cards)
        if missing:
            self.violation("kitty.bury-not-held",
                           f"seat {ev.seat} buries {show(missing)}, which it does not hold.",
                           seat=ev.seat, cards=missing)
        take_hidden = min(hidden, self.hidden[ev.seat])
        self.hidden[ev.seat] -= take_hidden
        self.left[ev.seat] -= take_hidden
        self.kitty = cards
        self.kitty_hidden = hidden
        self.kitty_buried = True

    def _remove(self, seat: int, cards: list[int]) -> list[int]:
        """Take cards from a holding; a card not among the known ones uses up a hidden card;
        returns the cards that could not be there."""
        held: list[int] = self.held[seat]
        counts: list[int] | None = None
        klass: tuple[int, ...] = ()
        if self.class_left is not None and self.order is not None:
            counts, klass = self.class_left[seat], self.order.klass
        missing: list[int] = []
        for c in cards:
            if held[c] > 0:
                held[c] -= 1
                if counts is not None:
                    counts[klass[c]] -= 1
            elif self.hidden[seat] > 0:
                self.hidden[seat] -= 1
            else:
                missing.append(c)
                continue
            self.left[seat] -= 1
        return missing

    def on_surrender(self, ev: Surrender) -> None:
        if not self.rules.allows_surrender:
            self.violation("surrender.not-allowed",
                           f"{self.rules.name} has no surrender, but seat {ev.seat} surrenders.",
                           seat=ev.seat)
            return
        self.close_auction()
        if self.declarer is not None and ev.seat != self.declarer:
            self.violation("surrender.not-declarer",
                           f"seat {ev.seat} surrenders, but only the declarer "
                           f"(seat {self.declarer}) may.", seat=ev.seat)
            return
        if self.tricks or self.trick is not None:
            self.violation("surrender.too-late",
                           f"seat {ev.seat} surrenders after play has begun; the declarer may "
                           "surrender only before the first lead.", seat=ev.seat)
            return
        self.surrendered = True
        if self.declarer is not None:
            out = self.rules.surrender_outcome(self.declarer, self.contract)
            if out is None:
                self.log.notice("the seed's text on surrender below 55 is cut off; the "
                                "settlement is not checked", self.seq)
            else:
                self._close_round(out)
            self.outcome = out
        self.finished = True

    # -- play -----------------------------------------------------------------------------------

    def start_play(self) -> bool:
        """Fix trump and card order before the first play; ``False`` if it cannot be known."""
        if self.order is not None:
            return True
        self.close_auction()
        if self.undetermined:
            return False
        if not self.trump_known:
            default = self._kitty_trump()
            if default != "undetermined":
                self.trump = default  # type: ignore[assignment]
                self.trump_known = True
        if not self.trump_known:
            self.log.notice("the record never says which suit is trump (nobody declared and no "
                            "trump event); the seed is silent, so the play is not checked",
                            self.seq)
            self.undetermined = True
            return False
        if self.level is None:
            self.level = self._current_level_for_declaring()
        level = RANK_OF.get(self.level) if self.level != "NT" else None
        self.order = self.rules.order(self.trump, level)
        klass = self.order.klass
        self.class_left = [[0] * 5 for _ in range(self.players)]
        for seat, held in enumerate(self.held):
            counts = self.class_left[seat]
            for c in range(54):
                if held[c]:
                    counts[klass[c]] += held[c]
        if self.leader is None:
            self.leader = self.declarer
        if self.dealt_kitty is not None and not self.kitty_buried:
            self.violation("kitty.not-buried",
                           "play starts before the declarer has buried the kitty.",
                           seat=self.declarer)
        return True

    def on_throw_fail(self, ev: ThrowFail) -> None:
        if not self.start_play():
            return
        order = self.order
        assert order is not None
        cards = [_INDEX[t] for t in ev.cards]
        self._check_turn(ev.seat, leading=True)
        held = self.held[ev.seat]
        need = counts_of(cards)
        lacking = [c for c, n in need.items() if held[c] < n]
        if lacking and not self.hidden[ev.seat]:
            self.violation("play.card-not-held",
                           f"seat {ev.seat} tries to throw {show(cards)} without holding "
                           f"{show(lacking)}.", seat=ev.seat, cards=lacking)
        klass = {order.klass[c] for c in cards}
        units = decompose(cards, order) if len(klass) == 1 else []
        if len(units) < 2:
            self.violation("throw.fail-unfounded",
                           f"seat {ev.seat}'s {show(cards)} is not a throw of several units of "
                           f"one suit, so it cannot fail as one.", seat=ev.seat, cards=cards)
            return
        k = klass.pop()
        failing, undecided = self._failing_units(ev.seat, k, units)
        claimed: list[Unit] = []
        for b in ev.blockers or []:
            bcards = [_INDEX[t] for t in b.cards]
            bheld = self.held[b.seat] if b.seat < self.players else [0] * 54
            bcounts = counts_of(bcards)
            held_ok = all(bheld[c] >= n for c, n in bcounts.items()) or self.hidden[b.seat] > 0
            beaten = [u for u in units
                      if all(order.klass[c] == k for c in bcards)
                      and beats_unit(bcounts, order, u) is not None]
            if not held_ok or not beaten or b.seat == ev.seat:
                self.violation("throw.blocker-wrong",
                               f"the record says seat {b.seat} could beat the throw with "
                               f"{show(bcards)}, but "
                               + ("it does not hold them." if not held_ok else
                                  "those cards beat no unit of it."),
                               seat=b.seat, cards=bcards)
            claimed.extend(beaten)
        if not failing and not undecided and not claimed:
            self.violation("throw.fail-unfounded",
                           f"seat {ev.seat}'s throw {show(cards)} is recorded as failed, but no "
                           "other seat can beat any of its units.", seat=ev.seat, cards=cards)
            return
        pool = [f[0] for f in failing] or claimed
        if not pool:  # only hidden cards could beat it: which unit fails is not known
            self.log.notice("hidden cards decide which unit of the failed throw is beaten; the "
                            "forced play is not checked", self.seq)
            self.pending_forced = (ev.seat, [], cards)
            return
        lowest = min((u.low, u.size) for u in pool)
        options = [u.all_cards() for u in pool if (u.low, u.size) == lowest]
        self.pending_forced = (ev.seat, options, cards)

    def _failing_units(self, seat: int, klass: int, units: list[Unit]
                       ) -> tuple[list[tuple[Unit, int, Unit]], bool]:
        """Units another seat can beat, as (unit, seat, beating unit); and whether hidden cards
        leave the answer open."""
        assert self.order is not None
        failing: list = []
        undecided = False
        holdings = {o: self.class_holding(o, klass) for o in range(self.players) if o != seat}
        for u in units:
            for other, holding in holdings.items():
                beat = beats_unit(holding, self.order, u) if holding else None
                if beat is not None:
                    failing.append((u, other, beat))
                    break
                if self.hidden[other]:
                    undecided = True
        return failing, undecided

    def _check_turn(self, seat: int, leading: bool) -> None:
        if self.trick is None or not self.trick.plays:
            expected = self.leader
        else:
            expected = (self.trick.plays[-1].seat + 1) % self.players
        if expected is not None and seat != expected:
            what = "lead" if leading else "play"
            self.violation("play.out-of-turn",
                           f"seat {seat} plays, but it is seat {expected}'s turn to {what}.",
                           seat=seat, required=f"seat {expected} plays")

    def on_play(self, ev: Play) -> None:
        order = self.order
        if order is None:
            if not self.start_play():
                return
            order = self.order
            assert order is not None
        seat = ev.seat
        tokens = ev.cards
        if len(tokens) == 1:
            cards = [_INDEX[tokens[0]]]
        else:
            cards = [_INDEX[t] for t in tokens]
            if not cards:
                self.violation("play.wrong-count", f"seat {seat} plays no cards.", seat=seat)
                return
        trick = self.trick
        leading = trick is None
        if trick is None:
            leader = self.leader
            if leader is not None and seat != leader and seat in self.other_leaders:
                leader = self.leader = seat  # a reading the rules leave open (ruling 12)
            trick = self.trick = Trick(self.tricks_before + len(self.tricks) + 1,
                                       leader if leader is not None else seat)
            expected = leader
        else:
            expected = (trick.plays[-1].seat + 1) % self.players
        if expected is not None and seat != expected:
            if self.gaps:  # a play line was lost: everything after it would be out of step
                self.log.notice(f"seat {seat} plays when it is seat {expected}'s turn, after a "
                                "line of this hand that could not be read (see its record "
                                "problems); the rest of the hand is not checked", self.seq)
                self.stopped = self.undetermined = True
                return
            what = "lead" if leading else "play"
            self.violation("play.out-of-turn",
                           f"seat {seat} plays, but it is seat {expected}'s turn to {what}.",
                           seat=seat, required=f"seat {expected} plays")
        held: list[int] = self.held[seat]
        suit_before: dict[int, int] | None = None
        known_before = 0
        if not leading:
            assert self.class_left is not None
            known_before = self.class_left[seat][trick.lead_class]
            if known_before and (len(cards) > 1 or trick.lead_size > 1):
                suit_before = {c: held[c] for c in order.members[trick.lead_class] if held[c]}
        hidden_before = self.hidden[seat]
        missing = self._remove(seat, cards)
        if missing:
            self.violation("play.card-not-held",
                           f"seat {seat} plays {show(missing)}, which it does not hold.",
                           seat=seat, cards=missing)
        klass = order.klass
        void = self.void[seat]
        if void:
            for c in cards:
                if klass[c] in void and c not in missing:
                    self.violation("follow.revoke",
                                   f"seat {seat} plays {Card(c).symbol}, a card of a suit it "
                                   "showed it did not have on an earlier trick.", seat=seat,
                                   cards=[c])
                    void.discard(klass[c])
                    break
        if leading:
            self._lead(seat, cards)
        elif trick.special:
            self._follow_special(seat, cards, hidden_before)
        else:
            self._follow(seat, cards, suit_before, known_before, hidden_before)
        plays = trick.plays
        plays.append(TrickPlay(seat, cards, ev.seq))
        if len(plays) == self.players:
            self._finish_trick()

    def _lead(self, seat: int, cards: list[int]) -> None:
        order = self.order
        trick = self.trick
        assert order is not None and trick is not None
        if len(cards) >= 4 and self.pending_forced is None:
            special = self.rules.special_lead(cards, order)
            if special is not None:  # led as a trump lead (视为吊主); only its like wins
                trick.special = special
                trick.lead_class = TRUMP
                trick.lead_units = []
                trick.lead_size = len(cards)
                trick.lead_kinds = []
                trick.singles_only = False
                return
        forced = self.pending_forced
        if len(cards) == 1 and forced is None:  # a single: nothing more to check
            trick.lead_class = order.klass[cards[0]]
            trick.lead_units = decompose(cards, order)
            trick.lead_size = 1
            trick.lead_kinds = [(1, 1)]
            return
        classes = {order.klass[c] for c in cards}
        trick.lead_class = order.klass[cards[0]]
        self.pending_forced = None
        if len(classes) > 1:
            self.violation("lead.mixed-suits",
                           f"seat {seat} leads {show(cards)}, cards of more than one suit.",
                           seat=seat, cards=cards, required="a lead of one suit")
            cards = [c for c in cards if order.klass[c] == trick.lead_class]
        trick.lead_units = ([Unit(1, 1, order.power[cards[0]], (cards[0],))] if len(cards) == 1
                            else decompose(cards, order))
        trick.lead_size = len(cards)
        trick.lead_kinds = [u.kind for u in trick.lead_units]
        trick.singles_only = all(k == (1, 1) for k in trick.lead_kinds)
        if forced is not None:
            fseat, options, tried = forced
            trick.failed_throw = tried
            trick.forced = options
            played = sorted(cards)
            if fseat == seat and options and all(sorted(o) != played for o in options):
                alternatives = " or ".join(show(o) for o in options)
                self.violation("throw.wrong-forced-play",
                               f"after the failed throw seat {seat} plays {show(cards)}, but the "
                               f"lowest failing unit was {alternatives}.", seat=seat,
                               cards=cards, required=f"seat {seat} plays {alternatives}")
            return
        if len(trick.lead_units) > 1:
            trick.throw = True
            if trick.lead_class == TRUMP and not self.rules.trump_throws:
                self.violation("throw.trump-not-allowed",
                               f"seat {seat} throws trumps {show(cards)}; only off-suit cards "
                               "may be thrown in this ruleset.", seat=seat, cards=cards)
            failing, _ = self._failing_units(seat, trick.lead_class, trick.lead_units)
            if failing:
                low = min(failing, key=lambda f: (f[0].low, f[0].size))
                unit = low[0]
                who = "; ".join(f"seat {s} holds {show(b.all_cards())} over "
                                f"{show(u.all_cards())}" for u, s, b in failing)
                self.violation("throw.beatable",
                               f"seat {seat} throws {show(cards)} and it is played as it stands, "
                               f"but it fails: {who}.", seat=seat, cards=cards,
                               required=f"seat {seat} plays only its lowest failing unit "
                                        f"{show(unit.all_cards())}")

    def _follow(self, seat: int, cards: list[int], suit_known: dict[int, int] | None,
                known_count: int, hidden: int) -> None:
        order = self.order
        trick = self.trick
        assert order is not None and trick is not None
        lead_size = trick.lead_size
        if len(cards) != lead_size:
            self.violation("play.wrong-count",
                           f"seat {seat} plays {len(cards)} card(s) to a lead of {lead_size}.",
                           seat=seat, cards=cards, required=f"{lead_size} card(s)")
            return
        k = trick.lead_class
        in_suit = [c for c in cards if order.klass[c] == k]
        if len(in_suit) < min(lead_size, known_count):
            if suit_known is None:
                suit_known = {c: n for c, n in self._suit_before(seat, k, cards).items() if n}
            shortfall = min(lead_size, known_count)
            self.violation("follow.suit-required",
                           f"seat {seat} plays {len(in_suit)} card(s) of the led suit "
                           f"({order.class_name(k)}) but held {known_count}.",
                           seat=seat, cards=cards,
                           required=f"{shortfall} card(s) of {order.class_name(k)}; seat {seat} "
                                    f"held {show(self._held_list(suit_known))}")
            return
        if len(in_suit) < lead_size and hidden:
            self.void[seat].add(k)
        # Structure: the played suit cards must show the best answers the holding allows.
        if trick.singles_only:
            return
        holding = dict(suit_known or {})
        for c in in_suit:  # cards that came out of hidden ones were held too
            if holding.get(c, 0) < in_suit.count(c):
                holding[c] = in_suit.count(c)
        if max(holding.values(), default=0) < 2:
            return  # every answer with structure needs two copies of a card: none is owed
        budget = len(in_suit)
        played = counts_of(in_suit)
        units = trick.lead_units
        if len(units) == 1 and units[0].length == 1 and budget >= units[0].width and \
                any(n >= units[0].width for n in played.values()):
            return  # a pair (triple, quad) answered in kind: the best answer there is
        shown = self._answer_ranks(played, units, budget)
        if not any(shown):
            return  # the best answer to every unit: nothing better could have been owed
        best = self._answer_ranks(holding, units, budget)
        for i, (want, got) in enumerate(zip(best, shown, strict=True)):
            if got > want:  # a worse answer (answers are indexed best first)
                unit = units[i]
                want_units = self._compute_answers(holding, units, budget)[i][2]
                answers = self.rules.answers(unit.kind)
                could = ", ".join(show(x.all_cards()) for x in want_units) or "singles"
                self.violation(self.rules.follow_rule_id(unit.kind),
                               f"seat {seat} answers the led {unit_name(*unit.kind)} with "
                               f"{_shape_text(answers[got])} but could show "
                               f"{_shape_text(answers[want])}.", seat=seat, cards=cards,
                               required=f"seat {seat} held {could}")
                return

    def _follow_special(self, seat: int, cards: list[int], hidden: int) -> None:
        """Following a special pattern (ruling 15): the same pattern if the seat held one, else
        trumps as far as it held them, then anything."""
        order = self.order
        trick = self.trick
        assert order is not None and trick is not None
        if len(cards) != trick.lead_size:
            self.violation("play.wrong-count",
                           f"seat {seat} plays {len(cards)} card(s) to a lead of "
                           f"{trick.lead_size}.", seat=seat, cards=cards,
                           required=f"{trick.lead_size} card(s)")
            return
        if hidden:
            return
        before = list(self.held[seat])
        for c in cards:
            before[c] += 1
        kind = self.rules.pattern_kind(trick.special)
        if self.rules.special_lead(cards, order) is not None and \
                self.rules.pattern_kind(self.rules.special_lead(cards, order) or "") == kind:
            return
        held_pattern = self.rules.holds_pattern(kind, before, order, len(cards))
        if held_pattern is not None:
            self.violation("follow.pattern-required",
                           f"seat {seat} answers the led {trick.special} with {show(cards)} but "
                           f"held one ({show(held_pattern)}).", seat=seat, cards=cards,
                           required=f"seat {seat} plays {show(held_pattern)}")
            return
        klass = order.klass
        trumps_held = sum(before[c] for c in order.members[TRUMP])
        played = sum(1 for c in cards if klass[c] == TRUMP)
        if played < min(len(cards), trumps_held):
            self.violation("follow.suit-required",
                           f"seat {seat} plays {played} trump(s) to a {trick.special}, a trump "
                           f"lead, but held {trumps_held}.", seat=seat, cards=cards,
                           required=f"{min(len(cards), trumps_held)} trump(s)")

    def _suit_before(self, seat: int, klass: int, played: list[int]) -> dict[int, int]:
        """The seat's known cards of a suit class before ``played`` left its hand."""
        assert self.order is not None
        held = self.held[seat]
        out = {c: held[c] for c in self.order.members[klass]}
        for c in played:
            if c in out:
                out[c] += 1
        return out

    def _answer_ranks(self, avail: dict[int, int], units: list[Unit], budget: int
                      ) -> tuple[int, ...]:
        """For each lead unit, most significant first: the index of the best answer ``avail``
        can show within the cards still to play (D-2). Memoised on what decides it: the powers
        and copies of the cards held at least twice (every structured answer needs pairs),
        the units' kinds and the budget."""
        order = self.order
        assert order is not None
        power = order.power
        codes = [u.width * 256 + u.length for u in units]
        codes.append(budget)
        codes.extend(sorted([power[c] * 64 + n for c, n in avail.items() if n >= 2]))
        key = (self.rules.identity, tuple(codes))  # flat ints: cheap to hash
        found = _ANSWERS.get(key)
        if found is None:
            if len(_ANSWERS) > 20_000:
                _ANSWERS.clear()
            found = _ANSWERS[key] = tuple(
                [got for _, got, _ in self._compute_answers(avail, units, budget)])
        return found

    def _compute_answers(self, avail: dict[int, int], units: list[Unit], budget: int
                         ) -> list[tuple[Unit, int, list[Unit]]]:
        """The lexicographically best answers: for each unit in turn, the best answer that can
        still be shown together with the answers already fixed for the units before it (a greedy
        placement could spend cards a later unit needs)."""
        order = self.order
        assert order is not None
        shapes: list[tuple[tuple[int, int], ...]] = []
        rooms: list[int] = []
        out = []
        left = budget
        for unit in units:
            answers = self.rules.answers(unit.kind)
            room = max(0, min(unit.size, left))
            for i, shape in enumerate(answers):
                if shape_size(shape) > room:
                    continue
                found = cover_all(avail, order, [*shapes, shape])
                if found is not None:
                    shapes.append(shape)
                    rooms.append(room)
                    out.append((unit, i, found[-1]))
                    break
            left -= unit.size
        return out

    def _finish_trick(self) -> None:
        order = self.order
        trick = self.trick
        assert order is not None and trick is not None
        kinds = trick.lead_kinds
        lead_class = trick.lead_class
        points = self.points_table
        best_key: tuple[int, int] | None = None
        winner = trick.plays[0].seat
        total = 0
        klass = order.klass
        for i, p in enumerate(trick.plays):
            for c in p.cards:
                total += points[c]
            if i == 0:
                p.role = "lead"
            elif all(klass[c] == lead_class for c in p.cards):
                p.role = "follow"
            elif lead_class != TRUMP and all(klass[c] == TRUMP for c in p.cards):
                p.role = "trump"
            else:
                p.role = "discard"
            key = (self.rules.pattern_strength(trick.special, p.cards, order)
                   if trick.special else play_strength(order, lead_class, kinds, p.cards))
            if key is not None and (best_key is None or key > best_key):
                best_key, winner = key, p.seat
        trick.trumped = best_key is not None and best_key[0] == 1
        trick.winner = winner
        trick.points = total
        if not self.team_side(winner):
            self.defender_points += total
        self.tricks.append(trick)
        self.trick = None
        self.leader = winner
        self.other_leaders = self.rules.other_leaders(
            [(p.seat, p.cards) for p in trick.plays], winner, order)
        if not any(self.left):
            self._finish_hand(trick)

    def _finish_hand(self, last: Trick) -> None:
        r = self.rules
        points_table = self.points_table
        kitty_points = sum([points_table[c] for c in self.kitty])
        multiplier: int | None = None
        kitty_award: int | None = None
        points = self.defender_points
        assert last.winner is not None
        if not self.team_side(last.winner) and self.declarer is not None:
            winning = next(p for p in last.plays if p.seat == last.winner)
            assert self.order is not None
            pattern = (r.special_lead(winning.cards, self.order) or "") if last.special else ""
            award, multiplier = r.kitty_award(
                kitty_points, decompose(winning.cards, self.order),
                self.order.klass[winning.cards[0]] == TRUMP, pattern)
            points += award
            kitty_award = award
            if self.kitty_hidden:
                self.log.notice("the kitty has hidden cards: its points are not known", self.seq)
        dealer = self.dealer if self.dealer is not None else self.declarer
        if self.declarer is not None and dealer is not None:
            self.outcome = r.outcome(points, kitty_points, multiplier, dealer, self.declarer,
                                     contract=self.contract, bombs=self.bombs,
                                     face=self.defender_points, level=self.level,
                                     totals=self.context.scores)
            self.outcome.kitty_award = kitty_award
            for note in self.outcome.notes:
                self.log.notice(note, self.seq)
            self._close_round(self.outcome)
        self.finished = True

    def _close_round(self, out: Outcome) -> None:
        """On the last hand of a round, the round's settlement (标分)."""
        length = self.rules.round_length
        if not length or self.declarer is None or (self.hand.number - 1) % length != length - 1:
            return
        choices = [*self.context.round_declarers, [self.declarer]]
        if len(choices) == length:
            options = [self.rules.round_settlement(list(combo))
                       for combo in itertools.islice(itertools.product(*choices), 64)]
            out.round_settlement = options[0]
            self.round_options = options

    def report(self) -> HandReport:
        """What the replay found so far."""
        trump = None
        if self.trump_known:
            trump = "NT" if self.trump is None else self.trump.value
        return HandReport(
            match=self.hand.match, hand=self.hand.number, ruleset=self.rules.name,
            tricks=self.tricks, outcome=self.outcome, violations=self.log.items,
            notices=self.log.notices, record_issues=list(self.hand.issues), dealer=self.dealer,
            declarer=self.declarer, trump=trump, level=self.level, complete=self.finished,
            declarer_side=sorted(self.rules.declarer_side(self.declarer))
            if self.declarer is not None else [], record=self.hand, contract=self.contract,
            bids=list(self.bids), surrendered=self.surrendered,
            round_length=self.rules.round_length,
        )

    # -- claims ---------------------------------------------------------------------------------

    def on_trick_claim(self, ev: TrickEnd) -> None:
        if not self.tricks or (self.trick is not None and self.trick.plays):
            if self.undetermined:
                return
            self.violation("result.trick-claim-early",
                           f"the record closes trick {ev.trick} before all seats have played.")
            return
        t = self.tricks[-1]
        if ev.trick != t.number:
            self.violation("result.trick-number-mismatch",
                           f"the record numbers the trick {ev.trick}; it is trick {t.number}.",
                           trick=t.number, required=f"trick {t.number}")
        if ev.winner != t.winner and ev.winner not in self.other_leaders:
            self.violation("result.winner-mismatch",
                           f"the record gives trick {t.number} to seat {ev.winner}; by the rules "
                           f"seat {t.winner} wins it.", trick=t.number, seat=ev.winner,
                           required=f"seat {t.winner} wins")
        if ev.points is not None and ev.points != t.points:
            self.violation("result.trick-points-mismatch",
                           f"the record counts {ev.points} points in trick {t.number}; it holds "
                           f"{t.points}.", trick=t.number, required=f"{t.points} points")

    def on_result(self, ev: Result) -> None:
        if self.undetermined:
            return
        if not self.finished:
            if self.trick is None and not self.tricks:
                return  # a result without play (e.g. after a surrender) is the ruleset's affair
            self.violation("result.hand-unfinished",
                           "the record gives the hand's result while cards remain to be played.")
            return
        out = self.outcome
        if out is None:
            return
        checks = [
            ("defender_points", out.defender_points, "result.points-mismatch",
             "the defenders' points"),
            ("kitty_points", out.kitty_points, "result.kitty-points-mismatch",
             "the kitty's points"),
            ("kitty_multiplier", out.kitty_multiplier, "result.multiplier-mismatch",
             "the kitty multiplier"),
            ("level_change", out.level_change, "result.level-change-mismatch",
             "the level change"),
            ("next_dealer", out.next_dealer, "result.next-dealer-mismatch", "the next dealer"),
            ("settlement", out.settlement, "result.settlement-mismatch", "the settlement"),
            ("round_settlement", out.round_settlement, "result.round-settlement-mismatch",
             "the round's settlement"),
        ]
        for name in ("settlement", "round_settlement"):
            recorded = getattr(ev, name)
            if recorded is not None and self.rules.zero_sum_settlement and sum(recorded) != 0:
                self.violation("result.settlement-not-zero",
                               f"the recorded {name.replace('_', ' ')} {recorded} does not sum "
                               "to zero.", trick=None, required="a zero sum")
        for name, computed, rule, label in checks:
            recorded = getattr(ev, name)
            if recorded is None:
                continue
            if name == "kitty_points" and self.kitty_hidden:
                continue
            if name == "round_settlement" and recorded in self.round_options:
                continue
            if name == "settlement" and computed is None:
                continue  # the rules could not settle it here (a notice says why)
            if recorded != computed:
                self.violation(rule, f"the record gives {label} as {recorded}; by the rules it is "
                                     f"{computed}.", trick=None, required=f"{computed}")


_SEAT_FIELDS_OF: dict[type, tuple[str, ...]] = {}


def _seat_fields(kind: type) -> tuple[str, ...]:
    """The fields of an event type that name a seat."""
    found = _SEAT_FIELDS_OF.get(kind)
    if found is None:
        fields = getattr(kind, "__struct_fields__", ())
        found = _SEAT_FIELDS_OF[kind] = tuple(
            name for name in HandReplay._SEAT_FIELDS if name in fields)
    return found


def play_strength(order: CardOrder, lead_class: int, kinds: list[tuple[int, int]],
                  cards: list[int]) -> tuple[int, int] | None:
    """How strongly ``cards`` compete in a trick led in ``lead_class`` with units ``kinds``:
    ``(0, v)`` in the led suit, ``(1, v)`` trumping an off-suit lead, ``None`` when it cannot
    win (another suit, or the lead's units not covered: ruling 7). Higher wins; ties go to the
    first played."""
    klass = order.klass
    first = klass[cards[0]]
    if first == lead_class:
        rank = 0
    elif lead_class != TRUMP and first == TRUMP:
        rank = 1
    else:
        return None
    power = order.power
    if len(cards) == 1:
        return (rank, power[cards[0]])
    counts: dict[int, int] = {}
    for c in cards:
        if klass[c] != first:
            return None
        counts[c] = counts.get(c, 0) + 1
    value = best_value(counts, order, kinds)
    return None if value is None else (rank, value)


def _shape_text(shape: tuple[tuple[int, int], ...]) -> str:
    if not shape:
        return "no pair or longer unit"
    return " + ".join(unit_name(w, n) for w, n in shape)


_HANDLERS: dict[type, Callable[[HandReplay, Any], None]] = {
    HandStart: HandReplay.on_hand,
    Deal: HandReplay.on_deal,
    Setup: HandReplay.on_setup,
    Declare: HandReplay.on_declare,
    TrumpChosen: HandReplay.on_trump,
    Bid: HandReplay.on_auction,
    Pass: HandReplay.on_auction,
    KittyTake: HandReplay.on_kitty_take,
    KittyBury: HandReplay.on_kitty_bury,
    Surrender: HandReplay.on_surrender,
    ThrowFail: HandReplay.on_throw_fail,
    Play: HandReplay.on_play,
    TrickEnd: HandReplay.on_trick_claim,
    Result: HandReplay.on_result,
}


def replay_hand(hand: Hand, ruleset: Ruleset, *, strict: bool = False,
                context: MatchContext | None = None) -> HandReport:
    """Replay one hand to the end and report everything found."""
    state = HandReplay(ruleset, hand, strict=strict, context=context)
    try:
        for ev in hand.events:
            state.apply(ev)
    except StrictStop:
        pass
    return state.report()


def steps(hand: Hand, ruleset: Ruleset, context: MatchContext | None = None
          ) -> Iterator[tuple[Event, HandReplay]]:
    """Replay step by step: the live state after every event (copy what you keep)."""
    state = HandReplay(ruleset, hand, context=context)
    for ev in hand.events:
        state.apply(ev)
        yield ev, state


def advance_levels(levels: list[str], change: list[int], past_ace: bool = False) -> list[str]:
    """Each team's level after a hand: levels stop at A (D-3), or, where a ruleset plays on
    past A (打万分), at no-trump (``NT``)."""
    ladder = [*LEVEL_ORDER, "NT"] if past_ace else LEVEL_ORDER
    out = []
    for lv, up in zip(levels, change, strict=False):
        i = ladder.index(lv) if lv in ladder else len(ladder) - 1
        out.append(ladder[min(i + up, len(ladder) - 1)])
    return out
