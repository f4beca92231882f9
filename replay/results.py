"""What a replay reports: :class:`HandReport` per hand, and the :class:`MatchContext` carried from
hand to hand. Plain Python classes (this module is never compiled), so reports pickle and
analyzers can build on them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gamelog.model import Hand
from gamelog.reader import RecordWarning
from replay.rulesets.base import Outcome
from replay.violations import Notice, Violation

if TYPE_CHECKING:
    from replay.trick import Trick


@dataclass
class HandReport:
    """Everything the replay found: tricks, outcome, violations, notices."""

    match: str
    hand: int
    ruleset: str
    tricks: list[Trick] = field(default_factory=list)
    outcome: Outcome | None = None
    violations: list[Violation] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    record_issues: list = field(default_factory=list)
    dealer: int | None = None
    declarer: int | None = None
    trump: str | None = None
    level: str | None = None
    complete: bool = False
    declarer_side: list[int] = field(default_factory=list)
    contract: int | None = None
    """The winning bid (标分)."""
    bids: list[tuple[int, int | None]] = field(default_factory=list)
    """The auction: (seat, points) for a bid, (seat, None) for a pass."""
    surrendered: bool = False
    round_length: int = 0
    record: Hand | None = None
    """The hand replayed (for analyzers: holdings, kitty, seats)."""

    @property
    def ok(self) -> bool:
        """No violation and no record error (a warning, e.g. an event of a newer minor
        version skipped, is not a problem)."""
        return not self.violations and not any(
            not isinstance(i, RecordWarning) for i in self.record_issues)


@dataclass
class MatchContext:
    """What carries from hand to hand: each team's level and who deals next."""

    levels: list[str] | None = None
    next_dealer: int | None = None
    accepted_levels: list[list[str]] = field(default_factory=list)
    accepted_dealers: list[int] = field(default_factory=list)
    round_declarers: list[list[int]] = field(default_factory=list)
    """Declarers of the round so far (标分's rounds of six hands): for each hand the seats
    accepted as its declarer (the computed one, and the recorded one after a violation)."""
    scores: list[int] | None = None
    """Each team's running score where a ruleset keeps one (打万分's race to 10,000); ``None``
    when not known (a match met after its first hand)."""
