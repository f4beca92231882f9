"""Play whole matches with agents and record them as game records.

Deterministic for a seed on every machine: all randomness comes from ``random.Random`` seeded
per match and hand. The rules are the engine's own: every event the simulator writes is applied
to a :class:`~replay.engine.HandReplay`, whose state gives the legal plays, and the hand's
result is the one the rules compute.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence

from gamelog.cards import Card, full_deck, tokens
from gamelog.model import (
    FORMAT_VERSION,
    Bid,
    Blocker,
    Deal,
    Declare,
    Event,
    Hand,
    HandStart,
    KittyBury,
    KittyTake,
    MatchStart,
    Pass,
    Play,
    Result,
    SeatInfo,
    Surrender,
    ThrowFail,
    TrickEnd,
    TrumpChosen,
)
from replay.agents import Agent, HeuristicAgent, SeatView, seat_view
from replay.engine import LEVEL_ORDER, RANK_OF, HandReplay, MatchContext, advance_levels
from replay.legal import failing_units, follow_spec, forced_unit
from replay.phases import auction
from replay.rulesets.base import Declaration, Ruleset
from replay.units import beats_unit

AgentFactory = Callable[[int, random.Random], Agent]
NAMES = ["Ann", "Bo", "Chen", "Dee"]


def default_agents(seat: int, rng: random.Random) -> Agent:
    """The simulator's players: the heuristic agent, looking ahead in the last tricks
    (:class:`replay.lookahead.LookaheadAgent`)."""
    from replay.lookahead import LookaheadAgent  # it reads the review's machinery

    return LookaheadAgent(rng)


def heuristic_agents(seat: int, rng: random.Random) -> Agent:
    """The heuristic agent alone (no lookahead): fast, for large simulated data sets."""
    return HeuristicAgent(rng)


AGENTS: dict[str, AgentFactory] = {"lookahead": default_agents, "heuristic": heuristic_agents}
"""The simulator's players by name (``shengji simulate --agent``)."""


class HandBuilder:
    """Events of one hand, applied to the replayer as they are made."""

    def __init__(self, rules: Ruleset, match: str, number: int, header: MatchStart,
                 context: MatchContext) -> None:
        self.match, self.number = match, number
        self.events: list[Event] = []
        self.hand = Hand(match=match, number=number, events=self.events, header=header)
        self.state = HandReplay(rules, self.hand, context=context)

    def add(self, kind: type[Event], **kw: object) -> Event:
        ev = kind(match=self.match, hand=self.number, seq=len(self.events), **kw)
        self.events.append(ev)
        self.state.apply(ev)
        return ev


def simulate_match(rules: Ruleset, match: str, seed: int, *, hands: int | None = None,
                   agents: AgentFactory = default_agents, max_hands: int = 60) -> list[Event]:
    """One match: until a team passes A, or ``hands`` hands."""
    rng = random.Random(f"{match}:{seed}")
    header = MatchStart(
        match=match, hand=0, seq=0, version=FORMAT_VERSION, ruleset=rules.name,
        players=rules.players, decks=rules.decks,
        options={k: v for k, v in rules.values.items() if k not in ("players", "decks")},
        seats=[SeatInfo(seat=s, player=f"bot-{s + 1}", name=NAMES[s % 4],
                        team=s % 2 if rules.fixed_teams else None) for s in range(rules.players)],
        levels=None if rules.has_auction else ["2", "2"], source="shengji simulate",
        tags={"seed": str(seed)},
    )
    events: list[Event] = [header]
    context = MatchContext(levels=["2", "2"], scores=[0, 0])
    seat_agents = [agents(s, random.Random(f"{match}:{seed}:agent{s}")) for s in range(rules.players)]
    dealer: int | None = None
    limit = hands if hands is not None else max_hands
    if rules.has_auction:
        limit = hands if hands is not None else 2 * (rules.round_length or 6)
    for number in range(1, limit + 1):
        play = _play_auction_hand if rules.has_auction else _play_hand
        hand_events, declarer = play(rules, match, number, header, context, dealer,
                                     seat_agents, random.Random(rng.random()))
        events.extend(hand_events)
        state_out = hand_events[-1]
        assert isinstance(state_out, Result)
        if rules.has_auction:
            context.round_declarers.append([declarer])
            continue
        levels = context.levels or ["2", "2"]
        change = state_out.level_change or [0, 0]
        ladder = [*LEVEL_ORDER, "NT"] if rules.levels_past_ace else LEVEL_ORDER
        passed = any(ladder.index(lv) + up >= len(ladder)
                     for lv, up in zip(levels, change, strict=False))
        if rules.levels_past_ace and "NT" in levels and state_out.next_dealer is not None \
                and state_out.next_dealer % 2 == declarer % 2 and levels[declarer % 2] == "NT":
            passed = True  # 无主稳庄: the full climb, the race to 10,000 won
        context.levels = advance_levels(levels, change, rules.levels_past_ace)
        context.next_dealer = state_out.next_dealer
        dealer = state_out.next_dealer
        target = rules.match_target
        if target is not None and context.scores is not None and max(context.scores) >= target:
            break  # the race is won (打万分's 10,000)
        if hands is None and passed:
            break
    return events


def _play_hand(rules: Ruleset, match: str, number: int, header: MatchStart,
               context: MatchContext, dealer: int | None, agents: list[Agent],
               rng: random.Random) -> tuple[list[Event], int]:
    players = rules.players
    for _attempt in range(20):
        deck = full_deck(rules.decks)
        rng.shuffle(deck)
        first = dealer if dealer is not None else 0
        size = rules.hand_size()
        holdings = [[] for _ in range(players)]  # type: list[list[int]]
        for i in range(size * players):
            holdings[(first + i) % players].append(deck[i])
        kitty = deck[size * players:]
        decls = _declarations(rules, context, dealer, first, holdings, agents)
        if decls or dealer is not None:
            break
    if dealer is None and not decls:
        dealer = 0  # nobody declared in twenty deals: seat 0 deals, trump from the kitty
    b = HandBuilder(rules, match, number, header, context)
    levels = list(context.levels or ["2", "2"])
    b.add(HandStart, dealer=dealer, declarer=dealer, levels=levels, first_draw=first,
          level=levels[dealer % 2] if dealer is not None else None)
    b.add(Deal, holdings=[tokens(Card(c) for c in h) for h in holdings],
          kitty=tokens(Card(c) for c in kitty))
    for seat, cards, drawn in decls:
        b.add(Declare, seat=seat, cards=tokens(Card(c) for c in cards), drawn=drawn)
    st = b.state
    if not decls:
        trump_from_kitty(b, rules, kitty, levels[dealer % 2] if dealer is not None else "2")
    declarer = st.declarer
    assert declarer is not None
    levels = list(context.levels or ["2", "2"])
    return _play_out(b, rules, kitty, agents, declarer, levels[declarer % 2])


def trump_from_kitty(b: HandBuilder, rules: Ruleset, kitty: Sequence[int], level: str) -> None:
    """Trump when nobody declared: by the ruleset's own rule where it has one (打万分: the
    kitty turned for a level card), else the suit of the kitty's third card (a joker: no
    trump)."""
    own_rule = type(rules).trumps_without_declaration is not Ruleset.trumps_without_declaration
    chosen = (rules.trumps_without_declaration([Card(c) for c in kitty], level)
              if own_rule else None)
    if chosen:
        b.add(TrumpChosen, trump="NT" if chosen[0] is None else chosen[0].value,
              cards=[str(Card(c)) for c in kitty])
    else:
        third = Card(kitty[2])
        b.add(TrumpChosen, trump="NT" if third.is_joker else third.suit.value,  # type: ignore[union-attr]
              cards=[str(third)])


def _play_auction_hand(rules: Ruleset, match: str, number: int, header: MatchStart,
                       context: MatchContext, dealer: int | None, agents: list[Agent],
                       rng: random.Random) -> tuple[list[Event], int]:
    """A hand of an auction game (标分): deal, bid, name trump, kitty, play or surrender."""
    players = rules.players
    deck = full_deck(rules.decks)
    rng.shuffle(deck)
    first = (number - 1) % players  # the opener moves round the table
    size = rules.hand_size()
    holdings: list[list[int]] = [[] for _ in range(players)]
    for i in range(size * players):
        holdings[(first + i) % players].append(deck[i])
    kitty = deck[size * players:]
    b = HandBuilder(rules, match, number, header, context)
    b.add(HandStart, level="2", first_draw=first)
    b.add(Deal, holdings=[tokens(Card(c) for c in h) for h in holdings],
          kitty=tokens(Card(c) for c in kitty))
    st = b.state
    lowest: int | None = None
    active = list(range(players))
    seat = first
    while True:
        view = SeatView(seat, players, rules, list(st.held[seat]), None, None, None, [],
                        [0] * 54, 0)
        points = agents[seat].bid(view, lowest)
        if points is not None and rules.check_bid(points, lowest) is None:
            b.add(Bid, seat=seat, points=points)
            lowest = points
        else:
            b.add(Pass, seat=seat)
            active.remove(seat)
        if not active or (lowest is not None and len(active) == 1 and st.high_bidder in active):
            break
        seat = auction.next_bidder(st)  # the engine's own turn order
        if seat is None:
            break
    st.close_auction()
    declarer = st.declarer
    assert declarer is not None
    view = SeatView(declarer, players, rules, list(st.held[declarer]), None, declarer, None, [],
                    [0] * 54, 0)
    b.add(TrumpChosen, seat=declarer, trump=agents[declarer].name_trump(view).value)
    if agents[declarer].surrender(view, st.contract):
        b.add(Surrender, seat=declarer)
        out = st.outcome
        b.add(Result, settlement=out.settlement if out else None,
              round_settlement=out.round_settlement if out else None)
        return b.events, declarer
    return _play_out(b, rules, kitty, agents, declarer, "2")


def _play_out(b: HandBuilder, rules: Ruleset, kitty: list[int], agents: list[Agent],
              declarer: int, level: str) -> tuple[list[Event], int]:
    """Kitty, every trick and the result, once the declarer and trump are known."""
    st = b.state
    players = rules.players
    b.add(KittyTake, seat=declarer, cards=tokens(Card(c) for c in kitty))
    # the engine fixes the order at the first play; the declarer needs it to bury
    order = rules.order(st.trump, RANK_OF.get(st.level or level))
    view = seat_view(st, declarer, order)
    buried = agents[declarer].bury(view, rules.kitty_size())
    b.add(KittyBury, seat=declarer, cards=tokens(Card(c) for c in buried))
    while True:
        leader = st.leader if st.order is not None else declarer
        view = seat_view(st, leader, order)
        cards = agents[leader].lead(view)
        if st.order is None:
            st.start_play()
        assert st.order is not None
        klass = st.order.klass[cards[0]]
        failing = failing_units(st, leader, cards)
        if failing:
            blockers = []
            for u in failing:
                for other in range(players):
                    if other == leader:
                        continue
                    beat = beats_unit(st.class_holding(other, klass), st.order, u)
                    if beat is not None:
                        blockers.append(Blocker(seat=other,
                                                cards=tokens(Card(c) for c in beat.all_cards())))
                        break
            b.add(ThrowFail, seat=leader, cards=tokens(Card(c) for c in cards), blockers=blockers)
            cards = forced_unit(failing).all_cards()
        b.add(Play, seat=leader, cards=tokens(Card(c) for c in cards))
        for k in range(1, players):
            seat = (leader + k) % players
            spec = follow_spec(st, seat)
            follow = agents[seat].follow(seat_view(st, seat, st.order), spec)
            b.add(Play, seat=seat, cards=tokens(Card(c) for c in follow))
        t = st.tricks[-1]
        b.add(TrickEnd, trick=t.number, winner=t.winner, points=t.points)
        if st.finished:
            break
    out = st.outcome
    assert out is not None
    st.context.scores = out.scores  # the running scores (打万分), carried to the next hand
    b.add(Result, defender_points=out.defender_points, kitty_points=out.kitty_points,
          kitty_multiplier=out.kitty_multiplier, level_change=out.level_change,
          next_dealer=out.next_dealer, settlement=out.settlement,
          round_settlement=out.round_settlement)
    return b.events, declarer


def _declarations(rules: Ruleset, context: MatchContext, dealer: int | None, first: int,
                  holdings: list[list[int]], agents: list[Agent], *,
                  fixed: Sequence[tuple[int, list[int], int]] = (), start: int = 0
                  ) -> list[tuple[int, list[int], int]]:
    """Declarations made while the cards are drawn: (seat, cards, cards dealt so far).

    Each seat's agent may declare after each card it draws (it is asked whenever it has
    something it may declare: :func:`declaration_options`); ``fixed`` declarations (the same
    triples) are made as given, each once its count of cards is dealt, and the agents decide
    only after ``start`` cards (the review replays a record's declarations up to a decision,
    then lets the agents go on)."""
    players = rules.players
    levels = context.levels or ["2", "2"]
    out: list[tuple[int, list[int], int]] = []
    current: tuple[int, Declaration] | None = None
    held = [[0] * 54 for _ in range(players)]
    size = len(holdings[0])
    drawn = 0
    pending = sorted(fixed, key=lambda f: f[2])
    memo: dict[tuple, list[tuple[list[int], Declaration]]] = {}
    for i in range(size):
        for k in range(players):
            seat = (first + k) % players
            card = holdings[seat][i]
            held[seat][card] += 1
            drawn += 1
            while pending and pending[0][2] <= drawn:
                fseat, cards, _ = pending.pop(0)
                level = RANK_OF.get(levels[dealer % 2] if dealer is not None
                                    else levels[fseat % 2])
                decl = rules.declaration([Card(c) for c in cards], level) \
                    if level is not None else "no level"
                if not isinstance(decl, str):
                    current = (fseat, decl)
                out.append((fseat, cards, drawn))
            if drawn <= start:
                continue
            level = RANK_OF.get(levels[dealer % 2] if dealer is not None else levels[seat % 2])
            if level is None:
                continue
            options = declaration_options(rules, held[seat], level, current, seat, memo)
            if not options:
                continue  # nothing to declare: the agent is not asked
            view = SeatView(seat, players, rules, held[seat], None, None, None, [], [0] * 54, 0)
            choice = agents[seat].declare(view, options)
            if choice is not None:
                decl = next(d for c, d in options if c == choice)
                current = (seat, decl)
                out.append((seat, choice, drawn))
    return out


def declaration_options(rules: Ruleset, held: list[int], level: int,
                        current: tuple[int, Declaration] | None, seat: int,
                        memo: dict[tuple, list[tuple[list[int], Declaration]]] | None = None
                        ) -> list[tuple[list[int], Declaration]]:
    """What ``seat`` may declare holding ``held`` (a count vector) at ``level``, after the
    ``current`` declaration (its seat and what it declared): the level cards of a suit (one or
    more) or two or more jokers alike, each a declaration the rules accept that overrides the
    current one (a seat may reinforce its own suit, not change it). ``memo``: the options
    already listed while one deal's cards are drawn (for one ``rules``), keyed by all they
    read: the level, the seat, its level cards and jokers, and the current declaration."""
    level_cards = _level_cards(level)
    if held[52] < 2 and held[53] < 2 and not any(held[c] for c in level_cards):
        return []  # no candidate (_declaration_candidates): most calls, early in the deal
    if memo is None:
        return _declaration_options(rules, held, level, current, seat)
    key = (level, seat, held[52], held[53], *[held[c] for c in level_cards],
           None if current is None else (current[0], current[1].step, current[1].trump))
    found = memo.get(key)
    if found is None:
        found = memo[key] = _declaration_options(rules, held, level, current, seat)
    return [(list(cards), decl) for cards, decl in found]


def _declaration_options(rules: Ruleset, held: list[int], level: int,
                         current: tuple[int, Declaration] | None, seat: int
                         ) -> list[tuple[list[int], Declaration]]:
    options = []
    for cand in _declaration_candidates(held, level):
        decl = rules.declaration([Card(c) for c in cand], level)
        if isinstance(decl, str):
            continue
        if current is not None:
            pseat, pdecl = current
            if decl.step <= pdecl.step or (pseat == seat and pdecl.trump != decl.trump):
                continue
        options.append((cand, decl))
    return options


_LEVEL_CARDS: dict[int, tuple[Card, ...]] = {}


def _level_cards(level: int) -> tuple[Card, ...]:
    """The four suits' cards of ``level`` (♠ ♥ ♣ ♦), made once a level."""
    cards = _LEVEL_CARDS.get(level)
    if cards is None:
        cards = _LEVEL_CARDS[level] = tuple(Card.of(level, suit) for suit in "SHCD")
    return cards


def _declaration_candidates(held: list[int], level) -> Iterator[list[int]]:  # type: ignore[no-untyped-def]
    for card in _level_cards(level):
        for n in range(1, held[card] + 1):
            yield [card] * n
    for joker in (52, 53):
        for n in range(2, held[joker] + 1):
            yield [joker] * n


def simulate(rules: Ruleset, *, matches: int, seed: int, hands: int | None = None,
             agents: AgentFactory = default_agents, prefix: str = "sim",
             progress: Callable[[int], None] | None = None, jobs: int = 1) -> Iterator[Event]:
    """Events of ``matches`` matches, one after another (streaming). Match ``m`` (from 0)
    is named ``{prefix}-{seed}-{m + 1:04d}`` and played from seed ``seed + m`` alone, so with
    ``jobs`` > 1 the matches are played in that many processes and the events are the same,
    in the same order (``agents`` must then be picklable: a module-level function)."""
    tasks = ((rules, f"{prefix}-{seed}-{m + 1:04d}", seed + m, hands, agents)
             for m in range(matches))
    if jobs <= 1:
        played: Iterator[list[Event]] = (_match(*task) for task in tasks)
    else:
        from gamelog.files import unpack_events
        from replay.parallel import in_order, terminate_on_sigterm

        def unpacked() -> Iterator[list[Event]]:
            with terminate_on_sigterm():
                for data in in_order(jobs, _packed_match, tasks):
                    yield unpack_events(data)

        played = unpacked()
    for events in played:
        yield from events
        if progress is not None:
            progress(1)


def _match(rules: Ruleset, match: str, seed: int, hands: int | None,
           agents: AgentFactory) -> list[Event]:
    return simulate_match(rules, match, seed, hands=hands, agents=agents)


def _packed_match(rules: Ruleset, match: str, seed: int, hands: int | None,
                  agents: AgentFactory) -> bytes:
    from gamelog.files import pack_events

    return pack_events(_match(rules, match, seed, hands, agents))
