"""Phase 5, the outcome (结算): a surrender (标分), the hand finished after its last trick (the
kitty's award, the outcome, a round's settlement), and the record's own claims checked: each
trick's recorded winner and points, and the recorded result.

Asks of the ruleset (its "outcome" section): ``allows_surrender``, ``surrender_outcome``,
``kitty_award``, ``outcome``, ``round_length``, ``round_settlement``, ``zero_sum_settlement``.
"""

from __future__ import annotations

import itertools

from gamelog.model import Result, Surrender, TrickEnd
from replay.order import TRUMP
from replay.rulesets.base import Outcome
from replay.state import HandState
from replay.trick import Trick
from replay.units import decompose


def surrender(s: HandState, ev: Surrender) -> None:
    """The declarer gives up before the first lead (after the auction has closed)."""
    if not s.rules.allows_surrender:
        s.violation("surrender.not-allowed",
                    f"{s.rules.name} has no surrender, but seat {ev.seat} surrenders.",
                    seat=ev.seat)
        return
    if s.declarer is not None and ev.seat != s.declarer:
        s.violation("surrender.not-declarer",
                    f"seat {ev.seat} surrenders, but only the declarer "
                    f"(seat {s.declarer}) may.", seat=ev.seat)
        return
    if s.tricks or s.trick is not None:
        s.violation("surrender.too-late",
                    f"seat {ev.seat} surrenders after play has begun; the declarer may "
                    "surrender only before the first lead.", seat=ev.seat)
        return
    s.surrendered = True
    if s.declarer is not None:
        out = s.rules.surrender_outcome(s.declarer, s.contract)
        if out is None:
            s.log.notice("the seed's text on surrender below 55 is cut off; the "
                         "settlement is not checked", s.seq)
        else:
            _close_round(s, out)
        s.outcome = out
    s.finished = True


def finish(s: HandState, last: Trick) -> None:
    """The hand after its last trick: the kitty to the defenders if they won that trick, the
    outcome by the ruleset, and a round's settlement on its last hand."""
    assert last.winner is not None
    winning = next(p for p in last.plays if p.seat == last.winner)
    outcome, kitty_award = settle(s, s.defender_points, last.winner, winning.cards,
                                  bool(last.special))
    if kitty_award is not None and s.kitty_hidden:
        s.log.notice("the kitty has hidden cards: its points are not known", s.seq)
    if outcome is not None:
        s.outcome = outcome
        outcome.kitty_award = kitty_award
        for note in outcome.notes:
            s.log.notice(note, s.seq)
        _close_round(s, outcome)
    s.finished = True


def settle(s: HandState, face: int, winner: int, winning: list[int], special: bool = False
           ) -> tuple[Outcome | None, int | None]:
    """The outcome of the hand ``s`` when its tricks gave the defenders ``face`` points and
    ``winner`` took the last one with the cards ``winning`` (``special``: that trick was led
    as a special pattern): the kitty to the defenders if they won it, then the ruleset's outcome
    (``None`` without a declarer); and the kitty's award (``None`` when not theirs). Changes
    nothing in ``s``: :func:`finish` records it, and the review's rollouts read it for hands
    played out in C (:func:`replay.playout.greedy_value`)."""
    award, multiplier = last_trick_award(s, winner, winning, special)
    return hand_outcome(s, face, face if award is None else face + award, multiplier), award


def last_trick_award(s: HandState, winner: int, winning: list[int], special: bool = False
                     ) -> tuple[int | None, int | None]:
    """The kitty's award to the defenders when ``winner`` took the last trick with
    ``winning`` (:func:`settle`) and the multiplier to record; ``(None, None)`` when the
    kitty is not theirs."""
    r = s.rules
    if s.team_side(winner) or s.declarer is None:
        return None, None
    assert s.order is not None
    pattern = (r.special_lead(winning, s.order) or "") if special else ""
    return r.kitty_award(kitty_points_of(s), decompose(winning, s.order),
                         s.order.klass[winning[0]] == TRUMP, pattern)


def kitty_points_of(s: HandState) -> int:
    """The points of the kitty's cards."""
    points_table = s.points_table
    return sum([points_table[c] for c in s.kitty])


def hand_outcome(s: HandState, face: int, points: int, multiplier: int | None
                 ) -> Outcome | None:
    """The ruleset's outcome of the hand ``s`` whose defenders took ``face`` points from the
    tricks and ``points`` with the kitty's award (``multiplier``: the award's, if any);
    ``None`` without a declarer (:func:`settle`)."""
    dealer = s.dealer if s.dealer is not None else s.declarer
    if s.declarer is None or dealer is None:
        return None
    return s.rules.outcome(points, kitty_points_of(s), multiplier, dealer, s.declarer,
                           contract=s.contract, bombs=s.bombs, face=face, level=s.level,
                           totals=s.context.scores)


def _close_round(s: HandState, out: Outcome) -> None:
    """On the last hand of a round, the round's settlement (标分)."""
    length = s.rules.round_length
    if not length or s.declarer is None or (s.hand.number - 1) % length != length - 1:
        return
    choices = [*s.context.round_declarers, [s.declarer]]
    if len(choices) == length:
        options = [s.rules.round_settlement(list(combo))
                   for combo in itertools.islice(itertools.product(*choices), 64)]
        out.round_settlement = options[0]
        s.round_options = options


def trick_claim(s: HandState, ev: TrickEnd) -> None:
    """The record's close of a trick: its number, winner and points as the rules have them."""
    if not s.tricks or (s.trick is not None and s.trick.plays):
        if s.undetermined:
            return
        s.violation("result.trick-claim-early",
                    f"the record closes trick {ev.trick} before all seats have played.")
        return
    t = s.tricks[-1]
    if ev.trick != t.number:
        s.violation("result.trick-number-mismatch",
                    f"the record numbers the trick {ev.trick}; it is trick {t.number}.",
                    trick=t.number, required=f"trick {t.number}")
    if ev.winner != t.winner and ev.winner not in s.other_leaders:
        s.violation("result.winner-mismatch",
                    f"the record gives trick {t.number} to seat {ev.winner}; by the rules "
                    f"seat {t.winner} wins it.", trick=t.number, seat=ev.winner,
                    required=f"seat {t.winner} wins")
    if ev.points is not None and ev.points != t.points:
        s.violation("result.trick-points-mismatch",
                    f"the record counts {ev.points} points in trick {t.number}; it holds "
                    f"{t.points}.", trick=t.number, required=f"{t.points} points")


def result(s: HandState, ev: Result) -> None:
    """The recorded result against the outcome the rules give."""
    if s.undetermined:
        return
    if not s.finished:
        if s.trick is None and not s.tricks:
            return  # a result without play (e.g. after a surrender) is the ruleset's affair
        s.violation("result.hand-unfinished",
                    "the record gives the hand's result while cards remain to be played.")
        return
    out = s.outcome
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
        if recorded is not None and s.rules.zero_sum_settlement and sum(recorded) != 0:
            s.violation("result.settlement-not-zero",
                        f"the recorded {name.replace('_', ' ')} {recorded} does not sum "
                        "to zero.", trick=None, required="a zero sum")
    for name, computed, rule, label in checks:
        recorded = getattr(ev, name)
        if recorded is None:
            continue
        if name == "kitty_points" and s.kitty_hidden:
            continue
        if name == "round_settlement" and recorded in s.round_options:
            continue
        if name == "settlement" and computed is None:
            continue  # the rules could not settle it here (a notice says why)
        if recorded != computed:
            s.violation(rule, f"the record gives {label} as {recorded}; by the rules it is "
                              f"{computed}.", trick=None, required=f"{computed}")
