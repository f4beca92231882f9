"""What a review says: its budget (:class:`Budget`), each decision with its alternatives'
values and its mark (:class:`Decision`, :class:`BidDecision`, :class:`DeclareDecision`), a
hand's review
(:class:`HandReview`), the marks' thresholds and a seat's accuracy. Knows nothing of how the
values are found (:mod:`replay.review`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MARKS = (("blunder", 43), ("mistake", 22), ("inaccuracy", 4.5))
"""Swing thresholds (points, for a game of 200 points: two decks; scaled by the deck's
points, so 100 for one deck halves them and 400 for four decks doubles them; the inaccuracy
never under :data:`LEAST_INACCURACY`: :func:`thresholds`). The mistake and the blunder lie
between the values that whole point cards give (multiples of 5 at every scale), never on one;
the inaccuracy lies between what a 5 given away costs when it matters two times in three to
four in five (3-4.5) and a 5 given away for certain (5.0-5.5 with what it changes later): a
sampled swing is charged its standard error first, so the cut falls near 4.7-4.8, where two
decks' estimates are fewest. (7 until session 23, on the 10s' cluster; 5 until session 31, on
the certain 5s' cluster once the race's deals had made its errors small: docs/review.md.)"""


@dataclass(frozen=True)
class Budget:
    """How hard to look: ``samples`` determinized deals per decision screen every alternative
    (each played out once per deal; the better half again on as many more deals, until twice
    ``contenders`` are left); the ``contenders`` best are raced against the play made on
    rounds of ``confirm`` fresh deals (at most ``extend`` more rounds) until the decision is
    resolved; exact search once each seat holds at most ``exact_cards`` cards; at most
    ``max_alternatives`` alternatives per decision (the play made always among them)."""

    samples: int = 32
    confirm: int = 96
    extend: int = 24
    """Rounds of ``confirm`` more deals at most while a threshold lies within ``resolve``
    standard errors of the swing's estimate (the decision is not yet resolved)."""
    solo: int = 384
    """Rounds of ``confirm`` more deals at most on which the race goes on when ``extend`` rounds
    leave it unresolved: the runners still in it (a runner clearly behind the leader drops out
    as before) against the play made. A decision on a mark's threshold gets 39,264 deals instead
    of 2,400 (20,832 from session 35 to 50: 192 rounds; 384 since session 51, paid for by
    ``spread_deals``, which settles sooner the races of gains that vary little: two-deck hands
    1-16 on session 50's three seeds, 90.0 → 96.0 % of the marks the same, for about 7 % more
    CPU than session 50's budget). Until session 35 the leader alone went on (two playouts a
    deal): which of two close runners led after 2,400 deals then decided the swing, and that was
    half of the two-deck marks one seed gave and another did not (86 % the same on three seeds;
    92 % with the runners left going on, for 6 % more time). 24 rounds until session 25; 96 at
    one deck since session 27 and at two decks from session 29 to 34 (192 since: the two-deck
    marks on the inaccuracy's cut, a certain 5's estimates, came and went with the seed at
    11,616 deals: 88 % the same on three fresh seeds at 96, 92 % at 192, for 13 % more time);
    smaller and larger packs get ``small_solo`` and ``large_solo`` (:meth:`solo_rounds`)."""
    small_solo: int = 2304
    """The rounds after ``extend`` at most in a hand of at most 100 points (one deck): a deal
    costs about a third of a two-deck one there, and the one-deck inaccuracy (4 points until
    session 37, 4.5 since) lies among the estimates of the 5s handed over, so a decision on
    its cut needs the deals (hands 1-16, seeds 139989/528638/456679: 83.6 % of the marks the
    same in three pairs at 96 rounds, 93.1 % at 384; session 35). 384 (as ``solo``) until
    session 52, when the regenerated sample's seats were marked seldom and three decisions on
    the cut made a third of the differences: hands 1-40, seeds 911170/583846/764492, 85.0 % the
    same at 384, 90.7 % at 1152, for about 30 % more CPU a one-deck hand. 2304 since session 55
    (with ``small_exact_solo`` 216, paid for by the search's ordered choices): session 53's
    seeds 19810/467070/676724, hands 1-40, 86.7 → 94.5 % of the marks the same, one-deck hands
    1-20 15.8 → 19.2 s a hand (about 20 with session 54's search)."""
    large_solo: int = 24
    """The rounds after ``extend`` at most in a hand of more than 200 points (three decks and more, 打万分):
    each deal costs two to four times a two-deck one there, and 96 rounds took 打万分 near 30 s a
    hand (session 29)."""
    resolve: float = 2.5
    """A decision is resolved when every mark's threshold lies at least this many standard
    errors from the swing's estimate (below it; ``resolve_above`` above it), once the race's
    ``extend`` rounds are over, in a pack of two decks' points (``early_resolve`` before;
    ``small_resolve`` at one deck, ``large_resolve`` in larger packs: :meth:`resolve_at`).
    2 until session 49, when races of session 44-46's two-deck runs still stopped below the
    cut three to four and a half errors low after 3,000-7,500 deals (``bench/race_stop.py
    --scale 1 --sd 29 --tail 120 0.02``: a gain of 4.8 with a 2 % chance of 120 points more
    stopped below the cut in 3.5 % of races at 2.5 then 2, 2.3 % at 2.5 throughout; a
    two-deck hand about 6 % more CPU)."""
    large_resolve: float = 2.0
    """The stop in every round of a race in a pack of more than 200 points (three decks and
    more, 打万分), whose deals cost two to four times a two-deck one: 2.5 throughout took a
    four-deck hand from 26.7 to 30.2 s in session 44."""
    early_resolve: float = 2.5
    """``resolve`` during the race's first ``extend`` rounds (2,304 deals), in a pack of two
    decks' points: since session 44 (2 before). The race is looked at after every round,
    and a gain a mark's width above the cut now and then ran about three errors low for its
    first thousand deals and stopped there, unmarked (two-deck hand 3, trick 7: 2C 2C, 0.7 ±
    1.1 after 960 deals with review seed 268714, an inaccuracy at 5.3-6.7 on 40 other seeds;
    one-deck 6H, 2.7 ± 0.8 against 4.8-5.1): the only differences in one of session 43's final
    stability runs and two of ten in the other. A model of the race at two decks
    (``bench/race_stop.py``) has a gain half a point above the cut stop below it in 2.8 % of
    races at 2, 1.1 % with 2.5 for the first rounds, 0.7 % with 2.5 throughout, for +16 % and
    +53 % of the deals of a race at a gain of 3.5 (2.5 throughout took the two-deck sample's
    first hands from 7.9 to 9.5 s, side by side, its ends settled once: near the 10 s
    bound). Larger packs: :attr:`large_resolve`."""
    small_resolve: float = 3.0
    """The stop's standard errors below a threshold in every round of a race in a hand of at
    most 100 points (one deck), since session 49 (2.5 then 2 before):
    a race looked at after every round of a gain with a rare large value (a kitty changing
    hands) stops now and then on a low stretch, and a one-deck decision has up to 408 rounds
    to do it in (an AD stopped after 2,880 deals at 3.5 ± 0.3 where two other seeds raced
    39,264 deals to 4.7-4.9 ± 0.1: the one difference of a pair of session 48's stability
    runs). ``bench/race_stop.py --tail 80 0.03``, a gain of 4.8 with a 3 % chance of 80 points
    more: 2.9 % of races stopped below the cut at 2.5 then 2, 0.4 % at 3; a gain of 3.5 takes
    6,166 deals to dismiss instead of 3,192 (a one-deck hand costs a fraction of the bound)."""
    drop: float = 3.0
    """A runner whose gain trails the leader's by this many standard errors of their paired
    difference drops out of the race (``resolve`` + 1 until session 44)."""
    resolve_above: float = 4.0
    """As ``resolve``, for a gain estimated above a threshold (a mark's side): a race looked at
    after every round stops now and then on a lucky estimate 2 standard errors above what a
    full race finds, and there it would give a mark (session 25: most of the marks one run
    gave and another did not, once the solo rounds had narrowed the rest). 3 until session 31,
    when races stopped at 5,000-6,000 deals 3 errors above the inaccuracy's cut were found
    0.8-1 point lower by a full race: at 4, two-deck hands 1-16 on four review seeds gave the
    same mark in 93.9 % of the six pairs' marked decisions against 92.0 %, for 10 % more
    deals."""
    spread: float = 24.0
    """The spread assumed for the points between two plays on one deal (for 200 points;
    scaled), counted as ``spread_deals`` deals in a gain's standard error: a few deals on
    which two plays happened to score alike never settle a decision (until session 51 the
    error was never below ``spread / sqrt(deals)``, however many the deals)."""
    spread_deals: int = 512
    """How many deals' worth ``spread`` counts for in a gain's standard error: the variance
    read is the measured one pooled with ``spread``'s square counted as this many deals
    (since session 51; ``0``: the error never below ``spread / sqrt(deals)``, as before).
    With the hard floor, a gain that varies little from deal to deal (a 5 handed over that
    mostly does not matter: a spread of 10 where the floor assumes 24) was never resolved
    and charged more than twice its error at the end of the race: two-deck hands 1-4 took 15 %
    fewer playouts without it (docs/review-history.md, "Session 51")."""
    trusted: int = 512
    """Deals from which the race's stop reads a gain's standard error as measured; on fewer it
    reads it raised by ``sqrt(trusted / deals)``: the first deals of a heavy-tailed gain (a
    kitty changing hands on a rare deal) often miss or overweight its rare large values, and a
    race looked at after every round would otherwise end early on a lucky estimate (``0``:
    always as measured). The swing is charged the error as measured."""
    exact_cards: int = 4
    small_exact_cards: int = 5
    """``exact_cards`` in a hand of at most 100 points (one deck), where a deal of five cards a
    seat is solved in about 1.5 ms (its alternatives sharing one table): there the rollout
    player's values of late plays were a poor guide (session 36, ``bench/rollout_strength.py``
    on one-deck hands 1-16 at five and six cards a seat: its best gains correlate 0.08 with the
    search's over the same deals, and would mark 1 decision of 84 where the search marks 8)."""
    exact_solo: int = 96
    """The rounds after ``extend`` at most when every deal is solved exactly, or its playouts
    searched deep (``deep_cards``; ``solo`` and its kin are sized for playouts that
    search two, twenty to a hundred times cheaper a deal)."""
    small_exact_solo: int = 216
    """``exact_solo`` in a hand of at most 100 points (one deck), where the search of five cards a
    seat costs half what it did until session 55 (its choices tried in a guessed order): a
    decision on a mark's cut there gets 23,136 deals (11,616, 96 rounds, until session 55)."""
    exact_deals: int = 256
    """Once each seat holds at most ``exact_cards`` cards, every deal of the unseen cards
    consistent with the seat's knowledge is solved exactly when there are at most this many
    (no sampling noise); else deals are drawn."""
    endgame: int = 2
    """A playout's last tricks, from a lead where every seat holds at most this many cards, are
    valued by the exact search instead of the rollout player (``0``: played out to the end)."""
    deep_cards: int = 5
    """A decision made where each seat holds at most this many cards (more than
    :meth:`exact_at`, from which each deal is solved whole), in a pack of at most
    ``deep_scale``, has its playouts searched from :meth:`exact_at` cards a seat instead of
    ``endgame``'s: one trick or two played by the rollout player, the rest exactly
    (:meth:`endgame_at`; ``0``: never, the ``quick`` level). The default since session 43 (two
    decks and 标分: a two-deck hand 1.1 s more, about 7.4 s on the regenerated samples; the same
    mark with another seed 96.0 % on three seeds; docs/review-history.md, "Session 43"); before, the
    ``thorough`` level's only.
    Session 40, two-deck hands 1-8 (100 deals a decision, ``bench/rollout_strength.py``): at
    five cards a seat, the best gains so found correlate 0.99 with the exact search of each
    whole deal and mark the 30 decisions as it does (two tricks searched: 0.61, 2 of 30 marked
    otherwise), for half a whole deal's search; at six, 0.82 and 3 of 24 otherwise (two
    tricks: −0.08 and 4; five: 0.97 for ten times the cost). Not the default until session 43:
    at five cards it cost 1.8-2.8 s more a two-deck hand (hands 1-8: 8.3 → 10.1 s, marking two
    errors of 16 and 18 points the default left unmarked), past the 10 s a hand the standard
    budget keeps to; since session 41's cheaper search 8.3 → 9.9 s (hands 1-2) on session 42's
    samples, 6.3 → 7.2 s on the regenerated ones."""
    small_deep_cards: int = 6
    """``deep_cards`` in a hand of at most 100 points (one deck), where each deal is solved
    whole from five cards a seat (:attr:`small_exact_cards`): from six, one trick played by
    the rollout player and the rest searched. Since session 53 (before, six cards a seat were
    played out with the last two tricks searched): one-deck hands 1-16, 100 deals a decision
    (``bench/rollout_strength.py --cards 6 6 --endgame 5``), the best gains so found correlate
    0.89 with the exact search of each whole deal against 0.33, and mark 2 of 53 decisions
    otherwise against 6 (the rollouts had marked none of the search's six); a one-deck hand
    costs about three times as much (docs/performance.md, "Session 53"). ``0``: never (the
    ``quick`` level)."""
    deep_scale: float = 2.0
    """``deep_cards`` applies in packs of at most this scale (400 points: four decks, every
    pack of the four rulesets) at the standard budget. 1.0 (two decks, 标分) until session 45,
    when a four-deck hand's follows became cheaper to list (its review 35.6 → 23.3 s a hand
    side by side): the deep end costs 9-11 % of a three- or four-deck hand
    (docs/performance.md, "Session 45")."""
    deep_patterns: bool = False
    """``deep_cards`` applies in a ruleset with special patterns too (打万分, the ``thorough``
    level): its playouts are played one alternative at a time (a pattern's bombs are settled in
    Python, outside the C core's batch), and the deep end there costs 40 % more a hand, past
    30 s."""
    max_alternatives: int = 400
    """At most this many alternatives valued (the play made, the likely plays, then card order):
    in practice every one (the most a decision of the sample matches has is 357, a three-deck
    lead; a follow with more than 400 candidate card sets is grouped first), the screen's
    successive halving bringing them down to the contenders. 16 until session 35, when one
    decision in eight at two decks (one in five at three and four decks) had more, and those
    past the sixteenth in card order were never valued: the best play could be among them."""
    contenders: int = 16
    """The alternatives that looked best on the first deals, valued again against the play
    made on fresh deals (the best of them on those deals is the best alternative; a runner
    clearly behind drops out after three rounds, so a place costs little when its play is
    plainly worse). Five until session 29: on two-deck hands 1-16, runs with two seeds differed
    most often by one whose screen had left the best play out of the race (88 % the same mark;
    97 % with eight, for 17 % more playouts). Eight until session 38, when the screen still
    left the best play out in a third of the marks two seeds did not share (a single of
    fifteen, ranked ninth on 64 deals and 5 points better than the play made; a trump throw
    that parts from the pair it contains on a rare kitty): with sixteen, none on six seeds
    (two-deck hands 1-16: 88.3 → 90.6 % and 93.9 → 94.2 % the same mark, for 12 % more CPU a
    two-deck hand)."""
    z: float = 1.0
    """A mark needs the swing less ``z`` standard errors to reach its threshold (1.0: about
    84 % one-sided confidence)."""
    seed: int = 0
    bury: bool = True
    """Review the kitty burial too (a whole hand played out per deal and alternative)."""
    bids: bool = True
    """Review the bids of an auction (标分): ``4 × samples`` deals played out per bidder."""
    declarations: bool = True
    """Review the trump declarations, made and never made: ``4 × samples`` deals, each played
    out once per alternative (the declarations the seat could make then, and none)."""
    rollout: str = "greedy"
    """Who plays the rollouts out: ``greedy`` (:mod:`replay.playout`, deterministic, sees every
    holding of the deal) or ``heuristic`` (the simulator's agent, each seat its own view)."""

    def solo_rounds(self, scale: float, solved: bool = False) -> int:
        """The rounds an unresolved race may go on for after ``extend``, in a hand of this
        ``scale`` (``solved``: each deal solved exactly)."""
        rounds = self.small_solo if scale <= 0.5 else self.solo if scale <= 1.0 \
            else self.large_solo
        exact = self.small_exact_solo if scale <= 0.5 else self.exact_solo
        return min(rounds, exact) if solved else rounds

    def resolve_at(self, scale: float, round_: int) -> float:
        """The stop's standard errors below a threshold after the race's round ``round_``
        (from 0) in a hand of this ``scale``: :attr:`small_resolve` at one deck,
        :attr:`large_resolve` past two decks; at two decks :attr:`early_resolve` in the first
        ``extend`` rounds, :attr:`resolve` after them."""
        if scale <= 0.5:
            return self.small_resolve
        if scale > 1.0:
            return self.large_resolve
        return self.early_resolve if round_ < self.extend else self.resolve

    def endgame_at(self, cards: int, scale: float, patterns: bool = False) -> int:
        """The playouts' searched last tricks for a decision where each seat holds at most
        ``cards`` cards, in a hand of this ``scale`` (``patterns``: of a ruleset with special
        patterns, 打万分)."""
        if scale <= self.deep_scale and (self.deep_patterns or not patterns) \
                and self.exact_at(scale) < cards <= self.deep_at(scale):
            return max(self.endgame, self.exact_at(scale))
        return self.endgame

    def deep_at(self, scale: float) -> int:
        """The most cards a seat holds from which the playouts are searched after one trick
        or two (:meth:`endgame_at`), in a hand of this ``scale``."""
        return self.small_deep_cards if scale <= 0.5 else self.deep_cards

    def exact_at(self, scale: float) -> int:
        """The most cards a seat holds from which each deal is solved exactly, in a hand of
        this ``scale``."""
        return max(self.exact_cards, self.small_exact_cards) if scale <= 0.5 \
            else self.exact_cards


LEVELS: dict[str, dict[str, int]] = {
    "quick": {"samples": 3, "confirm": 9, "extend": 4, "solo": 4, "small_solo": 4,
              "large_solo": 4, "exact_solo": 4, "small_exact_solo": 4, "contenders": 2, "deep_cards": 0,
              "small_deep_cards": 0},
    "standard": {},
    "thorough": {"samples": 128, "confirm": 384, "deep_scale": 4, "deep_patterns": True},
}
"""Named budgets: ``quick`` for large collections (about a tenth of ``standard``'s time; more
decisions come out unclear, none is marked on less evidence: the confidence rule is the same),
``standard`` (the defaults: 32 deals a screening stage, sixteen contenders, up to 2,400 deals a
decision still undecided and 36,864 more for the runners left at two decks (221,184 at one
deck since session 55, 110,592 from session 52; 18,432 at
two decks until session 51), 2,304 past two decks; until
session 20, when the
rollout player was written in C: 8, three and 408; from five cards a seat the playouts
searched after one trick, ``Budget.deep_cards``: at two decks and 标分 since session 43, in every
pack but 打万分's since session 45; from six at one deck since session 53), ``thorough``
(four times the deals, and the playouts searched from five cards a seat in every pack)."""


def budget_at(level: str = "standard", **overrides: Any) -> Budget:
    """The budget of a named level, with ``overrides`` (``None`` values ignored) on top."""
    if level not in LEVELS:
        raise ValueError(f"unknown review level {level!r} (one of {', '.join(LEVELS)})")
    chosen = {**LEVELS[level], **{k: v for k, v in overrides.items() if v is not None}}
    return Budget(**chosen)


@dataclass
class Decision:
    """One decision: who, where, the play made, each alternative's value, the swing and mark.

    Values are the defenders' expected final points; ``swing`` is from the deciding seat's side
    (0 when the play made was as good as the best alternative)."""

    trick: int
    seat: int
    lead: bool
    kind: str
    """``lead``, ``follow`` or ``bury`` (the kitty burial, trick 0)."""
    made: list[str]
    alternatives: list[tuple[list[str], float]]
    value_made: float
    best: list[str]
    value_best: float
    swing: float
    mark: str | None
    defender: bool
    exact: bool
    error: float = 0.0
    """The standard error of the estimate (0 when exact)."""
    estimate: float = 0.0
    """The points the play gave away against the best alternative, as estimated; ``swing``
    is this less ``z`` standard errors (the same when exact)."""
    confidence: float | None = None
    """How sure the mark is: the probability that the swing reaches the mark's threshold
    (normal approximation; 1.0 when exact)."""
    unclear: str | None = None
    """A worse mark the swing's estimate reaches but not with the required confidence."""
    deals: int = 0
    """Deals the swing was read from (consistent deals enumerated, when exact)."""
    considered: int = 0
    """Legal alternatives up to equivalence; ``alternatives`` holds the valued ones."""
    grouped: str | None = None
    """How the alternatives were grouped when there were too many to list (``None``: all)."""
    errors: list[float] = field(default_factory=list)
    """The standard error of each alternative's value (in ``alternatives``' order; 0 when
    exact)."""
    counts: list[int] = field(default_factory=list)
    """The deals each alternative's value is the mean of: the play made and the best one on
    every deal of the race, the other contenders on the race's deals until they dropped out,
    the rest on the deals of the last screening stage they reached (1 when exact: the
    expectation over every deal)."""
    lines: list[list[dict[str, Any]]] = field(default_factory=list)
    """What may follow the play made and the best alternative (in that order): on one deal of
    the unseen cards consistent with the seat's knowledge, the rest of the trick and the next
    one played by the rollout player; each trick ``{"trick", "plays": [[seat, cards]],
    "winner", "points"}``. An illustration of why, not the evidence (that is the values)."""

    def to_dict(self) -> dict[str, Any]:
        return {"trick": self.trick, "seat": self.seat, "lead": self.lead, "kind": self.kind,
                "made": self.made,
                "value_made": round(self.value_made, 2), "best": self.best,
                "value_best": round(self.value_best, 2), "swing": round(self.swing, 2),
                "estimate": round(self.estimate, 2), "error": round(self.error, 2),
                "mark": self.mark,
                "confidence": None if self.confidence is None else round(self.confidence, 3),
                "unclear": self.unclear,
                "side": "defenders" if self.defender else "declarer",
                "exact": self.exact, "deals": self.deals, "considered": self.considered,
                "grouped": self.grouped,
                "alternatives": [{"cards": c, "value": round(v, 2),
                                  "error": round(self.errors[i], 2) if i < len(self.errors)
                                  else None,
                                  "deals": self.counts[i] if i < len(self.counts) else None}
                                 for i, (c, v) in enumerate(self.alternatives)],
                "lines": self.lines}


BID_MARKS = (("blunder", 4.0), ("mistake", 2.0), ("inaccuracy", 1.0))
"""Swing thresholds of a bid or pass (标分), in the seat's expected settlement (档)."""


@dataclass
class BidDecision:
    """A bid of an auction (标分) against the points its bidder, as declarer, could hold the
    defenders to, estimated from deals of the cards it could not see.

    ``estimate`` is the defenders' expected final points with the bidder as declarer (its
    standard deviation over the deals in ``spread``); each alternative is a legal bid at that
    moment with the seat's expected settlement in 档 had it won the auction there, or the pass
    (``None``: the high bidder declares at its contract); ``swing`` is how much the choice made
    gave away against the best of them."""

    seat: int
    bid: int | None
    """The points bid; ``None`` for a pass."""
    estimate: float
    spread: float
    deals: int
    alternatives: list[tuple[int | None, float]]
    value_made: float
    best: int | None
    value_best: float
    swing: float
    mark: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "bid": self.bid, "estimate": round(self.estimate, 1),
                "spread": round(self.spread, 1), "deals": self.deals,
                "value_made": round(self.value_made, 2), "best": self.best,
                "value_best": round(self.value_best, 2), "swing": round(self.swing, 2),
                "mark": self.mark,
                "alternatives": [{"bid": b, "value": round(v, 2)} for b, v in self.alternatives]}


DECLARE_MARKS = (("blunder", 1.0), ("mistake", 0.5), ("inaccuracy", 0.25))
"""Swing thresholds of a trump declaration, in levels (the seat's team's levels gained less
the other team's): a level is 40 points of a two-deck hand, so these sit near the play's 43,
22 and 5 points."""


@dataclass
class DeclareDecision:
    """A trump declaration (亮主 / 反主) against the others the seat could make when it made it,
    and against declaring nothing yet (``None``); or a declaration never made (``made`` is
    ``None``): the seat's silence at its last chance, right after its last card, against each
    declaration it could have made then. Estimated from deals of the cards it had not seen
    (see :mod:`replay.declarations`).

    Values are the seat's team's expected levels gained less the other team's; ``estimate`` is
    the best alternative's gain over the choice made, ``error`` its standard error over
    the ``deals``, ``swing`` the estimate less ``z`` standard errors (what the mark is on)."""

    seat: int
    drawn: int
    """How many cards had been dealt in all when it was made (or, never made, at the seat's
    last card)."""
    made: list[str] | None
    alternatives: list[tuple[list[str] | None, float]]
    value_made: float
    best: list[str] | None
    value_best: float
    estimate: float
    error: float
    swing: float
    mark: str | None
    deals: int

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "drawn": self.drawn, "made": self.made,
                "value_made": round(self.value_made, 3), "best": self.best,
                "value_best": round(self.value_best, 3), "estimate": round(self.estimate, 3),
                "error": round(self.error, 3), "swing": round(self.swing, 3),
                "mark": self.mark, "deals": self.deals,
                "alternatives": [{"cards": c, "value": round(v, 3)}
                                 for c, v in self.alternatives]}


@dataclass
class HandReview:
    """The decisions of one hand, and per seat its accuracy (see :func:`accuracy`); in an
    auction game its bids, elsewhere its trump declarations (neither part of accuracy: they
    are valued in 档 and in levels, not points)."""

    match: str
    hand: int
    decisions: list[Decision] = field(default_factory=list)
    skipped: str | None = None
    bids: list[BidDecision] = field(default_factory=list)
    declarations: list[DeclareDecision] = field(default_factory=list)

    def accuracy(self, seat: int) -> float | None:
        return accuracy([d for d in self.decisions if d.seat == seat], self.scale)

    def accuracy_interval(self, seat: int) -> tuple[float, float] | None:
        """The 95 % interval of :meth:`accuracy` from the review's noise
        (:func:`accuracy_interval`)."""
        return accuracy_interval([d for d in self.decisions if d.seat == seat], self.scale)

    scale: float = 1.0


def accuracy(decisions: list[Decision], scale: float = 1.0) -> float | None:
    """Accuracy in percent over some decisions: 100 × mean(1 − min(swing, B) / B), B the
    blunder's threshold (43 × ``scale``).

    A play as good as the best alternative scores 1, a blunder (43 points or more in a
    two-deck game) scores 0, in between linearly; ``None`` with no decision."""
    if not decisions:
        return None
    cap = MARKS[0][1] * scale
    return 100 * sum(_score(d.swing, cap) for d in decisions) / len(decisions)


def _score(swing: float, cap: float) -> float:
    """One decision's share of accuracy: 1 for no swing, 0 at the blunder's ``cap`` or past."""
    return 1 - min(max(swing, 0.0), cap) / cap


def accuracy_noise(decisions: list[Decision], scale: float = 1.0) -> float:
    """The sum over ``decisions`` of each one's score variance from the review's own noise
    (see :func:`accuracy_interval`): what a running tally over several hands adds up."""
    cap = MARKS[0][1] * scale
    total = 0.0
    for d in decisions:
        if d.exact or not d.error:
            continue
        half = (_score(d.swing - 1.96 * d.error, cap) - _score(d.swing + 1.96 * d.error, cap)) / 2
        total += (half / 1.96) ** 2
    return total


def interval_of(accuracy_value: float, noise: float, count: int) -> tuple[float, float]:
    """The 95 % interval of an accuracy over ``count`` decisions whose score variances sum
    to ``noise`` (:func:`accuracy_noise`), within 0-100."""
    half = 1.96 * 100 * noise ** 0.5 / count
    return max(0.0, accuracy_value - half), min(100.0, accuracy_value + half)


def accuracy_interval(decisions: list[Decision], scale: float = 1.0
                      ) -> tuple[float, float] | None:
    """A 95 % interval around :func:`accuracy` from the review's own noise: each decision's
    swing is known to its standard error (``error``; 0 when exact), so its score lies,
    clipped to 0-1, within its swing ± 1.96 errors; the errors of different decisions are
    independent (their own deals), and the interval is the accuracy ± 1.96 standard errors of
    the mean. It says how far another run of the review could move the figure, not how the
    player would score on other hands. ``None`` with no decision."""
    value = accuracy(decisions, scale)
    if value is None:
        return None
    return interval_of(value, accuracy_noise(decisions, scale), len(decisions))


class AccuracyTally:
    """One player's decisions added up as they come (over hands of any rulesets: each decision
    scored on its own game's scale): the count, :func:`accuracy`, its 95 % interval
    (:func:`accuracy_interval`) and the marks."""

    __slots__ = ("decisions", "marks", "noise", "score")

    def __init__(self) -> None:
        self.decisions = 0
        self.score = 0.0
        self.noise = 0.0
        self.marks = {name: 0 for name, _ in MARKS}

    def add(self, decision: Decision, scale: float) -> None:
        self.decisions += 1
        self.score += accuracy([decision], scale) or 0.0
        self.noise += accuracy_noise([decision], scale)
        if decision.mark in self.marks:
            self.marks[decision.mark] += 1

    @property
    def accuracy(self) -> float | None:
        return self.score / self.decisions if self.decisions else None

    @property
    def interval(self) -> tuple[float, float] | None:
        value = self.accuracy
        return None if value is None else interval_of(value, self.noise, self.decisions)


def point_scale(state: Any) -> float:
    """The hand's points over 200 (two decks): what the marks' thresholds are scaled by."""
    total = sum(state.points_table[c] for c in range(54)) * state.rules.decks
    return total / 200 if total else 1.0


LEAST_INACCURACY = 4.5
"""The inaccuracy is never below this many points, whatever the pack: a 5 handed over costs
3-4.5 in expectation in every game (it matters about two times in three to four in five) and
5.0-5.5 given for certain, and a card's points do not scale with the pack, so the scaled
threshold (2.25 at one deck) would sit under those clusters and mark the same 5 in one run and
not in the next. 4.5, two decks' own threshold, cuts the swing between them in every pack (3.5
until session 28, at the cluster's top: the one-deck marks that two runs did not share were
estimated 3.4-4.1; 4 until session 37, when the regenerated one-deck games' 5s that matter
mostly were estimated at 4.0-4.4 and a mark there came and went with the seed: docs/review.md,
"Why the inaccuracy is 4.5")."""


def thresholds(scale: float) -> tuple[tuple[str, float], ...]:
    """The marks' thresholds in points for a game of ``scale`` × 200 points, worst first."""
    return tuple((name, max(points * scale, LEAST_INACCURACY) if name == "inaccuracy"
                  else points * scale) for name, points in MARKS)


def mark_for(swing: float, scale: float) -> str | None:
    for name, points in thresholds(scale):
        if swing >= points:
            return name
    return None
