"""The ruleset interface: everything in which the four seed rule texts differ.

A ruleset is one class. The engine (:mod:`replay.engine`) asks it for the deal sizes, the card
order given trump and level, the point values, the answers a follower owes to each unit type,
whether trumps may be thrown, what a declaration or bid is worth, the kitty multiplier, and the
outcome of a hand. Everything else (turns, holdings, following, throws, trumping, trick winners,
points) is the engine's, shared by all rulesets.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from gamelog.cards import Card, Rank, Suit
from replay.order import CardOrder, standard_order
from replay.units import Shape, Unit


@dataclass(frozen=True)
class Option:
    """A ruleset option with its type, default and allowed values."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class Declaration:
    """What a set of shown cards declares: its step on the ladder and the trump it names."""

    step: int
    trump: Suit | None  # None = no-trump
    label: str
    card: int | None = None
    """The card shown (all copies identical), or None where any mix counts (seed 001's jokers)."""


@dataclass
class Outcome:
    """A hand's outcome as the rules compute it."""

    defender_points: int
    kitty_points: int
    kitty_multiplier: int | None
    level_change: list[int] | None = None
    next_dealer: int | None = None
    settlement: list[int] | None = None
    round_settlement: list[int] | None = None
    notes: list[str] = field(default_factory=list)
    scores: list[int] | None = None
    """Each team's running score after the hand, where the ruleset keeps one (打万分)."""
    kitty_award: int | None = None
    """The points the defenders added for the kitty (抠底), when they won the last trick."""


class RulesetError(ValueError):
    """Unknown ruleset, or options it does not accept."""


_MEMO_KEYS: dict[tuple[Any, ...], int] = {}
"""Each ruleset identity met, to its :attr:`Ruleset.memo_key`."""
_POINTS: dict[int, list[int]] = {}
""":meth:`Ruleset.points_table` by :attr:`Ruleset.memo_key`."""


class Ruleset(abc.ABC):
    """Base of every ruleset; subclasses set the class attributes and implement the abstract
    hooks (the others have defaults that fit the tractor family).

    The hooks are grouped by the phase of the replayer that asks for them (table, deal and
    declarations, auction, kitty, tricks, outcome: :mod:`replay.phases`); a ruleset overrides
    what differs, under the same headings."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str]
    seed: ClassVar[str]
    options: ClassVar[tuple[Option, ...]] = ()
    fixed_teams: ClassVar[bool] = True

    def __init__(self, **values: Any) -> None:
        self.values: dict[str, Any] = {}
        known = {o.name: o for o in self.options}
        for key, value in values.items():
            opt = known.get(key)
            if opt is None:
                continue  # options of other rulesets in a shared header are ignored
            if (opt.type is int and isinstance(value, bool)) or not isinstance(value, opt.type):
                raise RulesetError(
                    f"ruleset {self.name}: option {key} must be {opt.type.__name__}, got {value!r}")
            if opt.choices is not None and value not in opt.choices:
                raise RulesetError(
                    f"ruleset {self.name}: option {key} must be one of {list(opt.choices)}, "
                    f"got {value!r}")
            self.values[key] = value
        for opt in self.options:
            self.values.setdefault(opt.name, opt.default)
        self.players: int = int(self.values.get("players", 4))
        """Seats at the table (an attribute, not a property: the engine reads it often)."""
        self.decks: int = int(self.values.get("decks", 2))
        """Decks in play."""
        self.identity: tuple[Any, ...] = (type(self).__name__,
                                          *sorted((k, repr(v)) for k, v in self.values.items()))
        """Everything that decides this ruleset's answers: its class and every option value
        (memos that depend on the ruleset are keyed on it)."""
        self.memo_key: int = _MEMO_KEYS.setdefault(self.identity, len(_MEMO_KEYS))
        """A small number for :attr:`identity` (the same for equal identities), cheap to hash
        in the engine's memo keys."""

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled (in another process, say): the memo key is this process's own."""
        self.__dict__.update(state)
        self.memo_key = _MEMO_KEYS.setdefault(self.identity, len(_MEMO_KEYS))

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("values")
        if values is not None and name in values:
            return values[name]
        raise AttributeError(name)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"{type(self).__name__}({opts})"

    # -- table ------------------------------------------------------------------------------

    def hand_size(self) -> int:
        return (54 * self.decks - self.kitty_size()) // self.players

    def team_of(self, seat: int, declarer: int | None) -> int:
        """Fixed teams: seat % 2. Rulesets without fixed teams override."""
        return seat % 2

    def declarer_side(self, declarer: int) -> set[int]:
        return {s for s in range(self.players) if s % 2 == declarer % 2}

    # -- deal and declarations (replay.phases.deal) -----------------------------------------

    @abc.abstractmethod
    def declaration(self, cards: list[Card], level: Rank) -> Declaration | str:
        """What ``cards`` declare at ``level``, or why they declare nothing."""

    first_dealer_declares_last: ClassVar[bool] = False
    """In a match's first hand, whose declaration makes the dealer: the last one standing after
    every override (seed 001's 翻主方, ruling 33c) or, by default, the first one made (seed
    002's 「先亮者为庄家」)."""

    def trumps_without_declaration(self, kitty: list[Card], level: str | None
                                   ) -> list[Suit | None] | None:
        """Every trump the rule for a deal without declarations allows (several where it leaves
        the dealer a choice; ``None``: the rule decides nothing). By default the one of
        :meth:`trump_without_declaration`."""
        one = self.trump_without_declaration(kitty)
        return None if one == "undetermined" and not isinstance(one, Suit) else [one]  # type: ignore[list-item]

    def trump_without_declaration(self, kitty: list[Card]) -> Suit | str | None:
        """Trump when nobody declares, from the kitty as dealt; ``"undetermined"`` where the
        seed is silent (the record's ``trump`` event is then accepted as it is)."""
        return "undetermined"

    round_length: int = 0
    """Hands in a round that is settled as a whole (标分: 6), or 0."""

    match_target: ClassVar[int | None] = None
    """The running score that wins the match (打万分: 10,000), where there is one."""

    # -- auction (replay.phases.auction) ----------------------------------------------------

    has_auction: ClassVar[bool] = False
    """Whether the declarer is found by bidding (标分's 叫分) rather than by declarations."""

    def check_bid(self, points: int, lowest: int | None) -> str | None:
        """Why a bid is not allowed after the lowest bid so far (``None``: it is)."""
        return "this ruleset has no auction"

    # -- kitty (replay.phases.kitty) --------------------------------------------------------

    @abc.abstractmethod
    def kitty_size(self) -> int:
        """Cards in the kitty (底牌)."""

    # -- tricks: card order, follows, throws, special leads (replay.phases.tricks) ----------

    def order(self, trump: Suit | None, level: Rank | None) -> CardOrder:
        return standard_order(trump, level)

    def card_points(self, card: Card) -> int:
        return card.points

    def points_table(self) -> list[int]:
        """:meth:`card_points` of every card, by index (computed once; do not mutate)."""
        table: list[int] | None = self.__dict__.get("_points")
        if table is None:  # once per ruleset identity (a match's header makes a new ruleset)
            table = _POINTS.get(self.memo_key)
            if table is None:
                table = _POINTS[self.memo_key] = [self.card_points(Card(c)) for c in range(54)]
            self.__dict__["_points"] = table
        return table

    def max_width(self) -> int:
        return self.decks

    @abc.abstractmethod
    def answers(self, kind: tuple[int, int]) -> list[Shape]:
        """A follower's possible answers to a lead unit of ``kind``, best first; the last is
        always ``()`` (no structure owed)."""

    def follow_rule_id(self, kind: tuple[int, int]) -> str:
        width, length = kind
        if length >= 2:
            return {2: "follow.tractor-required", 3: "follow.titanic-required"}.get(
                width, "follow.chain-required")
        return {2: "follow.pair-required", 3: "follow.triple-required"}.get(
            width, "follow.quad-required")

    trump_throws: ClassVar[bool] = True
    """Whether trumps may be thrown (甩牌) as well as side suits."""

    def special_lead(self, cards: list[int], order: CardOrder) -> str | None:
        """The name of a special pattern these cards make as a lead (打万分's 同花顺 / 发财 /
        四季), or ``None``."""
        return None

    pattern_kinds: ClassVar[tuple[str, ...]] = ()
    """The special patterns a player may lead (打万分's), for agents to look for."""

    def pattern_kind(self, pattern: str) -> str:
        """The kind of a special pattern (what answers it: 同花顺 for 同花顺, ...)."""
        return pattern

    def pattern_cards(self, order: CardOrder) -> tuple[bool, ...] | None:
        """For the C rollout player (``replay/_greedy.c``), which knows 打万分's patterns: the
        cards that may stand in its 同花顺 under ``order``; ``None`` for a ruleset whose
        patterns it does not know (its hands are then played out in Python)."""
        return None

    def holds_pattern(self, kind: str, held: list[int], order: CardOrder, size: int
                      ) -> list[int] | None:
        """Cards of ``held`` (copies by card) making a special pattern of ``kind``, or
        ``None``."""
        return None

    def pattern_strength(self, pattern: str, cards: list[int], order: CardOrder
                         ) -> tuple[int, int] | None:
        """How strongly ``cards`` compete in a trick led with a special pattern: only the same
        kind of pattern can win (``None`` otherwise); higher wins, ties go to the first."""
        return None

    has_other_leaders: ClassVar[bool] = False
    """Whether :meth:`other_leaders` is overridden (set for each subclass): the replayer
    skips the call per trick where it is not."""

    other_leaders_card: ClassVar[int] = -1
    """Where :meth:`other_leaders` is overridden: the card (index) without whose win it always
    answers ``[]`` (打万分's 救星), so that the C core may judge every other trick; -1: not
    known (the tricks of such a ruleset then stay with Python)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.has_other_leaders = cls.other_leaders is not Ruleset.other_leaders

    def other_leaders(self, plays: list[tuple[int, list[int]]], winner: int, order: CardOrder
                      ) -> list[int]:
        """Seats besides ``winner`` that may lead the next trick (and be recorded as the
        trick's winner), where the rules leave it open (打万分's 救星, ruling 12)."""
        return []

    # -- outcome (replay.phases.outcome) ----------------------------------------------------

    allows_surrender: ClassVar[bool] = False
    """Whether the declarer may give up before the first lead (标分's 投降)."""

    def surrender_outcome(self, declarer: int, contract: int | None) -> Outcome | None:
        """The outcome of a surrender, where the ruleset allows one (``None``: not checked)."""
        return None

    @abc.abstractmethod
    def kitty_multiplier(self, winning: list[Unit]) -> int:
        """The multiplier of the kitty's points when the defenders win the last trick with
        ``winning`` (its units)."""

    def kitty_award(self, kitty_points: int, winning: list[Unit], trump: bool,
                    pattern: str = "") -> tuple[int, int | None]:
        """The points the defenders add for the kitty when they win the last trick with
        ``winning`` (its units; ``trump``: a trump play; ``pattern``: the special pattern it
        makes, if any), and the multiplier to record (``None`` where the award is not a
        multiple). By default the kitty's points times :meth:`kitty_multiplier`."""
        multiplier = self.kitty_multiplier(winning)
        return kitty_points * multiplier, multiplier

    @abc.abstractmethod
    def outcome(self, defender_points: int, kitty_points: int, multiplier: int | None,
                dealer: int, declarer: int, *, contract: int | None = None,
                bombs: tuple[int, ...] = (), face: int | None = None,
                level: str | None = None, totals: list[int] | None = None) -> Outcome:
        """The hand's outcome from the defenders' points (with the kitty award); ``face`` is
        their points from the tricks alone, ``level`` the rank played (``"NT"`` past A)."""

    def round_settlement(self, declarers: list[int]) -> list[int] | None:
        """Settlement of a round closed after these hands' declarers (``None``: no rounds)."""
        return None

    zero_sum_settlement: ClassVar[bool] = True
    """Whether a hand's settlement sums to zero (标分's 档); 打万分's scores do not."""

    levels_past_ace: ClassVar[bool] = False
    """Whether levels go on past A to no-trump (打万分)."""

    def point_thresholds(self) -> list[tuple[int, str]]:
        """Defenders' point totals where the outcome changes, with a short label (for charts)."""
        return []

def team_outcome(defender_points: int, kitty_points: int, multiplier: int | None, dealer: int,
                 declarer: int, up: int, declarer_side: bool | None) -> Outcome:
    """A fixed-team outcome: ``up`` levels to the declarer side (``True``), to the defenders
    (``False``) or to nobody (``None``). The dealer's partner deals next when the declarer side
    goes up (seed 002 「庄家升级时，下一副牌由其对家当庄家」), otherwise the dealer's next seat
    (「闲家上台时，下一副牌由此副牌的庄家的下家当庄家」; rulings 39, 50)."""
    team = declarer % 2
    change = [0, 0]
    if declarer_side:
        change[team] = up
        nxt = (dealer + 2) % 4
    else:
        if declarer_side is False:
            change[1 - team] = up
        nxt = (dealer + 1) % 4
    return Outcome(defender_points, kitty_points, multiplier, change, nxt)


REGISTRY: dict[str, type[Ruleset]] = {}


def register(cls: type[Ruleset]) -> type[Ruleset]:
    for key in (cls.name, *cls.aliases):
        REGISTRY[key.lower()] = cls
    return cls


def get_ruleset(name: str, **options: Any) -> Ruleset:
    """The ruleset called ``name`` (or one of its aliases), configured with ``options``."""
    return ruleset_class(name)(**options)


def ruleset_class(name: str) -> type[Ruleset]:
    """The ruleset class called ``name`` or one of its aliases; a :class:`RulesetError` with
    a "did you mean" where a known name is close."""
    cls = REGISTRY.get(str(name).lower())
    if cls is None:
        import difflib

        known = ", ".join(sorted({c.name for c in REGISTRY.values()}))
        near = difflib.get_close_matches(str(name).lower(), list(REGISTRY), n=1, cutoff=0.6)
        hint = f"; did you mean {REGISTRY[near[0]].name!r}?" if near else ""
        raise RulesetError(f"unknown ruleset {name!r}{hint} (known: {known})")
    return cls


def all_rulesets() -> list[type[Ruleset]]:
    return sorted({c for c in REGISTRY.values()}, key=lambda c: c.name)


def chain_answers(width: int, length: int, key: Callable[[Shape], Any] | None = None) -> list[Shape]:
    """Answers made of chains of ``width`` (lengths 1..``length``, total ranks at most
    ``length``), best first: longer chains before shorter, then more of them."""
    out: list[Shape] = []

    def parts(remaining: int, largest: int, acc: list[int]) -> None:
        if acc:
            out.append(tuple((width, n) for n in acc))
        for n in range(min(largest, remaining), 0, -1):
            parts(remaining - n, n, [*acc, n])

    parts(length, length, [])
    out.sort(key=key or (lambda s: s), reverse=True)
    out.append(())
    return out
