"""Benchmark: does the review mark a plainly bad play? (issue 23)

Simulated matches in which seat 1 plays as the other seats (``--seats``: by default the
simulator's agent: the heuristic agent, its plays checked on sampled deals, looking ahead in the
last eight tricks) except for one
planted error per hand, at its first chance of any of five kinds (see :class:`Planter`): points thrown by the
declarer's side onto a trick a defender has already won (a 10 or a K given away), a trick full
of points left to the opponents by the last player who could win it with a card of the led
suit, a sure-winning ace of another suit thrown under an opponent's ruff while a small card
could go, as the declarer the most points it can buried in the kitty, and in the last two
tricks the play worth least from what the seat knew (since session 28). Every hand is
reviewed; the benchmark prints how many planted plays were marked (per kind, with their
estimated swings) and the share of the other seats' decisions marked (by kind). Seeds are
drawn fresh unless given, and printed.

With ``--seats lookahead`` every other decision (the planted seat's too) is played by the
lookahead agent of the whole hand (bench/lookahead.py), which leads and follows as the review's
own machinery judges on a small budget: its decisions measure what the review marks in good
play (its noise); the simulator's agent shares that view in the last eight tricks, and before
them only where its check finds a play clearly better than the heuristic agent's, and its marks
include its own weaknesses earlier (its leads above all); ``--seats heuristic`` is the
heuristic agent alone (every session's figures before 34).

    python bench/review_planted.py                       # one deck, 6 matches x 4 hands
    python bench/review_planted.py --decks 2 --seeds 11 12 13
    python bench/review_planted.py --decks 2 --kinds points win ace   # the plays only
    python bench/review_planted.py --seats lookahead --decks 2        # among good players
    python bench/review_planted.py --second -v    # each unmarked plant valued again, own view
    python bench/review_planted.py --kinds ace --matches 60 --plants-only -v   # a rare kind
    python bench/review_planted.py --plants-only --exact 7 -v   # late plants solved exactly too
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gamelog  # noqa: E402
import replay  # noqa: E402
from bench.lookahead import whole_hand  # noqa: E402
from bench.review_stability import budget_fields  # noqa: E402
from gamelog.cards import CARD_BY_TOKEN, CARD_TOKENS  # noqa: E402
from gamelog.model import KittyBury, Play  # noqa: E402
from replay.agents import HeuristicAgent  # noqa: E402
from replay.candidates import decision_choices  # noqa: E402
from replay.deals import consistent_deals  # noqa: E402
from replay.engine import HandReplay, play_strength  # noqa: E402
from replay.lookahead import LookaheadAgent  # noqa: E402
from replay.marks import mark_for, thresholds  # noqa: E402
from replay.order import TRUMP  # noqa: E402
from replay.review import budget_at, positions, review_decision, review_hands  # noqa: E402
from replay.rollouts import exact_values, most_held, rollout_samples  # noqa: E402
from replay.search import defends  # noqa: E402
from replay.simulate import simulate_match  # noqa: E402
from replay.trick import voids_shown  # noqa: E402

KINDS = frozenset({"points", "win", "ace", "bury", "last"})
"""The kinds planted unless others are asked for."""
EVERY_KIND = KINDS | {"ruffed"}
"""Every kind :class:`Planter` knows (``ruffed`` costs nothing in play: see the class)."""


class Plant(NamedTuple):
    """One planted play: its kind, the hand and trick it was made in (trick 0 for the
    burial) and its cards. The hand number matters: a decision with the same trick and cards
    in another hand is not the plant (until session 48 the benchmark matched plants by trick
    and cards alone, and a lead of an earlier hand could stand for a later hand's plant)."""

    kind: str
    hand: int
    trick: int
    cards: list[int]


def hand_number(view) -> int:  # type: ignore[no-untyped-def]
    """The number of the hand a seat's view is of (the simulator gives it the hand's replay;
    -1 without one)."""
    state = getattr(view, "state", None)
    return -1 if state is None else state.hand.number


class Planter(HeuristicAgent):
    """The heuristic agent, with one planted error a hand (see the module's docstring): the
    first chance in the hand of any of the kinds below, each recorded as a :class:`Plant`.

    - ``points``: on the declarer's side, last to a single-card trick a defender has already
      won, holding both a point card and a pointless card it may play that costs nothing to
      give (a single, so no pair is broken, a small card, 2-9, and no trump spent on a side
      suit), it throws the most points it can (a 10 or a K handed to the defenders' score).
      The point card kept instead is not the seat's last of its suit (until session 30 it
      could be, and the next lead of the suit would take it anyway).
      (Until session 19 the pointless card could be an ace: at two decks a 10 given to keep
      the ace that had become the suit's master is no loss, and the review rightly said so.)
      (Until session 15 the seat could be a defender, whose 10 thrown onto the declarer's
      trick costs only the chance that its side would have won it later, about a third of 10
      at one deck; the pointless card could be one of a pair or a trump, and the lead any
      shape: then giving the 10 was often no loss or a small one, and the review did not mark
      it.)
    - ``win``: last to a side-suit single-card trick an opponent is winning, with 10 points
      a deck or more on the table, it plays its lowest pointless card that does not win while
      it holds a card of the led suit that would (the points left to the other side; until
      session 20 the winning card could be a trump, whose cost the review rightly weighed);
    - ``ace``: a side suit led with a single, an opponent's trump winning the trick, the seat
      void in the suit throws away the sure winner of another side suit (an ace, no copy of it
      unseen, no opponent shown void in its suit) while it holds a small pointless side-suit
      single (2-9) it could throw instead (since session 42: the ace's later trick is lost);
    - ``ruffed`` (not planted unless asked for; the ``ace`` kind until session 41): a side
      suit led with a single, an opponent's trump winning the trick, it plays its ace of the
      suit under the ruff while it holds a lower pointless card of the suit, the ace with no
      copy unseen (until session 19 the lower card could be a 10 or a K; until session 24 the
      ace need not be sure). The ruffer has just shown a void in the suit, so the ace wins a
      later round only where that opponent cannot ruff it then: the cost is often nothing
      (+0.1 ± 1.4 points at one deck in play, ``bench/plant_cost.py``, session 39), and the
      review valued such aces at 0-2.8, rightly; it is not a plainly bad play;
    - ``bury``: as the declarer, it buries the most points it can in the kitty (pointless
      cards kept in hand instead), when that is 20 points a deck more than the agent's own
      burial;
    - ``last``: in the last two tricks (every seat holding two cards at most), the play worth
      least to its side in expectation over every deal of the cards it has not seen that is
      consistent with what it knows (:func:`replay.deals.consistent_deals`, each solved
      exactly; 64 of them drawn when there are more than 256: what the seat could know, not
      the true deal), among the alternatives the review
      would list, when that is 10 points a deck below the agent's own play (the issue's "worst
      play in the last two tricks"; session 28), on 64 fresh deals where they were drawn
      (since session 39)."""

    def __init__(self, rng: random.Random, planted: list[Plant],
                 kinds: frozenset[str] = KINDS, base: HeuristicAgent | None = None) -> None:
        super().__init__(rng)
        self.planted = planted
        self.kinds = kinds
        self.done = False
        self.seen = -1
        self.base = base
        """Who plays the seat's other decisions (``None``: the heuristic agent)."""

    def lead(self, view):  # type: ignore[no-untyped-def]
        self._new_hand(view)
        usual = self.base.lead(view) if self.base is not None else super().lead(view)
        return self._last(view, usual) or usual

    def _last(self, view, usual: list[int]) -> list[int] | None:  # type: ignore[no-untyped-def]
        """The ``last`` kind's play, when this decision is its chance (see the class)."""
        state = getattr(view, "state", None)
        if "last" not in self.kinds or self.done or state is None or state.order is None \
                or most_held(state) > 2:
            return None
        options, _ = decision_choices(state, view.seat)
        if len(options) < 2:
            return None
        options = [sorted(o) for o in options]
        if sorted(usual) not in options:
            options.append(sorted(usual))
        sign = 1 if defends(state, view.seat) else -1
        deals = consistent_deals(state, view.seat, 256)
        if deals is not None:  # every consistent deal, solved
            values = exact_values(deals, view.seat, options)
        else:  # too many: 64 of them drawn, each solved
            rows = rollout_samples(state, view.seat, options, 64, random.Random(self.seen),
                                   exact_cards=4)
            values = [sum(r[i] for r in rows) / len(rows) for i in range(len(options))]
        mine = [sign * v for v in values]
        worst = min(range(len(options)), key=lambda i: mine[i])
        made = options.index(sorted(usual))
        gap = mine[made] - mine[worst]
        if deals is None and gap >= 10 * view.rules.decks:
            # the gap read again on 64 fresh deals: the worst of several plays on the deals
            # that picked it is worse there than it is (session 39: so picked, the plants cost
            # their side 7.8 ± 1.7 in play where the drawn deals said 16.5; enumerated, 12.7 ±
            # 2.2 where the deals said 14.6)
            again = rollout_samples(state, view.seat, [options[made], options[worst]], 64,
                                    random.Random(f"again:{self.seen}"), exact_cards=4)
            gap = sign * sum(r[0] - r[1] for r in again) / len(again)
        if gap >= 10 * view.rules.decks:
            return self._plant("last", view, options[worst])
        return None

    def _new_hand(self, view) -> None:  # type: ignore[no-untyped-def]
        if len(view.tricks) < self.seen:
            self.done = False
        self.seen = len(view.tricks)

    def bury(self, view, count):  # type: ignore[no-untyped-def]
        self.done, self.seen = False, 0  # a burial starts a hand
        order, pts = view.order, view.rules.points_table()
        cards = [c for c in range(54) for _ in range(view.hand[c])]
        rich = sorted(cards, key=lambda c: (-pts[c], order.klass[c] == TRUMP,
                                            order.power[c]))[:count]
        usual = super().bury(view, count)
        # plainly bad only when it buries far more than the agent's own burial would (until
        # session 20: 20 points in all, and the usual burial could be the same cards)
        if "bury" in self.kinds \
                and sum(pts[c] for c in rich) - sum(pts[c] for c in usual) >= 20 * view.rules.decks:
            self.done = True
            self.planted.append(Plant("bury", hand_number(view), 0, sorted(rich)))
            return rich
        return usual

    def follow(self, view, spec):  # type: ignore[no-untyped-def]
        self._new_hand(view)
        trick, order = view.trick, view.order
        if not self.done and trick is not None and trick.plays:
            kinds = [u.kind for u in trick.lead_units]
            best = max(trick.plays, key=lambda p: play_strength(order, trick.lead_class, kinds,
                                                                p.cards) or (-1, -1))
            top = play_strength(order, trick.lead_class, kinds, best.cards)
            pts = view.rules.points_table()
            mine = [c for c in order.members[trick.lead_class] if view.hand[c]]
            # a sure winner of its suit: no copy of it the seat has not seen (at two decks and
            # more the other ace played already or held; until session 24 any ace, which at
            # two decks may lose to the other one and was valued at 1-5 points)
            aces = [c for c in mine if CARD_TOKENS[c][0] == "A" and not view.unseen[c]]
            ruffed = not view.partner_side(best.seat) and trick.lead_class != TRUMP \
                and kinds == [(1, 1)] and top is not None and top[0] == 1
            if "ruffed" in self.kinds and ruffed and aces \
                    and any(not pts[c] and c not in aces for c in mine) \
                    and spec.contains([aces[0]]):
                return self._plant("ruffed", view, [aces[0]])
            if "ace" in self.kinds and ruffed and not mine \
                    and (thrown := self._sure_ace(view, spec)) is not None:
                return self._plant("ace", view, thrown)
            if not view.partner_side(best.seat) and len(trick.plays) == view.players - 1 \
                    and kinds == [(1, 1)] and top is not None:
                on_table = sum(pts[c] for p in trick.plays for c in p.cards)
                legal = [c for c in range(54) if view.hand[c] and spec.contains([c])]
                strength = {c: play_strength(order, trick.lead_class, kinds, [c]) for c in legal}
                beat = [c for c in legal if (s := strength[c]) is not None and s > top]
                # a winner of the led side suit: winning costs no trump (the review valued
                # wins by a ruff at 0-3.7 points at one deck: the trump was worth as much)
                winners = [c for c in beat if order.klass[c] == trick.lead_class != TRUMP]
                losers = [c for c in legal if c not in beat and not pts[c]]
                if "win" in self.kinds and on_table >= 10 * view.rules.decks and winners \
                        and losers:
                    return self._plant("win", view, [min(losers, key=lambda c: order.power[c])])
            declarer_side = view.declarer is not None and (
                view.seat in view.rules.declarer_side(view.declarer))
            if not view.partner_side(best.seat) and len(trick.plays) == view.players - 1 \
                    and kinds == [(1, 1)] and declarer_side:
                cheap = spec.lowest(lambda c: (pts[c], order.power[c]))
                rich = spec.lowest(lambda c: (-pts[c], order.power[c]))
                beats = play_strength(order, trick.lead_class, kinds, rich)
                # plainly bad only when the pointless card costs nothing to give: a single
                # (no pair broken), a small card (2-9: not an ace or a face card that may
                # win a later round) and no trump spent on a side-suit trick
                spare = view.hand[cheap[0]] == 1 and CARD_TOKENS[cheap[0]][0] in "23456789" \
                    and (order.klass[cheap[0]] != TRUMP or trick.lead_class == TRUMP)
                # and the point card kept would not be the seat's last of its suit, which the
                # next lead of the suit takes anyway (session 30: a ♠10 so planted was valued
                # 2.6 by the review and 2.9 by rollouts that see only their own cards)
                suit = order.klass[rich[0]]
                kept = sum(view.hand[c] for c in order.members[suit]) \
                    - (order.klass[cheap[0]] == suit)
                if "points" in self.kinds and pts[cheap[0]] == 0 and pts[rich[0]] >= 10 \
                        and spare and kept >= 2 \
                        and (beats is None or top is None or beats <= top):
                    return self._plant("points", view, rich)
        usual = self.base.follow(view, spec) if self.base is not None \
            else super().follow(view, spec)
        return self._last(view, usual) or usual

    @staticmethod
    def _sure_ace(view, spec) -> list[int] | None:  # type: ignore[no-untyped-def]
        """The ``ace`` kind's card: a side-suit ace the seat may throw that is sure to win a
        round of its suit (its only copy left, no opponent shown void in the suit), when a
        small pointless side-suit single could be thrown instead; ``None`` otherwise."""
        order, pts = view.order, view.rules.points_table()
        voids = voids_shown(order, [*view.tricks, view.trick], view.players)
        opponents = [s for s in range(view.players) if not view.partner_side(s)]

        def side(c: int) -> bool:
            return view.hand[c] == 1 and order.klass[c] != TRUMP and spec.contains([c])

        aces = [c for c in range(54) if side(c) and CARD_TOKENS[c][0] == "A"
                and not view.unseen[c]
                and not any(order.klass[c] in voids[s] for s in opponents)]
        small = [c for c in range(54) if side(c) and not pts[c]
                 and CARD_TOKENS[c][0] in "23456789"]
        return [aces[0]] if aces and small else None

    def _plant(self, kind: str, view, cards: list[int]) -> list[int]:  # type: ignore[no-untyped-def]
        self.done = True
        self.planted.append(Plant(kind, hand_number(view), len(view.tricks) + 1, sorted(cards)))
        return cards


class Exact(NamedTuple):
    """A planted decision valued again by the exact search of each whole deal (``--exact``):
    on ``deals`` deals of the cards the seat had not seen, drawn from what it knew as the
    review draws them, every alternative the review listed solved with both sides playing
    perfectly (the double-dummy value of each deal)."""

    cards: int
    """The most cards a seat held at the decision."""
    deals: int
    gain: float
    """The review's best alternative's gain over the play made, from the seat's side."""
    error: float
    top: float
    """The largest gain of any alternative (each on the same deals; a little high: the best
    of several noisy estimates)."""
    top_play: list[str]

    def agrees(self, decision) -> bool:  # type: ignore[no-untyped-def]
        """The review's estimate within two standard errors (the two combined) of this one,
        and half a point: two estimates of a gain both near 0 (an exact 0.0 ± 0.0 against the
        review's 0.3 ± 0.1 of paired deals) agree though their errors are tiny."""
        both = (self.error ** 2 + decision.error ** 2) ** 0.5
        return abs(decision.estimate - max(self.gain, 0.0)) <= 2 * both + 0.5


def exact_check(state: HandReplay, decision, deals: int, seed: str) -> Exact:  # type: ignore[no-untyped-def]
    """``decision`` (a play of ``state``'s seat to play) valued by the exact search of each of
    ``deals`` whole deals (:class:`Exact`)."""
    plays = [sorted(CARD_BY_TOKEN[t] for t in tokens) for tokens, _ in decision.alternatives]
    best = plays.index(sorted(CARD_BY_TOKEN[t] for t in decision.best))
    sign = 1 if defends(state, decision.seat) else -1
    rows = rollout_samples(state, decision.seat, plays, deals, random.Random(seed), exact_cards=99)
    gains = [[sign * (r[i] - r[0]) for r in rows] for i in range(len(plays))]
    top = max(range(len(plays)), key=lambda i: (statistics.fmean(gains[i]), -i))
    spread = statistics.stdev(gains[best]) if len(rows) > 1 else 0.0
    return Exact(most_held(state), len(rows), statistics.fmean(gains[best]),
                 spread / len(rows) ** 0.5, statistics.fmean(gains[top]),
                 list(decision.alternatives[top][0]))


def seat_agents(seats: str, deals: int, kinds: frozenset[str], planted: list[Plant]
                ) -> Callable[[int, random.Random], HeuristicAgent]:
    """The match's agents: seat 1 the :class:`Planter` (recording into ``planted``), the
    others ``seats`` (``simulator``, ``heuristic`` or ``lookahead`` on ``deals`` deals)."""
    def other(rng: random.Random) -> HeuristicAgent:
        if seats == "lookahead":
            return whole_hand(rng, deals)
        return LookaheadAgent(rng) if seats == "simulator" else HeuristicAgent(rng)

    def agents(seat: int, rng: random.Random) -> HeuristicAgent:
        if seat == 1:
            return Planter(rng, planted, kinds, None if seats == "heuristic" else other(rng))
        return other(rng)

    return agents


def play_match(rules, seed: int, hands: int, agents) -> list:  # type: ignore[no-untyped-def]
    """The simulated match's hands, as a reader loads them from its record."""
    events = simulate_match(rules, f"planted-{seed}", seed, hands=hands, agents=agents)
    return [h for m in gamelog.loads(gamelog.dumps(events)) for h in m.hands]


def match_plants(rules, seed: int, hands: int, seats: str, deals: int,  # type: ignore[no-untyped-def]
                 kinds: frozenset[str], budget, exact: tuple[int, int] = (0, 0)
                 ) -> list[tuple[str, int, object, Exact | None]]:
    """``--plants-only``: the match simulated, and only its planted decisions reviewed, each
    as :func:`replay.review.review_decision` values it (the same as in its hand's review:
    its draws are fixed by its place); (kind, hand, decision, its :class:`Exact` check or
    None) for each. ``exact``: (cards, deals): a play made where each seat holds at most
    ``cards`` cards is valued again on ``deals`` deals by the exact search."""
    planted: list[Plant] = []
    played = play_match(rules, seed, hands, seat_agents(seats, deals, kinds, planted))
    out: list[tuple[str, int, object]] = []
    by_place = {(p.hand, p.trick): p for p in planted}  # one a hand at most
    for hand, state, ev in positions(iter(played)):
        if getattr(ev, "seat", None) != 1 or type(ev) not in (KittyBury, Play):
            continue
        plant = by_place.get((hand.number, 0 if type(ev) is KittyBury else len(state.tricks) + 1))
        if plant is not None and sorted(CARD_BY_TOKEN[t] for t in ev.cards) == plant.cards:
            decision = review_decision(state, ev, budget=budget)
            if decision is not None:
                check = exact_check(state, decision, exact[1], f"exact:{seed}:{hand.number}") \
                    if type(ev) is Play and most_held(state) <= exact[0] else None
                out.append((plant.kind, hand.number, decision, check))
            del by_place[(plant.hand, plant.trick)]
    return out


def plants_only(rules, seeds: list[int], args, kinds: frozenset[str],  # type: ignore[no-untyped-def]
                budget) -> dict[str, list]:
    """``--plants-only``: each match in a worker (``-j``), its planted decisions alone
    reviewed; the decisions by kind (printed as they come with ``-v``)."""
    from replay.parallel import in_order, terminate_on_sigterm

    tasks = [(rules, seed, args.hands, args.seats, args.deals, kinds, budget,
              (args.exact, args.exact_deals)) for seed in seeds]
    found: dict[str, list] = {}
    checked: list[tuple[str, object, Exact]] = []
    with terminate_on_sigterm():
        results = in_order(args.jobs, match_plants, tasks) if args.jobs > 1 \
            else (match_plants(*t) for t in tasks)
        for number, (seed, rows) in enumerate(zip(seeds, results, strict=True), 1):
            for kind, hand, d, check in rows:
                found.setdefault(kind, []).append(d)
                if check is not None:
                    checked.append((kind, d, check))
                if args.verbose:
                    print(f"    {kind}: match seed {seed}, hand {hand}, trick {d.trick}: "
                          f"{' '.join(d.made)} against {' '.join(d.best)}, estimated "
                          f"{d.estimate:.1f} ± {d.error:.1f} on {d.deals} deals: "
                          f"{d.mark or 'unmarked'}"
                          + ("" if check is None else
                             f"; exact ({check.cards} cards a seat, {check.deals} deals) "
                             f"{check.gain:.1f} ± {check.error:.1f}, the best of all "
                             f"{check.top:.1f} ({' '.join(check.top_play)})"), flush=True)
            if sys.stderr.isatty():  # progress on a terminal, quiet in a pipe
                print(f"  match {number} of {len(seeds)} done", file=sys.stderr, flush=True)
    if args.exact:
        print_exact(checked, rules)
    return found


def print_exact(checked: list[tuple[str, object, Exact]], rules) -> None:  # type: ignore[no-untyped-def]
    """``--exact``: how the review's swings of the plants so checked compare with the exact
    search's, and whether the marks (the exact gain's, no error charged) are the same."""
    scale = rules.decks / 2
    agree = sum(c.agrees(d) for _, d, c in checked)
    same = sum(mark_for(max(c.gain, 0.0), scale) == d.mark for _, d, c in checked)
    print(f"plants valued by the exact search too: {len(checked)}; the review's estimate "
          f"within two errors of it {agree}; the same mark {same}", flush=True)
    for kind, d, c in checked:
        if not c.agrees(d) or mark_for(max(c.gain, 0.0), scale) != d.mark:
            print(f"    {kind}, trick {d.trick}: the review {d.estimate:.1f} ± {d.error:.1f} "
                  f"({d.mark or 'unmarked'}), exact {c.gain:.1f} ± {c.error:.1f} "
                  f"({mark_for(max(c.gain, 0.0), scale) or 'unmarked'})", flush=True)


def print_planted(found_by: dict[str, list], rules) -> None:  # type: ignore[no-untyped-def]
    """How many planted plays were marked, in all and by kind, with their estimated swings."""
    every = [d for ds in found_by.values() for d in ds]
    caught = sum(d.mark is not None for d in every)
    print(f"planted plays reviewed: {len(every)}; marked {caught} "
          f"({100 * caught / max(len(every), 1):.0f} %); mean estimated swing "
          f"{statistics.mean(d.estimate for d in every) if every else 0:.1f} points "
          f"(an inaccuracy is {dict(thresholds(rules.decks / 2))['inaccuracy']:g})", flush=True)
    for kind, ds in sorted(found_by.items()):
        marked = sum(d.mark is not None for d in ds)
        print(f"  {kind}: {len(ds)} reviewed, {marked} marked; estimated swings "
              f"{' '.join(f'{d.estimate:.1f}' for d in sorted(ds, key=lambda d: d.estimate))}",
              flush=True)


def second_opinion(rules, hand, decision, seed: int):  # type: ignore[no-untyped-def]
    """``decision`` (a play or the burial of ``hand``) valued again by another evaluator: the
    simulator's agent at every seat, each seeing only its own cards, played to the end (no
    perfect information anywhere: ``rollout="heuristic"``, ``endgame=0``), on its own deals.
    ``None`` when the decision is not found."""
    budget = budget_at("standard", seed=seed, rollout="heuristic", endgame=0,
                       declarations=False)
    rng = random.Random(f"second:{hand.match}:{hand.number}:{decision.trick}:{seed}")
    state = HandReplay(rules, hand)
    for ev in hand.events:
        if (decision.kind == "bury" and isinstance(ev, KittyBury) and ev.seat == decision.seat) \
                or (decision.kind != "bury" and isinstance(ev, Play) and ev.seat == decision.seat
                    and state.tricks_before + len(state.tricks) + 1 == decision.trick
                    and sorted(ev.cards) == sorted(decision.made)):
            return review_decision(state, ev, budget=budget, rng=rng)
        state.apply(ev)
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--decks", type=int, default=1)
    ap.add_argument("--seeds", type=int, nargs="*", help="match seeds (default: 6 fresh ones)")
    ap.add_argument("--matches", type=int, default=6, help="fresh match seeds to draw")
    ap.add_argument("--hands", type=int, default=4)
    ap.add_argument("--level", default="standard", help="the review's named budget")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print each planted play's review (made, best, estimate, mark)")
    ap.add_argument("--kinds", nargs="+", choices=sorted(EVERY_KIND), default=sorted(KINDS),
                    help="plant only these kinds (default: every one but ruffed, which is "
                         "no bad play; burials come first in a hand, so without them the "
                         "plays are planted more often)")
    ap.add_argument("--seats", choices=("simulator", "heuristic", "lookahead"),
                    default="simulator",
                    help="who plays the other decisions: the simulator's agent (the heuristic "
                         "agent, its plays checked, looking ahead in the last eight tricks), "
                         "the heuristic agent "
                         "alone (the seats of sessions before 34), or the lookahead agent that "
                         "plays the whole hand as the review judges on a small budget "
                         "(bench/lookahead.py; slower)")
    ap.add_argument("--deals", type=int, default=48,
                    help="the lookahead agent's deals a decision (default 48)")
    ap.add_argument("--again", type=int, metavar="SEED",
                    help="review every hand a second time with this review seed and print how "
                         "many of the decisions marked in either run get the same mark in "
                         "both (the stability on these games)")
    ap.add_argument("--second", action="store_true",
                    help="value each planted play left unmarked again with the simulator's "
                         "agent at every seat, each seeing only its own cards "
                         "(second_opinion): is it plainly bad to another evaluator?")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="a budget field of the review, as FIELD=VALUE (repeatable)")
    ap.add_argument("--plants-only", action="store_true",
                    help="review only the planted decisions (each as in its hand's review), "
                         "not the other seats': fast enough for many matches of a rare kind")
    ap.add_argument("--exact", type=int, default=0, metavar="CARDS",
                    help="with --plants-only: a planted play made where each seat holds at "
                         "most CARDS cards is valued again by the exact search of each whole "
                         "deal (7 at one deck costs seconds a plant, 8 a minute)")
    ap.add_argument("--exact-deals", type=int, default=48,
                    help="the deals of --exact (default 48)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    if args.exact and not args.plants_only:
        ap.error("--exact needs --plants-only")
    kinds = frozenset(args.kinds)
    try:
        fields = budget_fields(args.set)
    except ValueError as err:
        ap.error(str(err))
    pairs: list[tuple] = []  # (first run's decision, second run's), with --again
    seeds = args.seeds or random.SystemRandom().sample(range(10_000, 10**7), args.matches)
    print(f"match seeds: {' '.join(map(str, seeds))}; review seed: {seeds[0]}", flush=True)
    rules = replay.get_ruleset("tractor", players=4, decks=args.decks)
    budget = budget_at(args.level, seed=seeds[0], declarations=False, **fields)
    if args.plants_only:
        found = plants_only(rules, seeds, args, kinds, budget)
        print_planted(found, rules)
        return
    found_by: dict[str, list] = {}
    others, others_marked = 0, 0
    others_by: dict[str, int] = {}
    seen_kind: dict[str, int] = {}
    marked_kind: dict[str, int] = {}
    seconds: list[tuple] = []  # (kind, decision, its second opinion), with --second
    started = time.perf_counter()
    for number, seed in enumerate(seeds, 1):
        planted: list[Plant] = []
        hands = play_match(rules, seed, args.hands,
                           seat_agents(args.seats, args.deals, kinds, planted))
        mine: list = []
        firsts: list = []
        for r in review_hands(iter(hands), budget=budget, jobs=args.jobs):
            firsts += r.decisions
            for d in r.decisions:
                if d.seat == 1:
                    mine.append((r.hand, d))
                else:
                    others += 1
                    others_marked += d.mark is not None
                    seen_kind[d.kind] = seen_kind.get(d.kind, 0) + 1
                    if d.mark is not None:
                        others_by[d.mark] = others_by.get(d.mark, 0) + 1
                        marked_kind[d.kind] = marked_kind.get(d.kind, 0) + 1
        if args.again is not None:
            second = budget_at(args.level, seed=args.again, declarations=False, **fields)
            seconds = [d for r in review_hands(iter(hands), budget=second, jobs=args.jobs)
                       for d in r.decisions]
            pairs += list(zip(firsts, seconds, strict=True))
        # each planted play, found by its hand, trick and cards among seat 1's decisions
        for kind, hand_no, trick, cards in planted:
            tokens = sorted(CARD_TOKENS[c] for c in cards)
            hit = next((k for k in range(len(mine)) if mine[k][0] == hand_no
                        and mine[k][1].trick == trick and sorted(mine[k][1].made) == tokens), None)
            if hit is not None:
                found_by.setdefault(kind, []).append(mine[hit][1])
                h, d = mine[hit]
                other = None
                if args.second and d.mark is None:
                    other = second_opinion(rules, next(x for x in hands if x.number == h), d,
                                           seeds[0])
                    seconds.append((kind, d, other))
                if args.verbose:
                    print(f"    {kind}: match seed {seed}, hand {h}, trick {d.trick}: "
                          f"{' '.join(d.made)} against {' '.join(d.best)}, estimated "
                          f"{d.estimate:.1f} ± {d.error:.1f} on {d.deals} deals: "
                          f"{d.mark or 'unmarked'}"
                          + ("" if other is None else
                             f"; own-view rollouts {other.estimate:.1f} ± {other.error:.1f} on "
                             f"{other.deals} deals (best {' '.join(other.best)})"), flush=True)
        if sys.stderr.isatty():  # progress on a terminal, quiet in a pipe
            print(f"  match {number} of {len(seeds)} (seed {seed}) reviewed: "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    print_planted(found_by, rules)
    if args.second:
        cut = dict(thresholds(rules.decks / 2))["inaccuracy"]
        plain = [(k, d, o) for k, d, o in seconds if o is not None and o.estimate >= cut]
        print(f"  unmarked, valued again by own-view rollouts: {len(seconds)}; "
              f"{len(plain)} of them {cut:g} points or more there "
              f"({', '.join(f'{k} {o.estimate:.1f}' for k, _, o in plain) or 'none'})",
              flush=True)
    if args.again is not None:
        either = [(a, b) for a, b in pairs if a.mark or b.mark]
        same = sum(a.mark == b.mark for a, b in either)
        print(f"review seeds {seeds[0]} and {args.again}: {len(pairs)} decisions; marked in "
              f"either {len(either)}, the same mark {same} "
              f"({100 * same / max(len(either), 1):.0f} %)", flush=True)
        for a, b in either if args.verbose else []:
            if a.mark != b.mark:
                print(f"    trick {a.trick} seat {a.seat} {a.kind}: {a.mark or '-'} "
                      f"({a.estimate:.1f} ± {a.error:.1f}, {a.deals} deals) against "
                      f"{b.mark or '-'} ({b.estimate:.1f} ± {b.error:.1f}, {b.deals} deals)",
                      flush=True)
    print(f"{args.seats} seats' decisions marked: {others_marked} of {others} "
          f"({100 * others_marked / max(others, 1):.1f} %: "
          + ", ".join(f"{others_by.get(m, 0)} {m}" for m in ("inaccuracy", "mistake", "blunder"))
          + "); by kind: "
          + ", ".join(f"{k} {marked_kind.get(k, 0)} of {n}" for k, n in sorted(seen_kind.items())),
          flush=True)


if __name__ == "__main__":
    main()
