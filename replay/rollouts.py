"""Determinized rollouts: the unseen cards dealt as the deciding seat could know them
(:func:`replay.deals.determinize`), each alternative played out (or solved exactly once few
cards remain) on the same deals with the same players' draws, so that differences between
alternatives are not noise between samples."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import Any

from replay._native import greedy_core
from replay.agents import Agent, HeuristicAgent, seat_view
from replay.deals import (
    SeatKnowledge,
    consistent_deals,
    deals_drawn,
    dealt_held,
    dealt_world,
    determinize,
    knowledge,
)
from replay.engine import HandReplay
from replay.legal import follow_spec
from replay.playout import greedy_play, greedy_play_out, greedy_value
from replay.search import (
    apply_play,
    clone,
    core_position,
    core_table,
    final_points,
    settler,
    solve,
    to_play,
)

Settle = Callable[[int, int, list[int], bool], int]
"""The defenders' final points of a hand ended with these face points, last-trick winner and
winning cards, led as a pattern or not (what the C core asks of a deal's ends)."""

class Ends:
    """The settlements of one decision's hand ends, shared by its deals and calls (see
    :func:`_settler` for what decides one): ``settled`` by end, ``settlers`` by the kitty's
    points (a deal's settler serves every deal whose kitty holds as many), and ``native``, the
    C core's own table of them, asked without a call into Python (since session 46; until then
    one dict held the first two, and the core called Python at every end of a deal)."""

    __slots__ = ("native", "settled", "settlers")

    def __init__(self) -> None:
        self.settled: dict[tuple, int] = {}
        self.settlers: dict[int, Settle] = {}
        self.native: Any = None

    def core(self, declaring: tuple[bool, ...]) -> tuple[Any, int]:
        """What the C core reads of these ends: its table of them, and the declarer's side as
        bits (``-1``: every end keyed by its seat)."""
        if self.native is None:
            self.native = greedy_core().Table()
        return self.native, sum(1 << s for s, on in enumerate(declaring) if on) if declaring else -1


BATCH = True
"""Play a deal's alternatives out in one call to the C core where it can (each a copy of the
position read once: :func:`_batched`); ``False`` plays each from its own copy of the state, as
before (the tests hold the two to the same values)."""


def play_out(state: HandReplay, agents: list[Agent] | None = None) -> int:
    """Play ``state`` to the end, with ``agents`` (each sees only its seat) or, by default,
    the rollout player :func:`replay.playout.greedy_play` (sees the whole world); the
    defenders' final points."""
    if agents is None:
        return greedy_play_out(state)
    return _play_on(state, agents)


def play_value(state: HandReplay, agents: list[Agent] | None = None, endgame: int = 0,
               table: dict | None = None, settle_end: Settle | None = None) -> int:
    """:func:`play_out`'s value, with ``state`` left mid-hand where the C rollout player
    plays it (:func:`replay.playout.greedy_value`): for callers that discard the state. With
    the rollout player, ``endgame``: the last tricks, from a lead where every seat holds at
    most that many cards, valued by the exact search (``table``: the deal's search table;
    ``settle_end``: its ends' settlement, as :func:`_settler` makes one)."""
    if agents is None:
        return greedy_value(state, endgame, table, settle_end)
    return _play_on(state, agents)


def _play_on(state: HandReplay, agents: list[Agent]) -> int:
    """The hand played to its end by ``agents``, each seeing its own seat."""
    while not state.finished:
        seat = to_play(state)
        assert seat is not None and state.order is not None
        if not any(state.held[seat]):  # a broken world (cannot happen from a legal start)
            return state.defender_points
        view = seat_view(state, seat, state.order)
        if state.trick is None or not state.trick.plays:
            cards = agents[seat].lead(view)
        else:
            cards = agents[seat].follow(view, follow_spec(state, seat))
        apply_play(state, seat, cards)
    return final_points(state)


class _Steady(HeuristicAgent):
    """The rollout player: :class:`HeuristicAgent` whose random draws are fixed by the deal,
    the seat and the place in the hand, so that two playouts that differ in one play make the
    same choices wherever they meet the same place (common random numbers that last)."""

    def __init__(self, deal: int, seat: int) -> None:
        super().__init__(random.Random())
        self.base = deal * 8191 + seat * 131

    def _reseed(self, view: Any) -> None:
        self.rng.seed(self.base + 7 * len(view.tricks)
                      + (len(view.trick.plays) if view.trick is not None else 0))

    def lead(self, view: Any) -> list[int]:
        self._reseed(view)
        return super().lead(view)

    def follow(self, view: Any, spec: Any) -> list[int]:
        self._reseed(view)
        return super().follow(view, spec)


def rollout_agents(kind: str, deal: int, players: int) -> list[Agent] | None:
    """The rollout players of a deal: ``None`` for the greedy player that sees the world
    (:mod:`replay.playout`; ``kind`` "greedy"), or the simulator's heuristic agents with fixed
    draws (``kind`` "heuristic")."""
    if kind == "heuristic":
        return [_Steady(deal, s) for s in range(players)]
    return None


def rollout_values(state: HandReplay, seat: int, alternatives: list[list[int]],
                   samples: int, rng: random.Random,
                   agents: Callable[[int], list[Agent] | None] | None = None,
                   exact_cards: int = 0, endgame: int = 0) -> list[float]:
    """Each alternative's expected defenders' points over ``samples`` determinized deals, the
    same deals and the same agents' draws for every alternative; with every seat holding at most
    ``exact_cards`` cards the deals are solved exactly instead of played out, and a playout's
    last tricks once at most ``endgame`` cards a seat remain (:func:`play_value`)."""
    per_deal = rollout_samples(state, seat, alternatives, samples, rng, agents, exact_cards,
                               endgame)
    return [sum(row[i] for row in per_deal) / samples for i in range(len(alternatives))]


def most_held(state: HandReplay) -> int:
    """The most cards any seat holds (hidden cards counted: a record may hide them)."""
    return max(sum(h) + x for h, x in zip(state.held, state.hidden, strict=True))


def enumerated_deals(state: HandReplay, seat: int, exact_cards: int, limit: int
                     ) -> list[tuple[float, HandReplay]] | None:
    """Every deal ``seat`` could not tell apart, with its weight, once every seat holds at
    most ``exact_cards`` cards and there are at most ``limit`` of them (each then solved:
    :func:`exact_values`); else ``None`` (deals are drawn instead). The review and the
    lookahead agent decide alike."""
    if most_held(state) > exact_cards:
        return None
    return consistent_deals(state, seat, limit)


def exact_values(deals: list[tuple[float, HandReplay]], seat: int,
                 alternatives: list[list[int]]) -> list[float]:
    """Each alternative's expected defenders' points over ``deals`` (``(probability, world)``
    pairs, as :func:`replay.deals.consistent_deals` gives them), each deal solved exactly
    after the play (one search table a deal, shared by its alternatives)."""
    values = [0.0] * len(alternatives)
    for weight, world in deals:
        table: dict = {}
        for i, cards in enumerate(alternatives):
            trial = clone(world)
            apply_play(trial, seat, cards)
            values[i] += weight * solve(trial, table)
    return values


def rollout_samples(state: HandReplay, seat: int, alternatives: list[list[int]],
                    samples: int, rng: random.Random,
                    agents: Callable[[int], list[Agent] | None] | None = None,
                    exact_cards: int = 0, endgame: int = 0, ends: Ends | None = None
                    ) -> list[list[float]]:
    """As :func:`rollout_values`, each deal's values (one row per deal). ``ends``: the
    settlements of hands ended in the C core, kept across the calls of one decision (see
    :func:`_settler`)."""
    # one random stream per seat: a different play now shifts no other seat's later draws,
    # so the alternatives' playouts stay alike wherever the play made does not matter
    if not samples:
        return []
    make = agents or (lambda d: None)
    rows: list[list[float]] = []
    known = knowledge(state, seat)  # the same for every deal
    batched = _batchable(state, alternatives)
    # the alternatives the C core plays out, with the rollout player (no agents): the deal
    # need not be made a state for them; the core's position is the first deal's, each later
    # deal's holdings put in (nothing else in it depends on the deal)
    direct = agents is None and bool(batched) and BATCH
    template: tuple | None = None
    # each deal solved exactly once every seat holds at most exact_cards (as in
    # enumerated_deals, and as the review's race reads it: one test, most_held)
    exact = most_held(state) <= exact_cards
    points = state.points_table
    declaring = tuple(state.team_side(s) for s in range(state.players))
    # a throw, played out below, keeps its ends' settlements with the decision's (as the
    # batched plays do): outside patterns (打万分: its bombs) they depend on nothing else
    ends = None if state.rules.pattern_kinds else ends
    # the deals first (the random stream as when each was played before the next was dealt:
    # nothing else here draws from it)
    dealt = deals_drawn(state, known, rng, samples)

    def one(hands: dict[int, list[int]], kitty: list[int], draw: int,
            found: dict[int, float]) -> list[float]:
        """The deal's row, its alternatives not ``found`` yet played on a world dealt for it
        (the first deal's world gives the core its position)."""
        nonlocal direct, template
        table: dict = {}
        world = dealt_world(state, known, hands, kitty)
        if direct and not exact and template is None:
            template = core_position(world)
            direct = template is not None
        players = make(draw)
        if batched and not found and (exact or players is None):
            found = _batched(world, seat, alternatives, batched, -1 if exact else endgame,
                             table, ends, declaring)
        rest = [k for k in range(len(alternatives)) if k not in found]
        keep = ends if players is None else None
        kitty_points = sum([points[c] for c in world.kitty]) if rest and not exact else 0
        for k in rest:
            # the deal itself serves the last one played here
            trial = world if k == rest[-1] else clone(world)
            apply_play(trial, seat, alternatives[k])
            found[k] = float(solve(trial, table)) if exact else float(play_value(
                trial, players, endgame, table,
                _settler(kitty_points, partial(settler, trial), keep, declaring)))
        return [found[k] for k in range(len(alternatives))]

    for i, ((hands, kitty), draw) in enumerate(dealt):
        if direct and not exact and template is not None:
            # every deal left in one call to the core (since session 46; one call a deal
            # before), a deal with a play handed back finished here
            got = _core_rows(template, state, known, [d for d, _ in dealt[i:]], seat,
                             [alternatives[k] for k in batched], endgame, ends, declaring)
            if got is not None:
                for ((hands, kitty), draw), values in zip(dealt[i:], got, strict=True):
                    found = {k: float(v) for k, v in zip(batched, values, strict=True)
                             if v is not None}
                    rows.append([found[k] for k in range(len(alternatives))]
                                if len(found) == len(alternatives)
                                else one(hands, kitty, draw, found))
                return rows
            direct = False  # past the core's fixed sizes: so is every deal of the decision
        rows.append(one(hands, kitty, draw, {}))
    return rows


def _batchable(state: HandReplay, alternatives: list[list[int]]) -> list[int]:
    """The alternatives the C core may play out from one reading of a deal
    (:func:`_batched`): all of them (a throw that fails on a deal the core hands back, and
    the engine here plays it as failed: until session 46 every throw was played here, on a
    world dealt for it); none where the core is not built, or with patterns (打万分: a
    pattern's bombs are counted here)."""
    if not BATCH or greedy_core() is None or state.rules.pattern_kinds or state.order is None:
        return []
    return list(range(len(alternatives)))


def _batched(world: HandReplay, seat: int, alternatives: list[list[int]], which: list[int],
             endgame: int, table: dict, ends: Ends | None = None,
             declaring: tuple[bool, ...] = ()) -> dict[int, float]:
    """The values of the alternatives ``which`` (by index) on the deal ``world``, each played
    by ``seat`` and then out by the rollout player (the last tricks searched from ``endgame``
    cards a seat; below 0, searched right after the play: :func:`replay.search.solve`'s value)
    in the C core; those it hands back are left out. ``world`` is unchanged."""
    position = core_position(world)
    if position is None:
        return {}
    kitty_points = sum([world.points_table[c] for c in world.kitty])
    values = _core_values(position, seat, [alternatives[k] for k in which], endgame, table,
                          _settler(kitty_points, partial(settler, world), ends, declaring),
                          _kept(ends, declaring, kitty_points))
    if values is None:
        return {}
    return {k: float(v) for k, v in zip(which, values, strict=True) if v is not None}


def _core_rows(template: tuple, state: HandReplay, known: SeatKnowledge,
               dealt: list[tuple[dict[int, list[int]], list[int]]], seat: int,
               plays: list[list[int]], endgame: int, ends: Ends | None,
               declaring: tuple[bool, ...]) -> list | None:
    """The C core's ``play_values_deals`` of ``plays`` on each of the deals ``dealt`` (hands
    and kitty) of ``state``, the core's position ``template`` (another deal's): one row a deal,
    None where it hands a play back; None for all past its fixed sizes."""
    core: Any = greedy_core()
    points = state.points_table
    items = []
    for hands, kitty in dealt:
        kitty_points = sum([points[c] for c in (kitty if known.kitty_unknown else state.kitty)])
        items.append((dealt_held(state, hands),
                      _settler(kitty_points, partial(_dealt_settler, state, known, hands, kitty),
                               ends, declaring), kitty_points))
    native, bits = (None, -1) if ends is None else ends.core(declaring)
    try:
        return core.play_values_deals(*template, seat, plays, endgame, items, native, bits)
    except ValueError:  # past its fixed sizes
        return None


def _kept(ends: Ends | None, declaring: tuple[bool, ...], kitty_points: int) -> tuple:
    """``play_values``' trailing arguments for a deal whose kitty holds ``kitty_points``: the
    decision's ends in the core, the points, the declarer's side as bits (none without
    ``ends``)."""
    if ends is None:
        return ()
    native, bits = ends.core(declaring)
    return native, kitty_points, bits


def _core_values(position: tuple, seat: int, plays: list[list[int]], endgame: int, table: dict,
                 settle: Settle, kept: tuple = ()) -> list | None:
    """The C core's ``play_values`` of ``plays`` from ``position`` (None past its fixed
    sizes; an entry None where it hands the play back); ``kept``: the decision's ends as
    :func:`_kept` gives them (the core calls ``settle`` on an end new to them)."""
    core: Any = greedy_core()
    try:
        return core.play_values(*position, seat, plays, endgame, core_table(table), settle,
                                *kept)
    except ValueError:  # past its fixed sizes
        return None


def _dealt_settler(state: HandReplay, known: SeatKnowledge, hands: dict[int, list[int]],
                   kitty: list[int]) -> Settle:
    """:func:`replay.search.settler` of the deal ``hands`` and ``kitty`` of ``state``."""
    return settler(dealt_world(state, known, hands, kitty))


def _settler(kitty_points: int, make: Callable[[], Settle], ends: Ends | None,
             declaring: tuple[bool, ...] = ()) -> Settle:
    """The settlement of a deal's ends for the C core: ``make()`` (a
    :func:`replay.search.settler` of the deal, made on the first end that needs it), each end's
    settlement kept in ``ends`` (``None``: not kept). A hand's settlement reads, besides the
    end (the face points, who took the last trick with what, whether it was led as a
    pattern), the kitty's points (``kitty_points``) and what every deal of one decision shares
    (the ruleset, the declarer, the levels, the contract, the bombs so far): so within one
    decision the end and the kitty's points are its key. ``declaring``: per seat, whether it
    is on the declarer's side (fixed within a decision): a last trick the declarer's side
    takes gives no kitty award, so such an end's key is its face points alone, whoever took
    it with whatever, and a defender's is keyed by its cards, not by which defender (since
    session 44; ``()``: every end keyed by its seat and cards)."""
    made: list[Settle] = []

    def settle(face: int, winner: int, winning: list[int], special: bool) -> int:
        if not made:
            # a deal's settler serves every deal of the decision with these kitty points (it
            # reads nothing else of the deal): kept in ``ends``, made once for them rather
            # than once a deal (each a world dealt for it)
            found = None if ends is None else ends.settlers.get(kitty_points)
            if found is None:
                found = make()
                if ends is not None:
                    ends.settlers[kitty_points] = found
            made.append(found)
        return made[0](face, winner, winning, special)

    if ends is None:
        return settle
    kept = ends.settled

    def settled(face: int, winner: int, winning: list[int], special: bool) -> int:
        if not declaring:
            key: tuple = (kitty_points, face, winner, tuple(sorted(winning)), special)
        elif declaring[winner]:
            key = (kitty_points, face)
        else:  # a defender's: the kitty's award reads the cards, not which defender
            key = (kitty_points, face, tuple(sorted(winning)), special)
        value = kept.get(key)
        if value is None:
            value = kept[key] = settle(face, winner, winning, special)
        return value

    return settled


def continuations(state: HandReplay, seat: int, plays: list[list[int]], rng: random.Random,
                  tricks: int = 1) -> list[list[dict[str, Any]]]:
    """For each of ``plays``, what may follow it: on one deal of the unseen cards consistent
    with ``seat``'s knowledge (the same deal for every play), the play, the rest of its trick
    and ``tricks`` more, played by the rollout player. Each trick as ``{"trick", "plays":
    [[seat, cards]], "winner", "points"}`` (the trick in progress first, with the plays before
    the decision)."""
    from gamelog.cards import CARD_TOKENS

    world = determinize(state, seat, rng)
    first = len(world.tricks)
    out = []
    for cards in plays:
        trial = clone(world)
        apply_play(trial, seat, cards)
        while not trial.finished and len(trial.tricks) < first + 1 + tricks:
            who = to_play(trial)
            if who is None or not any(trial.held[who]):
                break
            apply_play(trial, who, greedy_play(trial, who))
        done = list(trial.tricks[first:])
        if trial.trick is not None and trial.trick.plays:
            done.append(trial.trick)
        out.append([{"trick": t.number, "winner": t.winner, "points": t.points,
                     "plays": [[p.seat, [CARD_TOKENS[c] for c in p.cards]] for p in t.plays]}
                    for t in done])
    return out
