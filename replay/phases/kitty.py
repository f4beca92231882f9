"""Phase 3, the kitty (底牌): the declarer takes it (after the auction has closed) and buries
as many cards as it held, cards it holds.

Asks of the ruleset (its "kitty" section): ``kitty_size``.
"""

from __future__ import annotations

from gamelog.cards import UNKNOWN
from gamelog.model import KittyBury, KittyTake
from replay.state import INDEX, HandState, ruleset_tables
from replay.violations import show


def take(s: HandState, ev: KittyTake) -> None:
    """The declarer picks up the kitty as dealt."""
    s.kitty_seen = True
    if s.declarer is not None and ev.seat != s.declarer:
        s.violation("kitty.wrong-seat",
                    f"seat {ev.seat} takes the kitty, but seat {s.declarer} declares.",
                    seat=ev.seat, required=f"seat {s.declarer} takes the kitty")
    taken = [INDEX[t] for t in ev.cards if t != UNKNOWN]
    hidden = sum(1 for t in ev.cards if t == UNKNOWN)
    known = s.dealt_kitty is not None and UNKNOWN not in s.dealt_kitty and not hidden
    if known and sorted(taken) != sorted(s.kitty):
        s.violation("kitty.take-mismatch",
                    f"seat {ev.seat} takes {show(taken)}, but the kitty dealt was "
                    f"{show(s.kitty)}.", seat=ev.seat, cards=taken,
                    required=f"the kitty {show(s.kitty)}")
    for c in taken:
        s.held[ev.seat][c] += 1
    s.hidden[ev.seat] += hidden
    s.left[ev.seat] += len(ev.cards)
    s.kitty = []
    s.kitty_hidden = 0


def bury(s: HandState, ev: KittyBury) -> None:
    """The declarer lays a new kitty of the right size from its hand (埋底)."""
    r = s.rules
    if s.declarer is not None and ev.seat != s.declarer:
        s.violation("kitty.wrong-seat",
                    f"seat {ev.seat} buries the kitty, but seat {s.declarer} declares.",
                    seat=ev.seat, required=f"seat {s.declarer} buries")
    if len(ev.cards) != ruleset_tables(r)[3]:
        s.violation("kitty.wrong-size",
                    f"seat {ev.seat} buries {len(ev.cards)} cards; the kitty has "
                    f"{r.kitty_size()}.", seat=ev.seat,
                    required=f"{r.kitty_size()} cards")
    cards = [INDEX[t] for t in ev.cards if t != UNKNOWN]
    hidden = sum(1 for t in ev.cards if t == UNKNOWN)
    missing = s.remove(ev.seat, cards)
    if missing:
        s.violation("kitty.bury-not-held",
                    f"seat {ev.seat} buries {show(missing)}, which it does not hold.",
                    seat=ev.seat, cards=missing)
    take_hidden = min(hidden, s.hidden[ev.seat])
    s.hidden[ev.seat] -= take_hidden
    s.left[ev.seat] -= take_hidden
    s.kitty = cards
    s.kitty_hidden = hidden
    s.kitty_buried = True
