"""The replayer: walks every event of a hand against a ruleset and reports every violation.

:class:`HandReplay` is the hand's state (:class:`~replay.state.HandState`) with the one thing
no phase does: sequencing. Each event goes to its phase (:mod:`replay.phases`: deal and
declarations, auction, kitty, tricks, outcome); where one phase's event ends another (naming
trump, taking the kitty, a surrender or the first play close the auction; the last trick
finishes the hand), this module says so, not the phases. The replay goes on after every
violation with the recorded play, so that later checks stay meaningful; how the state is
updated after each kind of violation is documented in docs/rules/engine.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

from gamelog.model import (
    EVENT_TYPES,
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
from replay.phases import auction, deal, kitty, outcome, throws, tricks
from replay.results import HandReport, MatchContext
from replay.rulesets.base import Ruleset
from replay.state import INDEX, RANK_OF, HandState
from replay.trick import Trick, TrickPlay, made_trick, play_strength
from replay.units import Unit
from replay.violations import StrictStop

LEVEL_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]

__all__ = ["LEVEL_ORDER", "RANK_OF", "HandReplay", "HandReport", "MatchContext", "Trick",
           "TrickPlay", "advance_levels", "play_strength", "replay_hand", "steps"]


class HandReplay(HandState):
    """The state of one hand, advanced one event at a time with :meth:`apply`."""

    def apply(self, ev: Event) -> None:
        """Judge one event and advance the state (a violation is recorded, never raised,
        unless the replay is strict)."""
        if self.stopped:
            return
        self.seq = ev.seq
        kind = type(ev)
        if kind is _PLAY and not self.finished:  # the hot path: most events are plays
            seat: int = ev.seat  # type: ignore[union-attr,attr-defined]
            if 0 <= seat < self.players:
                self._play(seat, ev.cards)  # type: ignore[union-attr,attr-defined]
                return
        elif kind is _TRICK_END:  # the next most frequent: one per trick
            winner = ev.winner  # type: ignore[union-attr,attr-defined]
            if 0 <= winner < self.players:
                outcome.trick_claim(self, ev)  # type: ignore[arg-type]
                return
        elif self.finished and kind is not Result:
            self.violation("hand.event-after-end",
                           f"a {kind.__name__} event comes after the last trick.")
            return
        handler = _HANDLERS.get(kind)
        if handler is None or not self._seats_exist(ev):
            return
        handler(self, ev)

    def can_run_tricks(self) -> bool:
        """Whether the C core (:meth:`run_tricks`) may judge the next tricks: between tricks,
        every card known, no failed throw pending, no voids shown, and a ruleset without
        other leaders it cannot tell (a trick 打万分's 救星 wins, or led as a special pattern, is
        left to Python by the core itself)."""
        if self.judge is None or self.trick is not None or self.order is None or \
                self.stopped or self.finished or self.pending_forced is not None or \
                self.leader is None or self.class_left is None:
            return False
        rules = self.rules
        if rules.has_other_leaders and rules.other_leaders_card < 0:
            return False
        for n in self.hidden:
            if n:
                return False
        return all(not v for v in self.void)

    def run_tricks(self, events: list[Event], start: int) -> int:
        """Judge the recorded tricks from ``events[start]`` in the C core for as long as it
        finds nothing wrong (``replay/_greedy.c``'s ``run_tricks``: every check the tricks
        phase makes, on count vectors); the state is then where :meth:`apply` of those events
        would have left it (the hand settled if they end it). Returns how many events were
        taken (0: none; the Python replay judges the next trick, and words what it finds)."""
        leader = self.leader
        assert leader is not None and self.class_left is not None
        side = [1 if self.team_side(s) else 0 for s in range(self.players)]
        used, tricks, points, winner, finished = self.judge.run_tricks(
            self.held, self.class_left, self.left, self.points_table, side, leader,
            self.tricks_before + len(self.tricks) + 1, events, start, _PLAY, _TRICK_END, INDEX,
            TrickPlay, Unit, made_trick,
            self.rules.other_leaders_card if self.rules.has_other_leaders else -1)
        if not used:
            return 0
        self.tricks.extend(tricks)
        self.defender_points += points
        self.leader = winner
        self.other_leaders = []
        if finished:  # settled at its last play, as tricks.play's caller does
            last: Trick = tricks[-1]
            self.seq = last.plays[-1].seq
            outcome.finish(self, last)
        self.seq = events[start + used - 1].seq
        return int(used)

    def _seats_exist(self, ev: Event) -> bool:
        """Every seat an event names is at the table; otherwise it is reported and skipped."""
        for name in _seat_fields(type(ev)):
            seat = getattr(ev, name)
            if seat is not None and not 0 <= seat < self.players:
                self.violation("event.no-such-seat",
                               f"the {type(ev).__name__} event names seat {seat}, but the table "
                               f"has seats 0 to {self.players - 1}; the event is skipped.")
                return False
        if type(ev) not in _WITH_BLOCKERS:
            return True
        for b in getattr(ev, "blockers", None) or []:
            if not 0 <= b.seat < self.players:
                self.violation("event.no-such-seat",
                               f"a blocker names seat {b.seat}, but the table has seats 0 to "
                               f"{self.players - 1}; the event is skipped.")
                return False
        return True

    # -- sequencing: where one phase's event closes another ------------------------------------

    def start_play(self) -> bool:
        """Before the first play: the auction closed, trump and level settled, the card order
        fixed; ``False`` if trump cannot be known (the play is then not checked)."""
        if self.order is not None:
            return True
        auction.close(self)
        if not deal.settle(self):
            return False
        tricks.begin(self)
        return True

    def on_play(self, ev: Play) -> None:
        self._play(ev.seat, ev.cards)

    def _play(self, seat: int, tokens: list[str]) -> None:
        if self.order is None and not self.start_play():
            return
        done = tricks.play(self, seat, tokens)
        if done is not None and not any(self.left):
            outcome.finish(self, done)

    def play_legal(self, seat: int, cards: list[int], seq: int) -> None:
        """A play known to be legal (:func:`replay.phases.tricks.play_legal`): a rollout's or
        a search's, applied without the checks and without an event."""
        self.seq = seq
        if self.order is None and not self.start_play():
            return
        done = tricks.play_legal(self, seat, cards, seq)
        if done is not None and not any(self.left):
            outcome.finish(self, done)

    def on_throw_fail(self, ev: ThrowFail) -> None:
        if self.start_play():
            throws.failed_throw(self, ev)

    def on_trump(self, ev: TrumpChosen) -> None:
        if self.rules.has_auction:
            auction.close(self)
            auction.trump_named(self, ev)
        deal.trump_named(self, ev)

    def on_kitty_take(self, ev: KittyTake) -> None:
        auction.close(self)
        kitty.take(self, ev)

    def on_surrender(self, ev: Surrender) -> None:
        if self.rules.allows_surrender:
            auction.close(self)
        outcome.surrender(self, ev)

    def close_auction(self) -> None:
        """Close the auction now (标分), if it is open."""
        auction.close(self)

    def _declarer_side(self) -> list[int]:
        """The declarer's side's seats, in order ([] without a declarer); the set
        :meth:`team_side` keeps when it has one for this declarer."""
        if self.declarer is None:
            return []
        self.team_side(self.declarer)  # makes the set for this declarer if it is not made
        return sorted(self._side)

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
            declarer_side=self._declarer_side(), record=self.hand, contract=self.contract,
            bids=list(self.bids), surrendered=self.surrendered,
            round_length=self.rules.round_length,
        )


_PLAY: Final = Play
_TRICK_END: Final = TrickEnd
"""The two most frequent event types, as compiled constants (a name imported from a module
that is not compiled is looked up in the module's dict at every use)."""
_SEAT_FIELDS_OF: Final[dict[type, tuple[str, ...]]] = {}
_WITH_BLOCKERS: Final = frozenset(kind for kind in EVENT_TYPES
                                  if "blockers" in getattr(kind, "__struct_fields__", ()))
"""The event types with a ``blockers`` field (a missing attribute costs an exception)."""


def _seat_fields(kind: type) -> tuple[str, ...]:
    """The fields of an event type that name a seat."""
    found = _SEAT_FIELDS_OF.get(kind)
    if found is None:
        fields = getattr(kind, "__struct_fields__", ())
        found = _SEAT_FIELDS_OF[kind] = tuple(
            name for name in HandState.SEAT_FIELDS if name in fields)
    return found


_HANDLERS: Final[dict[type, Callable[[HandReplay, Any], None]]] = {
    HandStart: deal.hand_start,
    Deal: deal.deal,
    Setup: deal.setup,
    Declare: deal.declare,
    TrumpChosen: HandReplay.on_trump,
    Bid: auction.bid_or_pass,
    Pass: auction.bid_or_pass,
    KittyTake: HandReplay.on_kitty_take,
    KittyBury: kitty.bury,
    Surrender: HandReplay.on_surrender,
    ThrowFail: HandReplay.on_throw_fail,
    Play: HandReplay.on_play,
    TrickEnd: outcome.trick_claim,
    Result: outcome.result,
}
"""Each kind of event, to its phase (or to the sequencing above where it closes another)."""


def replay_hand(hand: Hand, ruleset: Ruleset, *, strict: bool = False,
                context: MatchContext | None = None) -> HandReport:
    """Replay one hand to the end and report everything found."""
    state = HandReplay(ruleset, hand, strict=strict, context=context)
    events = hand.events
    fast = isinstance(events, list)
    i = 0
    n = len(events)
    try:
        while i < n:
            ev = events[i]
            if fast and type(ev) is _PLAY and state.trick is None:
                if state.order is None and not state.stopped and not state.finished and \
                        0 <= ev.seat < state.players:  # type: ignore[attr-defined]
                    state.seq = ev.seq  # the first play: what apply() does before it
                    if not state.start_play():
                        i += 1  # trump unknown: apply() would stop there too
                        continue
                if state.can_run_tricks():
                    used = state.run_tricks(events, i)  # type: ignore[arg-type]
                    if used:
                        i += used
                        continue
            state.apply(ev)
            i += 1
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
