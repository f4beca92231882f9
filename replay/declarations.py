"""The review of a trump declaration (亮主 / 反主): each declaration a record shows, against
the others the seat could make at that moment and against declaring nothing yet.

What the seat knew when it declared: the cards it had drawn (the deal's order and the
declaration's ``drawn`` count say which), the declarations shown before (the cards shown are in
their seats' hands), the levels. Every other card is unseen: each deal of this review draws the
seat's cards still to come, the other hands (around the cards they showed) and the kitty at
random. On a deal, each alternative is played to the end of the hand: the declarations shown
before it as recorded, the alternative, then every seat's later declarations by the simulator's
agent (:func:`replay.simulate._declarations`, the seat's own included: "not yet" may become a
declaration a card later), trump by the kitty where nobody declared, the kitty taken and buried
by the agent, the play by the rollout player. An alternative's value on a deal is the seat's
team's levels gained less the other team's (a hand nobody declares in is dealt again: 0); each
alternative meets the same deals, and the swing is what the declaration made gave away against
the best, in levels, less ``z`` standard errors of the paired difference.
"""

from __future__ import annotations

import random
from typing import Any

from gamelog.cards import CARD_BY_TOKEN, CARD_TOKENS, UNKNOWN, Card, Rank, full_deck
from gamelog.model import Deal, Declare, HandStart, KittyBury, KittyTake
from replay.agents import Agent, HeuristicAgent, seat_view
from replay.engine import RANK_OF, HandReplay, MatchContext
from replay.marks import DECLARE_MARKS, Budget, DeclareDecision
from replay.phases.deal import current_level

NOT_YET = None
"""The alternative of declaring nothing at that moment."""


def decide_declare(state: HandReplay, ev: Declare, before: list[Declare], budget: Budget,
                   rng: random.Random) -> DeclareDecision | None:
    """The declaration ``ev`` (``before``: the hand's declarations before it) against the
    others the seat could make then and against none yet; ``None`` when this review cannot
    value it (an auction game, cards hidden in the deal, a declaration the seat could not make
    then: the validator's business)."""
    from replay.simulate import declaration_options

    setting = _setting(state, ev.seat)
    if setting is None:
        return None
    _, total, level = setting
    drawn = total if ev.drawn is None else ev.drawn
    if not 0 < drawn <= total:
        return None
    seat = ev.seat
    known = _known(state, seat, drawn)
    held = _counts(known)
    made = sorted(int(CARD_BY_TOKEN[t]) for t in ev.cards)
    options = [sorted(cards) for cards, _ in
               declaration_options(state.rules, held, level, state.declaration, seat)]
    if made not in options:
        return None  # not a declaration it could make: the validator's business
    return _compare(state, seat, drawn, known, [made, *[o for o in options if o != made],
                                                NOT_YET], before, budget, rng)


def decide_missed(state: HandReplay, seat: int, declared: list[Declare], budget: Budget,
                  rng: random.Random) -> DeclareDecision | None:
    """A declaration ``seat`` could have made and never did (``declared``: the hand's
    declarations, the deal over): its last chance, right after it drew its last card, knowing
    its whole hand, against every declaration it could make then that ranks above the one
    standing. ``None`` when there was nothing to decide (no such declaration, or its own
    declaration stands, or it declared at or after that moment) or this review cannot value it
    (as :func:`decide_declare`)."""
    from replay.simulate import declaration_options

    setting = _setting(state, seat)
    if setting is None:
        return None
    size, total, level = setting
    rules = state.rules
    moment = (size - 1) * rules.players + (seat - state.first_draw) % rules.players + 1
    moment = min(moment, total)

    def dealt(d: Declare) -> int:
        return total if d.drawn is None else d.drawn

    if any(d.seat == seat and dealt(d) >= moment for d in declared):
        return None  # it did declare then or later
    before = [d for d in declared if dealt(d) <= moment]
    current = None
    for d in before:  # the standing declaration at that moment: the last (each overrode the
        decl = rules.declaration([Card.parse(t) for t in d.cards], level)  # one before it)
        if not isinstance(decl, str):
            current = (d.seat, decl)
    if current is not None and current[0] == seat:
        return None  # its own declaration stands
    known = _known(state, seat, moment)
    options = [sorted(cards) for cards, _ in
               declaration_options(rules, _counts(known), level, current, seat)]
    if not options:
        return None
    return _compare(state, seat, moment, known, [NOT_YET, *options], before, budget, rng)


def _setting(state: HandReplay, seat: int) -> tuple[int, int, Rank] | None:
    """``(cards a seat, cards dealt in all, the level's rank)`` of a hand whose declarations
    this review can value: fixed teams, no auction, every card of the deal and kitty shown."""
    rules = state.rules
    if rules.has_auction or not rules.fixed_teams or state.drawn is None \
            or state.hand.header is None or not 0 <= seat < rules.players:
        return None
    size = len(state.drawn[0])
    if any(len(h) != size for h in state.drawn):
        return None
    if any(t == UNKNOWN for h in state.drawn for t in h) or not state.dealt_kitty \
            or UNKNOWN in state.dealt_kitty:
        return None  # hidden cards: the deal cannot be redrawn around them
    level = RANK_OF.get(current_level(state))
    if level is None:
        return None
    return size, size * rules.players, level


def _known(state: HandReplay, seat: int, drawn: int) -> list[int]:
    """The cards ``seat`` had drawn once ``drawn`` cards were dealt, in the order drawn."""
    assert state.drawn is not None
    seen = _drawn_by(seat, drawn, state.first_draw, state.rules.players)
    return [int(CARD_BY_TOKEN[t]) for t in state.drawn[seat][:seen]]


def _counts(cards: list[int]) -> list[int]:
    held = [0] * 54
    for c in cards:
        held[c] += 1
    return held


def _compare(state: HandReplay, seat: int, drawn: int, known: list[int],
             alternatives: list[list[int] | None], before: list[Declare], budget: Budget,
             rng: random.Random) -> DeclareDecision | None:
    """The alternatives (the choice made first) played out on the same deals of what the seat
    had not seen; the swing of the choice made against the best."""
    rules = state.rules
    assert state.drawn is not None  # _setting asks for the deal
    size = len(state.drawn[0])
    total = size * rules.players
    shown = _shown(before, rules.players)
    prior = [(d.seat, sorted(int(CARD_BY_TOKEN[t]) for t in d.cards),
              total if d.drawn is None else d.drawn) for d in before]
    rows: list[list[float]] = []
    for _ in range(4 * budget.samples):
        deal = _redeal(known, seat, shown, state.first_draw, size, rules, rng)
        if deal is None:
            return None
        holdings, kitty = deal
        row = []
        for alt in alternatives:
            fixed = [*prior, (seat, alt, drawn)] if alt is not None else prior
            row.append(_play_hand(state, holdings, kitty, fixed, drawn, seat))
        rows.append(row)
    n = len(rows)
    values = [sum(r[i] for r in rows) / n for i in range(len(alternatives))]
    best_i = max(range(len(alternatives)), key=lambda i: (values[i], i == 0, -i))
    estimate = max(0.0, values[best_i] - values[0])
    diffs = [r[best_i] - r[0] for r in rows]  # its own: replay.review imports this module
    mean = sum(diffs) / n
    error = (sum((d - mean) ** 2 for d in diffs) / max(n - 1, 1) / n) ** 0.5
    swing = max(0.0, estimate - budget.z * error) if best_i != 0 else 0.0
    mark = next((name for name, t in DECLARE_MARKS if swing >= t), None)
    tokens = [None if a is None else [CARD_TOKENS[c] for c in a] for a in alternatives]
    return DeclareDecision(seat=seat, drawn=drawn, made=tokens[0],
                           alternatives=list(zip(tokens, values, strict=True)),
                           value_made=values[0], best=tokens[best_i],
                           value_best=values[best_i], estimate=estimate, error=error,
                           swing=swing, mark=mark, deals=n)


def _drawn_by(seat: int, drawn: int, first: int, players: int) -> int:
    """How many cards ``seat`` had drawn once ``drawn`` cards were dealt in all."""
    offset = (seat - first) % players
    return 0 if drawn <= offset else (drawn - offset - 1) // players + 1


def _shown(before: list[Declare], players: int) -> list[list[int]]:
    """Each seat's cards shown in the declarations before (a count vector: the most copies of a
    card it showed at once)."""
    shown = [[0] * 54 for _ in range(players)]
    for d in before:
        if not 0 <= d.seat < players:
            continue
        counts = [0] * 54
        for t in d.cards:
            counts[int(CARD_BY_TOKEN[t])] += 1
        for c in range(54):
            shown[d.seat][c] = max(shown[d.seat][c], counts[c])
    return shown


def _redeal(known: list[int], seat: int, shown: list[list[int]], first: int, size: int,
            rules: Any, rng: random.Random) -> tuple[list[list[int]], list[int]] | None:
    """A deal consistent with what ``seat`` knew: its first cards as drawn, each other seat's
    shown cards first in its hand (it showed them, so it had drawn them), the rest at random;
    each seat's cards in the order drawn, and the kitty."""
    pool = full_deck(rules.decks)
    counts = [0] * 54
    for card in pool:
        counts[card] += 1
    fixed: list[list[int]] = []
    for o in range(rules.players):
        mine = list(known) if o == seat else \
            [c for c in range(54) for _ in range(shown[o][c])]
        for c in mine:
            counts[c] -= 1
            if counts[c] < 0:
                return None  # the record's cards are not one deck's: the validator's business
        fixed.append(mine)
    rest = [c for c in range(54) for _ in range(counts[c])]
    rng.shuffle(rest)
    holdings = []
    i = 0
    for o in range(rules.players):
        need = size - len(fixed[o])
        holdings.append(fixed[o] + rest[i:i + need])
        i += need
    return holdings, rest[i:]


def _play_hand(state: HandReplay, holdings: list[list[int]], kitty: list[int],
               fixed: list[tuple[int, list[int], int]], start: int, seat: int) -> float:
    """One deal played to the end with these declarations up to ``start`` cards dealt and the
    agents' after: ``seat``'s team's levels gained less the other team's."""
    from replay.rollouts import play_out
    from replay.simulate import HandBuilder, _declarations, trump_from_kitty

    rules = state.rules
    players = rules.players
    context = MatchContext(levels=list(state.levels or ["2", "2"]))
    agents: list[Agent] = [HeuristicAgent(random.Random(s)) for s in range(players)]
    dealer = state.hand.events[0].dealer if isinstance(state.hand.events[0], HandStart) \
        else None
    first = state.first_draw
    decls = _declarations(rules, context, dealer, first, holdings, agents, fixed=fixed,
                          start=start)
    if not decls and dealer is None:
        return 0.0  # nobody declared in a first hand: the cards are dealt again
    assert state.hand.header is not None  # decide_declare asks for one
    b = HandBuilder(rules, state.hand.match, state.hand.number, state.hand.header, context)
    world = b.state
    levels = list(context.levels or ["2", "2"])
    b.add(HandStart, dealer=dealer, declarer=dealer, levels=levels, first_draw=first,
          level=levels[dealer % 2] if dealer is not None else None)
    b.add(Deal, holdings=[[CARD_TOKENS[c] for c in h] for h in holdings],
          kitty=[CARD_TOKENS[c] for c in kitty])
    for s, cards, drawn in decls:
        b.add(Declare, seat=s, cards=[CARD_TOKENS[c] for c in cards], drawn=drawn)
    if not decls:
        trump_from_kitty(b, rules, kitty, levels[dealer % 2] if dealer is not None else "2")
    declarer = world.declarer
    if declarer is None or world.log.items:
        return 0.0
    b.add(KittyTake, seat=declarer, cards=[CARD_TOKENS[c] for c in kitty])
    order = rules.order(world.trump, RANK_OF.get(world.level or current_level(world)))
    buried = agents[declarer].bury(seat_view(world, declarer, order), rules.kitty_size())
    b.add(KittyBury, seat=declarer, cards=[CARD_TOKENS[c] for c in buried])
    if not world.start_play() or world.order is None:
        return 0.0
    play_out(world)
    out = world.outcome
    if out is None or out.level_change is None:
        return 0.0
    mine = rules.team_of(seat, declarer)
    return float(out.level_change[mine] - out.level_change[1 - mine])
