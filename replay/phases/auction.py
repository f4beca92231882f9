"""Phase 2, the auction (标分's 叫分): bids and passes in turn, each lower than the last, a
pass final; the auction closes when trump is named, the kitty is taken, the declarer
surrenders or play begins, and the lowest bidder (or the opener at 80) declares.

Asks of the ruleset (its "auction" section): ``has_auction``, ``check_bid``.
"""

from __future__ import annotations

from gamelog.model import Bid, Pass, TrumpChosen
from replay.state import HandState


def bid_or_pass(s: HandState, ev: Bid | Pass) -> None:
    """One call of the auction."""
    if not s.rules.has_auction:
        s.violation("auction.not-allowed",
                    f"{s.rules.name} has no auction, but seat {ev.seat} bids or passes.",
                    seat=ev.seat)
        return
    seat = ev.seat
    if s.auction_closed:
        s.violation("auction.out-of-turn",
                    f"seat {seat} bids or passes after the auction has closed.", seat=seat)
        return
    if s.bids:
        expected = next_bidder(s)
        if expected is not None and seat != expected:
            s.violation("auction.out-of-turn",
                        f"seat {seat} bids or passes, but it is seat {expected}'s turn.",
                        seat=seat, required=f"seat {expected} bids or passes")
    if seat in s.passed:
        s.violation("auction.after-pass",
                    f"seat {seat} has passed, and a pass is final, but it bids again.",
                    seat=seat)
    if isinstance(ev, Bid):
        why = s.rules.check_bid(ev.points, s.contract)
        if why is not None:
            rule = "auction.not-lower" if "lower" in why else "auction.bad-amount"
            s.violation(rule, f"seat {seat} bids {ev.points}: {why}.", seat=seat)
        s.contract = ev.points
        s.high_bidder = seat
    else:
        s.passed.add(seat)
    s.bids.append((seat, ev.points if isinstance(ev, Bid) else None))


def next_bidder(s: HandState) -> int | None:
    """The next seat still in the auction after the last one to act."""
    last = s.bids[-1][0]
    for k in range(1, s.players + 1):
        seat = (last + k) % s.players
        if seat not in s.passed:
            return seat
    return None


def close(s: HandState) -> None:
    """Settle the declarer once the auction is over: the lowest bidder, or the opener at 80
    if nobody bid (ruling 54). Does nothing where there is no auction or it has closed."""
    if s.auction_closed or not s.rules.has_auction:
        return
    s.auction_closed = True
    if s.high_bidder is not None:
        s.declarer = s.dealer = s.high_bidder
    elif s.bids:
        s.declarer = s.dealer = s.bids[0][0]
        s.contract = 80
    elif s.declarer is not None:
        s.dealer = s.declarer


def trump_named(s: HandState, ev: TrumpChosen) -> None:
    """In an auction game (after :func:`close`): the declarer names a suit, before seeing the
    kitty."""
    if s.declarer is not None and ev.seat != s.declarer:
        s.violation("auction.trump-wrong-seat",
                    f"seat {ev.seat} names trump, but seat {s.declarer} won the "
                    "auction.", seat=ev.seat, required=f"seat {s.declarer} names it")
    if s.kitty_seen:
        s.violation("auction.trump-after-kitty",
                    "trump is named after the declarer has taken the kitty; it must be "
                    "named before seeing it.", seat=ev.seat)
    if ev.trump == "NT":
        s.violation("auction.trump-not-a-suit",
                    "the declarer must name one of the four suits, not no-trump.",
                    seat=ev.seat)
