"""Throw judgement (甩牌), for the tricks phase: which units of a throw another seat can beat,
a recorded failed throw (its blockers, the forced lowest unit), and a throw led as it stands.

Asks of the ruleset (its "tricks" section): ``trump_throws``.
"""

from __future__ import annotations

from gamelog.model import ThrowFail
from replay.order import TRUMP
from replay.state import INDEX, HandState
from replay.trick import Trick
from replay.units import Unit, beats_unit, counts_of, decompose
from replay.violations import show


def failing_units(s: HandState, seat: int, klass: int, units: list[Unit]
                  ) -> tuple[list[tuple[Unit, int, Unit]], bool]:
    """Units another seat can beat, as (unit, seat, beating unit); and whether hidden cards
    leave the answer open."""
    assert s.order is not None
    failing: list = []
    undecided = False
    holdings = {o: s.class_holding(o, klass) for o in range(s.players) if o != seat}
    for u in units:
        for other, holding in holdings.items():
            beat = beats_unit(holding, s.order, u) if holding else None
            if beat is not None:
                failing.append((u, other, beat))
                break
            if s.hidden[other]:
                undecided = True
    return failing, undecided


def check_turn(s: HandState, seat: int, leading: bool) -> None:
    trick = s.trick
    expected = s.leader if trick is None or not trick.plays else \
        (trick.plays[-1].seat + 1) % s.players
    if expected is not None and seat != expected:
        what = "lead" if leading else "play"
        s.violation("play.out-of-turn",
                    f"seat {seat} plays, but it is seat {expected}'s turn to {what}.",
                    seat=seat, required=f"seat {expected} plays")


def failed_throw(s: HandState, ev: ThrowFail) -> None:
    """A throw recorded as failed: it must be a throw, some unit of it must be beatable (by
    the blockers the record names, if any); the lowest failing unit is then forced."""
    order = s.order
    assert order is not None
    cards = [INDEX[t] for t in ev.cards]
    check_turn(s, ev.seat, leading=True)
    held = s.held[ev.seat]
    need = counts_of(cards)
    lacking = [c for c, n in need.items() if held[c] < n]
    if lacking and not s.hidden[ev.seat]:
        s.violation("play.card-not-held",
                    f"seat {ev.seat} tries to throw {show(cards)} without holding "
                    f"{show(lacking)}.", seat=ev.seat, cards=lacking)
    klass = {order.klass[c] for c in cards}
    units = decompose(cards, order) if len(klass) == 1 else []
    if len(units) < 2:
        s.violation("throw.fail-unfounded",
                    f"seat {ev.seat}'s {show(cards)} is not a throw of several units of "
                    f"one suit, so it cannot fail as one.", seat=ev.seat, cards=cards)
        return
    k = klass.pop()
    failing, undecided = failing_units(s, ev.seat, k, units)
    claimed: list[Unit] = []
    for b in ev.blockers or []:
        bcards = [INDEX[t] for t in b.cards]
        bheld = s.held[b.seat] if b.seat < s.players else [0] * 54
        bcounts = counts_of(bcards)
        held_ok = all(bheld[c] >= n for c, n in bcounts.items()) or s.hidden[b.seat] > 0
        beaten = [u for u in units
                  if all(order.klass[c] == k for c in bcards)
                  and beats_unit(bcounts, order, u) is not None]
        if not held_ok or not beaten or b.seat == ev.seat:
            s.violation("throw.blocker-wrong",
                        f"the record says seat {b.seat} could beat the throw with "
                        f"{show(bcards)}, but "
                        + ("it does not hold them." if not held_ok else
                           "those cards beat no unit of it."),
                        seat=b.seat, cards=bcards)
        claimed.extend(beaten)
    if not failing and not undecided and not claimed:
        s.violation("throw.fail-unfounded",
                    f"seat {ev.seat}'s throw {show(cards)} is recorded as failed, but no "
                    "other seat can beat any of its units.", seat=ev.seat, cards=cards)
        return
    pool = [f[0] for f in failing] or claimed
    if not pool:  # only hidden cards could beat it: which unit fails is not known
        s.log.notice("hidden cards decide which unit of the failed throw is beaten; the "
                     "forced play is not checked", s.seq)
        s.pending_forced = (ev.seat, [], cards)
        return
    lowest = min((u.low, u.size) for u in pool)
    options = [u.all_cards() for u in pool if (u.low, u.size) == lowest]
    s.pending_forced = (ev.seat, options, cards)


def forced_lead(s: HandState, trick: Trick, seat: int, cards: list[int],
                forced: tuple[int, list[list[int]], list[int]]) -> None:
    """The lead after a failed throw: the lowest failing unit (any of them when they tie)."""
    fseat, options, tried = forced
    trick.failed_throw = tried
    trick.forced = options
    played = sorted(cards)
    if fseat == seat and options and all(sorted(o) != played for o in options):
        alternatives = " or ".join(show(o) for o in options)
        s.violation("throw.wrong-forced-play",
                    f"after the failed throw seat {seat} plays {show(cards)}, but the "
                    f"lowest failing unit was {alternatives}.", seat=seat,
                    cards=cards, required=f"seat {seat} plays {alternatives}")


def thrown_lead(s: HandState, trick: Trick, seat: int, cards: list[int]) -> None:
    """A throw led as it stands: allowed in trumps only where the ruleset says so, and no
    unit of it may be beatable by another seat."""
    trick.throw = True
    if trick.lead_class == TRUMP and not s.rules.trump_throws:
        s.violation("throw.trump-not-allowed",
                    f"seat {seat} throws trumps {show(cards)}; only off-suit cards "
                    "may be thrown in this ruleset.", seat=seat, cards=cards)
    judge = s.judge
    if judge is not None and judge.throw_beaten(
            s.held, seat, trick.lead_class,
            [(u.width, u.length, u.low) for u in trick.lead_units]) == 0:
        return  # the C core found no unit another seat's known cards beat
    failing, _ = failing_units(s, seat, trick.lead_class, trick.lead_units)
    if failing:
        low = min(failing, key=lambda f: (f[0].low, f[0].size))
        unit = low[0]
        who = "; ".join(f"seat {o} holds {show(b.all_cards())} over "
                        f"{show(u.all_cards())}" for u, o, b in failing)
        s.violation("throw.beatable",
                    f"seat {seat} throws {show(cards)} and it is played as it stands, "
                    f"but it fails: {who}.", seat=seat, cards=cards,
                    required=f"seat {seat} plays only its lowest failing unit "
                             f"{show(unit.all_cards())}")
