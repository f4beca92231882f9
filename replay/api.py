"""The rules as functions of a position: checking a play needs no whole record.

A :class:`Position` is a trick in progress: every seat's holding, the trump and level, the
ruleset (with its options), who leads, and the plays made so far. The functions answer what a
table or a bot asks: the order of the cards (:class:`Order`), the units of a play
(:func:`units`), the legal follows (:func:`legal_follows`), whether a follow is legal and why not
(:func:`judge_follow`), whether a throw stands and what is forced if not (:func:`judge_throw`),
and who wins a trick (:func:`trick_winner`). They run the same engine as the validator, so
their verdicts are the validator's. Cards are accepted in every spelling
:func:`gamelog.parse_cards` knows and returned as :class:`gamelog.Card` values (``str()`` is the
canonical token). Examples: docs/api.md.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gamelog import FORMAT_VERSION
from gamelog.cards import Card, Rank, Suit, parse_cards
from gamelog.model import Hand, HandStart, MatchStart, Play, Setup
from replay.engine import HandReplay, play_strength
from replay.order import CLASS_NAMES, TRUMP, CardOrder
from replay.phases import throws
from replay.rulesets import Ruleset, get_ruleset
from replay.units import Unit, decompose
from replay.violations import Violation

CardsLike = str | Iterable[Card | int | str]


def cards_of(cards: CardsLike) -> list[Card]:
    """Cards from text in any spelling (``"♠Q♠Q 10h 大王"``) or an iterable of cards, indices or
    tokens."""
    if isinstance(cards, str):
        return list(parse_cards(cards))
    out: list[Card] = []
    for c in cards:
        if isinstance(c, Card):
            out.append(c)
        elif isinstance(c, int):
            out.append(Card(c))
        else:
            out.extend(parse_cards(c))
    return out


def _ints(cards: CardsLike) -> list[int]:
    return [int(c) for c in cards_of(cards)]


def _ruleset(ruleset: str | Ruleset, options: dict[str, Any]) -> Ruleset:
    return ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset, **options)


def _trump(trump: str | Suit | None) -> Suit | None:
    if trump is None or trump == "NT":
        return None
    return trump if isinstance(trump, Suit) else Suit(trump)


class Order:
    """The order of the cards for one hand: a trump suit (``"S"``, ``"H"``, ``"C"``, ``"D"`` or
    ``"NT"``), a level rank and a ruleset.

    ``rank_of`` is a card's power within its suit class (higher beats lower; equal powers tie,
    the first played winning; powers one apart are adjacent for tractors); a trump outranks
    every off-suit card, so ``key`` (class, power) sorts any cards by strength."""

    def __init__(self, trump: str | Suit | None = "S", level: str | Rank | None = "2",
                 ruleset: str | Ruleset = "tractor", **options: Any) -> None:
        self.rules = _ruleset(ruleset, options)
        lvl = None if level in (None, "NT") else (level if isinstance(level, Rank)
                                                 else Rank.parse(str(level)))
        self.trump = _trump(trump)
        self.level = lvl
        self.card_order: CardOrder = self.rules.order(self.trump, lvl)

    def is_trump(self, card: Card | int | str) -> bool:
        """Whether the card is a trump (主) in this hand."""
        return self.card_order.is_trump(_one(card))

    def suit_of(self, card: Card | int | str) -> str:
        """The card's suit class when following: ``"♠"``, ``"♥"``, ``"♣"``, ``"♦"`` or
        ``"trump"`` (a level card or joker belongs to the trumps only: ruling 5)."""
        return CLASS_NAMES[self.card_order.klass[_one(card)]]

    def rank_of(self, card: Card | int | str) -> int:
        """The card's power within its suit class."""
        return self.card_order.power[_one(card)]

    def key(self, card: Card | int | str) -> tuple[int, int]:
        """(1 for a trump else 0, power): a trump beats any off-suit card."""
        c = _one(card)
        return (1 if self.card_order.klass[c] == TRUMP else 0, self.card_order.power[c])

    def beats(self, card: Card | int | str, led: Card | int | str) -> bool:
        """Whether ``card`` played after ``led`` (a single lead) wins over it."""
        a, b = _one(card), _one(led)
        klass = self.card_order.klass
        if klass[a] == klass[b]:
            return self.card_order.power[a] > self.card_order.power[b]
        return klass[a] == TRUMP

    def tiers(self) -> list[list[Card]]:
        """The trumps from the highest down, grouped by power (cards of one power tie), then
        each off-suit the same way: the ordered tiers of this hand."""
        order = self.card_order
        out: list[list[Card]] = []
        for klass in (TRUMP, 0, 1, 2, 3):
            members = order.members[klass]
            for power in sorted({order.power[c] for c in members}, reverse=True):
                out.append([Card(c) for c in members if order.power[c] == power])
        return out

    def sorted(self, cards: CardsLike) -> list[Card]:
        """Cards in display order: trumps first, high cards first."""
        return self.card_order.sorted(_ints(cards))


def _one(card: Card | int | str) -> int:
    if isinstance(card, (Card, int)):
        return int(card)
    found = parse_cards(card)
    if len(found) != 1:
        raise ValueError(f"{card!r} is not one card")
    return int(found[0])


@dataclass(frozen=True)
class PlayUnit:
    """A unit of a play: ``width`` identical cards at each of ``length`` adjacent ranks."""

    name: str
    width: int
    length: int
    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return f"{self.name} {' '.join(str(c) for c in self.cards)}"


def units(cards: CardsLike, order: Order) -> list[PlayUnit]:
    """The units of a lead (identical cards together; 33344 = 333 + 44), most significant
    first: singles, pairs, triples, tractors (拖拉机), Titanics (连三), quads, 连四."""
    ints = _ints(cards)
    if not ints:
        return []
    return [_unit(u) for u in decompose(ints, order.card_order)]


def _unit(u: Unit) -> PlayUnit:
    return PlayUnit(u.name, u.width, u.length, tuple(Card(c) for c in u.all_cards()))


def is_tractor(cards: CardsLike, order: Order) -> bool:
    """Whether the cards are one tractor: two or more pairs of adjacent rank in one suit
    class (trumps count as one class, across the level gap and the jokers)."""
    ints = _ints(cards)
    classes = {order.card_order.klass[c] for c in ints}
    if len(classes) != 1 or len(ints) < 4:
        return False
    found = decompose(ints, order.card_order)
    return len(found) == 1 and found[0].width == 2 and found[0].length >= 2


def points(cards: CardsLike) -> int:
    """The point value of cards: 5 for a five, 10 for a ten or a king."""
    return sum(c.points for c in cards_of(cards))


@dataclass
class Position:
    """A trick in progress: the holdings before it, the trump and level, who leads, and the
    plays so far (``(seat, cards)``). ``contract`` is 标分's winning bid for an auction game."""

    holdings: list[list[Card]]
    trump: str = "S"
    level: str = "2"
    ruleset: str = "tractor"
    leader: int = 0
    declarer: int = 0
    contract: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    plays: list[tuple[int, list[Card]]] = field(default_factory=list)

    @classmethod
    def of(cls, holdings: Sequence[CardsLike], *, trump: str = "S", level: str = "2",
           ruleset: str = "tractor", leader: int = 0, declarer: int | None = None,
           contract: int | None = None, **options: Any) -> Position:
        """A position from holdings in any spelling, one per seat."""
        return cls([cards_of(h) for h in holdings], trump, level, ruleset, leader,
                   leader if declarer is None else declarer, contract, dict(options))

    @property
    def order(self) -> Order:
        return Order(self.trump, self.level, self.rules())

    def rules(self) -> Ruleset:
        options = {"players": len(self.holdings), **self.options}
        return get_ruleset(self.ruleset, **options)

    def play(self, seat: int, cards: CardsLike) -> Position:
        """The position after ``seat`` plays ``cards`` (not judged: see :func:`judge_follow`)."""
        return Position(self.holdings, self.trump, self.level, self.ruleset, self.leader,
                        self.declarer, self.contract, self.options,
                        [*self.plays, (seat, cards_of(cards))])

    def replay(self) -> HandReplay:
        """The engine's state after the plays so far."""
        rules = self.rules()
        events: list[Any] = [
            HandStart(match="position", hand=1, seq=0, dealer=self.declarer, level=self.level),
            Setup(match="position", hand=1, seq=1,
                  holdings=[[str(c) for c in h] for h in self.holdings], trump=self.trump,
                  level=self.level, declarer=self.declarer, leader=self.leader,
                  contract=self.contract),
        ]
        for seat, cards in self.plays:
            events.append(Play(match="position", hand=1, seq=len(events), seat=seat,
                               cards=[str(c) for c in cards]))
        header = MatchStart(match="position", hand=0, seq=0, version=FORMAT_VERSION,
                            ruleset=rules.name, players=len(self.holdings), decks=rules.decks)
        state = HandReplay(rules, Hand(match="position", number=1, events=events,
                                       header=header))
        for ev in events:
            state.apply(ev)
        state.start_play()
        return state


def judge_follow(position: Position, seat: int, cards: CardsLike) -> Violation | None:
    """The first rule ``seat`` breaks by playing ``cards`` next (out of turn, cards not held, the
    wrong count, a failed follow of suit or structure), or ``None`` when the play is legal."""
    state = position.replay()
    before = len(state.log.items)
    trial = copy.deepcopy(state)
    trial.apply(Play(match="position", hand=1, seq=len(position.plays) + 2, seat=seat,
                     cards=[str(c) for c in cards_of(cards)]))
    found = trial.log.items[before:]
    return found[0] if found else None


def legal_follows(position: Position, seat: int, *, limit: int = 2000) -> list[list[Card]]:
    """Every legal follow for ``seat`` to the trick in progress (as card lists, up to
    ``limit``; identical cards make identical follows, listed once). Where there are more
    candidates than ``limit``, the first ``limit`` legal follows found (the led suit's cards
    tried first), never none."""
    from replay.legal import follow_spec

    state = position.replay()
    if state.trick is None or not state.trick.plays:
        raise ValueError("no trick in progress: the position has no lead to follow")
    spec = follow_spec(state, seat)
    found = spec.enumerate(limit=limit)
    if found is None:
        found = spec.first_follows(limit)
    found = found[:limit]
    return [[Card(c) for c in sorted(f, key=state.order.sort_key)] for f in found]


@dataclass(frozen=True)
class ThrowVerdict:
    """Whether a throw (甩牌) stands; if not, the units another seat beats and the forced play:
    each of ``forced`` is an acceptable forced play (a lowest failing unit; several when they
    tie, ruling 33b)."""

    stands: bool
    units: list[PlayUnit]
    failing: list[tuple[PlayUnit, int, PlayUnit]]
    forced: list[list[Card]]


def judge_throw(position: Position, seat: int, cards: CardsLike) -> ThrowVerdict:
    """Judge ``seat`` leading ``cards`` as a throw: it stands unless another seat (partner
    included: ruling 3) holds, in that suit, a higher unit of the same kind (ruling 1)."""
    state = position.replay()
    ints = _ints(cards)
    order = state.order
    assert order is not None
    klass = {order.klass[c] for c in ints}
    if len(klass) != 1:
        raise ValueError("a throw is of one suit class")
    parts = decompose(ints, order)
    failing, _ = throws.failing_units(state, seat, klass.pop(), parts)
    forced: list[list[Card]] = []
    if failing:
        lowest = min((u.low, u.size) for u, _, _ in failing)
        seen: set[tuple[int, ...]] = set()
        for u, _, _ in failing:
            key = tuple(sorted(u.all_cards()))
            if (u.low, u.size) == lowest and key not in seen:
                seen.add(key)
                forced.append([Card(c) for c in u.all_cards()])
    return ThrowVerdict(not failing, [_unit(u) for u in parts],
                        [(_unit(u), s, _unit(b)) for u, s, b in failing], forced)


def trick_winner(position: Position, plays: Sequence[tuple[int, CardsLike]] | None = None
                 ) -> int:
    """The seat winning the trick made of the position's plays and ``plays`` (complete or not):
    the lead's suit, or a trump play that covers the lead's units (ruling 7); ties go to the
    first played."""
    everything = [*position.plays, *((s, cards_of(c)) for s, c in (plays or []))]
    if not everything:
        raise ValueError("no plays")
    order = position.order.card_order
    lead = [int(c) for c in everything[0][1]]
    kinds = [u.kind for u in decompose(lead, order)]
    lead_class = order.klass[lead[0]]
    best, winner = None, everything[0][0]
    for seat, cards in everything:
        key = play_strength(order, lead_class, kinds, [int(c) for c in cards])
        if key is not None and (best is None or key > best):
            best, winner = key, seat
    return winner


__all__ = ["Order", "PlayUnit", "Position", "ThrowVerdict", "cards_of", "is_tractor",
           "judge_follow", "judge_throw", "legal_follows", "points", "trick_winner", "units"]
