"""Decision review (复盘): every play of a recorded hand against the plays that were legal.

For each decision (a lead or a follow with more than one legal choice) the reviewer values
every alternative (up to equivalence: identical cards are one choice; a lead is one of the
holding's units, the play made, or a throw that stands) as the **defenders' final points**
(kitty award included) expected under good play from there, and reports the swing: how many
points the play made gave away against the best alternative, from the deciding seat's side.

Two evaluators, one answer type:

- :func:`solve` — an exact perfect-information search (alpha-beta on the defenders' points with
  a transposition table keyed on the holdings, the trick so far and the points), used once few
  cards remain; :func:`brute_force` is the same game without pruning or table, for tests.
- determinized rollouts — the cards the deciding seat could not see are dealt at random,
  consistent with what it could know (its holding, the cards played, the suits others have
  shown void in, the kitty if it buried it), and the hand is played out by the
  deterministic rollout player of :mod:`replay.playout`; every alternative meets the same
  deals (common random numbers), so differences between alternatives are not noise between
  samples.
- the auction (标分): each bid and pass against the seat's expected settlement at every legal
  bid and at the pass (:class:`BidDecision`).
- a trump declaration: against the other declarations the seat could make then and against
  none yet, by the levels the seat's team gains (:mod:`replay.declarations`).

Everything is seeded: the same hand, budget and seed give the same review.
"""

from __future__ import annotations

import copy
import random
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from gamelog.cards import CARD_BY_TOKEN as CARD_INDEX
from gamelog.cards import CARD_TOKENS, UNKNOWN, Card
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
    TrumpChosen,
)
from replay.agents import HeuristicAgent, seat_view

# The seams, each a module: the marks (replay.marks), the rollouts (replay.rollouts), the
# search (replay.search), the alternatives (replay.candidates), the deals (replay.deals); their
# names stay importable from here.
from replay.candidates import MAX_THROWS as MAX_THROWS
from replay.candidates import decision_choices as decision_choices
from replay.candidates import equivalence
from replay.candidates import sure_from_view as sure_from_view
from replay.deals import _deal_into as _deal_into
from replay.deals import _refresh as _refresh
from replay.deals import consistent_deals as consistent_deals
from replay.deals import determinize as determinize
from replay.deals import knowledge
from replay.engine import HandReplay
from replay.legal import follow_spec
from replay.marks import BID_MARKS as BID_MARKS
from replay.marks import LEVELS as LEVELS
from replay.marks import MARKS as MARKS
from replay.marks import BidDecision as BidDecision
from replay.marks import Budget as Budget
from replay.marks import Decision as Decision
from replay.marks import DeclareDecision as DeclareDecision
from replay.marks import HandReview as HandReview
from replay.marks import accuracy as accuracy
from replay.marks import accuracy_interval as accuracy_interval
from replay.marks import accuracy_noise as accuracy_noise
from replay.marks import budget_at as budget_at
from replay.marks import interval_of as interval_of
from replay.marks import mark_for as mark_for
from replay.marks import point_scale as point_scale
from replay.marks import thresholds as thresholds
from replay.order import TRUMP as TRUMP_CLASS
from replay.race import _judge as _judge
from replay.race import _paired
from replay.rollouts import Ends, enumerated_deals, exact_values, most_held
from replay.rollouts import continuations as continuations
from replay.rollouts import play_out as play_out
from replay.rollouts import play_value as play_value
from replay.rollouts import rollout_agents as rollout_agents
from replay.rollouts import rollout_samples as rollout_samples
from replay.rollouts import rollout_values as rollout_values
from replay.search import apply_play as apply_play
from replay.search import brute_force as brute_force
from replay.search import choices as choices
from replay.search import clone as clone
from replay.search import defends as defends
from replay.search import final_points as final_points
from replay.search import merge_touching as merge_touching
from replay.search import solve as solve
from replay.search import to_play as to_play

DEFAULT_BUDGET = Budget()

# -- a hand ----------------------------------------------------------------------------------------

def review_hand(hand: Hand, ruleset: Any, *, budget: Budget = DEFAULT_BUDGET,
                context: Any = None) -> HandReview:
    """Review every decision of a recorded hand (replayed with ``ruleset``)."""
    out = HandReview(hand.match, hand.number)
    state = HandReplay(ruleset, hand, context=copy.deepcopy(context) if context else None)
    events: list[Event] = list(hand.events)
    declared: list[Declare] = []
    missed = not budget.declarations  # True once the missed declarations are reviewed
    for ev in events:
        if not missed and not isinstance(ev, (HandStart, Deal, Declare)):
            missed = True  # the deal and its declarations are over
            if not state.log.items:
                out.declarations.extend(_missed_declarations(state, declared, budget))
        if isinstance(ev, Declare):
            if budget.declarations and not state.log.items:
                from replay.declarations import decide_declare

                # its own draws: the plays' review is the same with or without it
                made = decide_declare(state, ev, declared, budget, random.Random(
                    f"{hand.match}:{hand.number}:{budget.seed}:declare:{len(declared)}"))
                if made is not None:
                    out.declarations.append(made)
            declared.append(ev)
        if isinstance(ev, Play) and state.log.items and out.skipped is None:
            out.skipped = (f"stops at the first violation ({state.log.items[0].rule}): the "
                           "plays after it are not reviewed")
        if isinstance(ev, (Play, KittyBury, Bid, Pass)):
            found = review_decision(state, ev, budget=budget)
            if isinstance(found, BidDecision):
                out.bids.append(found)
            elif found is not None:
                out.decisions.append(found)
        state.apply(ev)
    out.scale = point_scale(state)
    return out


def review_decision(state: HandReplay, event: Play | KittyBury | Bid | Pass, *,
                    budget: Budget = DEFAULT_BUDGET, rng: random.Random | None = None
                    ) -> Decision | BidDecision | None:
    """One decision valued as :func:`review_hand` values it: ``event`` (a lead or follow, the
    kitty burial, or a bid or pass of an auction) against its alternatives, ``state`` the hand
    replayed up to just before it (left as it was). ``None`` where there was nothing to decide
    or the budget leaves it out (a forced play, a play or bid after the hand's first violation,
    the burial with ``budget.bury`` off). ``rng``: the draws (default: seeded by the hand, the
    event's place and ``budget.seed``, so the same call gives the same answer). Declarations are reviewed
    with their hand (they are weighed against the ones never made): :func:`review_hand`."""
    if not isinstance(event, (Play, KittyBury, Bid, Pass)):
        raise TypeError(f"review_decision reviews plays, burials and bids, not {event!r}")
    ev = event
    if rng is None:  # each decision its own draws: its review is the same alone or in its hand
        hand = state.hand
        rng = random.Random(f"{hand.match}:{hand.number}:{budget.seed}:{ev.seq}:{ev.seat}")
    if isinstance(ev, Play):
        if state.order is not None and not state.finished and not state.log.items \
                and to_play(state) == ev.seat and state.pending_forced is None:
            return _decide(state, ev, budget, rng)
        return None
    if isinstance(ev, KittyBury):
        return _decide_bury(state, ev, budget, rng) if budget.bury else None
    if budget.bids and state.rules.has_auction and not state.log.items:
        return _decide_bid(state, ev, budget, rng)
    return None


def _missed_declarations(state: HandReplay, declared: list[Declare], budget: Budget
                         ) -> list[DeclareDecision]:
    """Each seat's declaration never made (:func:`replay.declarations.decide_missed`)."""
    from replay.declarations import decide_missed

    hand = state.hand
    found = []
    for seat in range(state.rules.players):
        missed = decide_missed(state, seat, declared, budget, random.Random(
            f"{hand.match}:{hand.number}:{budget.seed}:missed:{seat}"))
        if missed is not None:
            found.append(missed)
    return found


def _decide(state: HandReplay, ev: Play, budget: Budget, rng: random.Random
            ) -> Decision | None:
    order = state.order
    assert order is not None
    seat = ev.seat
    try:
        made = sorted((Card.parse(t) for t in ev.cards), key=order.sort_key)
    except ValueError:
        return None
    made_ints = [int(c) for c in made]
    same = equivalence(state, seat)  # one reading of what the seat could know, used twice
    options, grouped = decision_choices(state, seat, made_ints, same)
    lead = state.trick is None or not state.trick.plays
    spec = None if lead else follow_spec(state, seat)
    if made_ints not in options:
        if lead and len({order.klass[c] for c in made_ints}) != 1:
            return None  # an illegal lead: the validator's business, not a decision
        if spec is not None and not spec.contains(made_ints):
            return None  # an illegal follow: likewise
        options.append(made_ints)  # a throw that may fail, or a follow outside the groups
    if len(options) <= 1:
        return None  # forced: nothing to decide
    considered = len(options)
    # Deterministic order (the same alternatives whatever the seed): the play made, what a
    # good player would likely play from this seat's view (the heuristic agent's choice, its
    # draws fixed by the place in the hand, and the cheapest follow), then the rest.
    trick_no = state.tricks_before + len(state.tricks) + 1
    place = f"{state.hand.match}:{state.hand.number}:{trick_no}:{seat}"
    agent = HeuristicAgent(random.Random(place))
    view = seat_view(state, seat, order)
    likely = [agent.lead(view)] if spec is None else [
        agent.follow(view, spec), spec.lowest(lambda c: (Card(c).points, order.power[c]))]
    others = [o for o in options if o != made_ints]
    for cards in reversed(likely):
        key = same(cards)
        found = next((o for o in others if same(o) == key), None)
        if found is not None:  # the likely play, or the one that stands for it
            others.remove(found)
            others.insert(0, found)
    if len(others) > budget.max_alternatives - 1:
        grouped = grouped or (f"{budget.max_alternatives} of {considered} valued: the play "
                              "made, the likely plays, then in card order")
    alternatives = [made_ints, *others[:budget.max_alternatives - 1]]
    defender = defends(state, seat)
    scale = point_scale(state)
    exact_cards = budget.exact_at(scale)
    deals = enumerated_deals(state, seat, exact_cards, budget.exact_deals)
    held = most_held(state)
    endgame = budget.endgame_at(held, scale, bool(state.rules.pattern_kinds))

    ends = Ends()  # the settlements of the hands' ends, shared by this decision's deals
    agents = None if budget.rollout == "greedy" else \
        (lambda d: rollout_agents(budget.rollout, d, state.players))

    def evaluate(alts: list[list[int]], samples: int) -> list[list[float]]:
        if deals is not None:  # every consistent deal, solved exactly: one expected row
            return [exact_values(deals, seat, alts)]
        return rollout_samples(state, seat, alts, samples, rng, agents=agents,
                               exact_cards=exact_cards, endgame=endgame, ends=ends)

    # the race's deals cost a search each (solved whole, or their last tricks searched deep)
    decision = _judge(evaluate, alternatives, defender, budget, scale, deals is not None,
                      trick=trick_no, seat=seat, kind="lead" if lead else "follow",
                      solved=held <= exact_cards or endgame > budget.endgame)
    decision.considered, decision.grouped = considered, grouped
    if deals is not None:
        decision.deals = len(deals)
    best = [CARD_INDEX[t] for t in decision.best]
    decision.lines = continuations(state, seat, [made_ints, best], random.Random(place))
    return decision


def _decide_bury(state: HandReplay, ev: KittyBury, budget: Budget, rng: random.Random
                 ) -> Decision | None:
    """The kitty burial (扣底) as a decision: the cards buried against the heuristic agent's
    burial, the cheapest one (lowest non-trump, non-point cards) and the burial made with one
    card swapped, each valued by playing the whole hand out from it."""
    seat = ev.seat
    if state.declarer != seat or not state.trump_known or state.log.items \
            or UNKNOWN in ev.cards or state.hidden[seat]:
        return None
    base = clone(state)
    if not base.start_play() or base.order is None:
        return None
    order = base.order
    size = state.rules.kitty_size()
    made = sorted((CARD_INDEX[t] for t in ev.cards), key=order.sort_key)
    held = base.held[seat]
    if len(made) != size or any(made.count(c) > held[c] for c in set(made)):
        return None
    cards = sorted((c for c in range(54) for _ in range(held[c])), key=order.sort_key)
    agent = HeuristicAgent(random.Random(f"{state.hand.match}:{state.hand.number}:bury"))
    cheapest = sorted(cards, key=lambda c: (order.klass[c] == TRUMP_CLASS, Card(c).points,
                                            order.power[c]))[:size]
    options = [made, agent.bury(seat_view(base, seat, order), size), cheapest]
    # one-card swaps, deterministic: each buried point card or trump kept back for the
    # cheapest card not buried, and the cheapest buried card for each point card kept
    rest = list(cards)
    for c in made:
        rest.remove(c)

    def cost(c: int) -> tuple[Any, ...]:
        return (order.klass[c] == TRUMP_CLASS, Card(c).points, order.power[c])

    spare = sorted(set(rest), key=cost)
    for out in sorted(set(made), key=cost, reverse=True):
        if spare and cost(spare[0]) < cost(out):
            swapped = list(made)
            swapped[swapped.index(out)] = spare[0]
            options.append(swapped)
    low = min(made, key=cost)
    for keep in sorted({c for c in rest if Card(c).points}, key=cost, reverse=True)[:4]:
        swapped = list(made)
        swapped[swapped.index(low)] = keep
        options.append(swapped)
    alternatives: list[list[int]] = []
    for option in options:
        key = sorted(option, key=order.sort_key)
        if key not in alternatives:
            alternatives.append(key)
    alternatives = alternatives[:budget.max_alternatives]
    if len(alternatives) <= 1:
        return None

    known = knowledge(base, seat)  # what every deal of this burial respects

    def evaluate(alts: list[list[int]], samples: int) -> list[list[float]]:
        rows = []
        for _ in range(samples):
            world = determinize(base, seat, rng, known)
            draw = rng.randrange(1 << 30)
            row = []
            for buried in alts:
                trial = clone(world)
                trial.apply(KittyBury(match=state.hand.match, hand=state.hand.number,
                                      seq=ev.seq, seat=seat,
                                      cards=[CARD_TOKENS[c] for c in buried]))
                row.append(float(play_value(trial, rollout_agents(budget.rollout, draw,
                                                                   state.players),
                                            budget.endgame)))
            rows.append(row)
        return rows

    return _judge(evaluate, alternatives, False, budget, point_scale(base), False, trick=0,
                  seat=seat, kind="bury")


def _decide_bid(state: HandReplay, ev: Bid | Pass, budget: Budget, rng: random.Random
                ) -> BidDecision | None:
    """A bid or a pass (标分) against the points the seat could hold the defenders to as
    declarer: deals of the cards it could not see (the other holdings and the kitty), each
    played out with the seat as declarer (naming trump and burying as the simulator's agent
    does, the play by the rollout player) and, when someone holds the high bid, once more with
    that bidder declaring at its contract (what passing leads to if nobody bids on). Each legal
    bid, and the pass, is valued by the seat's settlement in 档."""
    rules = state.rules
    seat = ev.seat
    if not 0 <= seat < rules.players:
        return None  # no such seat: the validator's business
    made = ev.points if isinstance(ev, Bid) else None
    if (made is not None and rules.check_bid(made, state.contract) is not None) \
            or state.hidden[seat] or state.hand.header is None:
        return None
    top = (state.contract - 5) if state.contract is not None else 80
    bids: list[int | None] = [b for b in range(top, 0, -5)
                              if rules.check_bid(b, state.contract) is None]
    holder = state.high_bidder if state.high_bidder != seat else None
    if holder is not None and state.contract is not None:
        bids.append(None)  # the pass: the high bidder declares
    if made not in bids or len(bids) <= 1:
        return None
    rows: list[list[float]] = []
    points: list[int] = []
    for _ in range(4 * budget.samples):
        deal = rng.randrange(1 << 30)  # the same deal for the seat declaring and for the pass
        got = _bid_playout(state, seat, seat, top, random.Random(deal))
        passed = _bid_playout(state, seat, holder, state.contract or 80, random.Random(deal)) \
            if None in bids and holder is not None else None
        if got is None or (None in bids and passed is None):
            return None
        points.append(got)
        row = []
        for b in bids:
            if b is None:
                assert holder is not None and passed is not None
                out = rules.outcome(passed, 0, None, holder, holder, contract=state.contract)
            else:
                out = rules.outcome(got, 0, None, seat, seat, contract=b)
            row.append(float(out.settlement[seat]) if out.settlement else 0.0)
        rows.append(row)
    n = len(rows)
    values = [sum(r[i] for r in rows) / n for i in range(len(bids))]
    made_i = bids.index(made)
    best_i = max(range(len(bids)), key=lambda i: (values[i], i == made_i))
    swing = max(0.0, values[best_i] - values[made_i])
    _, error = _paired([[r[made_i], r[best_i]] for r in rows], 1)
    sure = max(0.0, swing - error) if best_i != made_i else 0.0
    estimate = sum(points) / n
    spread = (sum((p - estimate) ** 2 for p in points) / max(n - 1, 1)) ** 0.5
    mark = next((name for name, t in BID_MARKS if sure >= t), None)
    return BidDecision(seat=seat, bid=made, estimate=estimate, spread=spread, deals=n,
                       alternatives=list(zip(bids, values, strict=True)),
                       value_made=values[made_i], best=bids[best_i],
                       value_best=values[best_i], swing=swing, mark=mark)


def _bid_playout(state: HandReplay, viewer: int, declarer: int, bid: int,
                 rng: random.Random) -> int | None:
    """The defenders' final points of one deal of the cards ``viewer`` could not see (the same
    deal for the same ``rng``), ``declarer`` winning the auction at ``bid``: trump named, the
    kitty taken and buried, the hand played out by the rollout player."""
    from gamelog.model import Deal
    from replay.agents import SeatView
    from replay.engine import RANK_OF, MatchContext
    from replay.simulate import HandBuilder

    rules = state.rules
    held = state.held
    pool = [c for c in range(54) for _ in range(rules.decks - held[viewer][c])]
    rng.shuffle(pool)
    holdings: list[list[int]] = []
    i = 0
    for o in range(rules.players):
        if o == viewer:
            holdings.append([c for c in range(54) for _ in range(held[viewer][c])])
            continue
        need = sum(held[o]) + state.hidden[o]
        holdings.append(pool[i:i + need])
        i += need
    kitty = pool[i:i + rules.kitty_size()]
    if len(kitty) != rules.kitty_size():
        return None
    b = HandBuilder(rules, state.hand.match, state.hand.number, state.hand.header,
                    MatchContext())
    world = b.state
    b.add(HandStart, level="2", first_draw=declarer)
    b.add(Deal, holdings=[[CARD_TOKENS[c] for c in h] for h in holdings],
          kitty=[CARD_TOKENS[c] for c in kitty])
    b.add(Bid, seat=declarer, points=bid)
    world.close_auction()
    agent = HeuristicAgent(random.Random(0))
    view = SeatView(declarer, rules.players, rules, list(world.held[declarer]), None, declarer,
                    None, [], [0] * 54, 0)
    b.add(TrumpChosen, seat=declarer, trump=agent.name_trump(view).value)
    b.add(KittyTake, seat=declarer, cards=[CARD_TOKENS[c] for c in kitty])
    order = rules.order(world.trump, RANK_OF.get(world.level or "2"))
    buried = agent.bury(seat_view(world, declarer, order), rules.kitty_size())
    b.add(KittyBury, seat=declarer, cards=[CARD_TOKENS[c] for c in buried])
    if not world.start_play() or world.order is None:
        return None
    return play_value(world)


def review_hands(hands: Iterable[Hand], *, budget: Budget = DEFAULT_BUDGET,
                 ruleset: str | None = None, jobs: int = 1,
                 keep: Callable[[Hand], bool] | None = None) -> Iterator[HandReview]:
    """Review each hand in order (those ``keep`` accepts; every hand is still replayed for its
    context); a hand starts from its match's context (levels, running scores) as the replay
    of the hands before it left it. With ``jobs`` > 1 the hands are reviewed in that many
    processes, in the same order and with the same results."""
    tasks = _review_tasks(hands, ruleset, keep)
    if jobs <= 1:
        for hand, rules, context, problem in tasks:
            yield _review_one(hand, rules, context, problem, budget)
        return
    from gamelog import files
    from replay.parallel import in_order, terminate_on_sigterm

    def packed() -> Iterator[tuple[Any, ...]]:
        for hand, rules, context, problem in tasks:
            yield (files.pack_hands([hand]), rules, context, problem, budget)

    with terminate_on_sigterm():
        yield from in_order(jobs, _review_packed, packed())


def _review_packed(packed: bytes, rules: Any, context: Any, problem: str | None,
                   budget: Budget) -> HandReview:
    from gamelog import files

    return _review_one(files.unpack_hands(packed)[0], rules, context, problem, budget)


def _review_one(hand: Hand, rules: Any, context: Any, problem: str | None,
                budget: Budget) -> HandReview:
    if problem is not None:
        return HandReview(hand.match, hand.number, skipped=problem)
    return review_hand(hand, rules, budget=budget, context=context)


def positions(hands: Iterable[Hand], *, ruleset: str | None = None,
              keep: Callable[[Hand], bool] | None = None
              ) -> Iterator[tuple[Hand, HandReplay, Event]]:
    """Each event of each hand ``keep`` accepts (every one by default) with its hand replayed
    up to just before it from the match's context, as :func:`review_decision` takes it; hands
    that cannot be replayed are left out. The state is one object a hand, moved on past each
    event once the next is asked for: use it before then."""
    for hand, rules, context, problem in _review_tasks(hands, ruleset, keep):
        if problem is not None:
            continue
        state = HandReplay(rules, hand, context=copy.deepcopy(context) if context else None)
        for ev in hand.events:
            yield hand, state, ev
            state.apply(ev)


def _review_tasks(hands: Iterable[Hand], ruleset: str | None,
                  keep: Callable[[Hand], bool] | None
                  ) -> Iterator[tuple[Hand, Any, Any, str | None]]:
    """(hand, its ruleset, its match context at the start, a reason it cannot be reviewed)."""
    import replay
    from replay.engine import MatchContext

    contexts: OrderedDict[tuple[str | None, str], MatchContext] = OrderedDict()
    before: dict[int, MatchContext] = {}

    def feed() -> Iterator[Hand]:
        for hand in hands:
            ctx = contexts.get((hand.source, hand.match))
            if ctx is None:
                levels = list(hand.header.levels) if hand.header and hand.header.levels \
                    else None
                ctx = MatchContext(levels=levels if hand.number <= 1 else None,
                                   scores=[0, 0] if hand.number <= 1 else None)
            before[id(hand)] = copy.deepcopy(ctx)
            yield hand

    for report in replay.validate_hands(feed(), ruleset=ruleset, contexts=contexts):
        hand = report.record
        assert hand is not None
        context = before.pop(id(hand), None)
        if keep is not None and not keep(hand):
            continue
        try:
            rules = replay.ruleset_for(hand.header, ruleset)
        except replay.RulesetError as exc:
            yield hand, None, None, f"cannot be replayed: {exc}"
            continue
        if not report.tricks:
            yield hand, None, None, "no trick was played"
            continue
        yield hand, rules, context, None
