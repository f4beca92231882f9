"""Violations: what a recorded hand did against the rules, where, and why."""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from gamelog.cards import Card, format_cards
from replay.messages_zh import RULES_ZH


class Violation(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One broken rule.

    ``rule`` is a stable id (``follow.pair-required``); the place is the match, hand, event
    sequence number, trick and seat; ``cards`` the cards involved; ``required`` what the rules
    required instead (``seat 2 held ♠Q♠Q``); ``message`` one English sentence, ``message_zh``
    the same in Chinese where given.
    """

    rule: str
    match: str
    hand: int
    seq: int | None = None
    trick: int | None = None
    seat: int | None = None
    cards: list[str] = []
    required: str | None = None
    message: str
    message_zh: str | None = None

    def place(self) -> str:
        parts = [f"match {self.match}", f"hand {self.hand}"]
        if self.trick is not None:
            parts.append(f"trick {self.trick}")
        if self.seq is not None:
            parts.append(f"event {self.seq}")
        if self.seat is not None:
            parts.append(f"seat {self.seat}")
        return ", ".join(parts)

    def __str__(self) -> str:
        text = f"{self.place()}: [{self.rule}] {self.message}"
        if self.required:
            text += f" Required: {self.required}."
        return text


def show(cards: list[int] | list[Card]) -> str:
    """Cards for a message: ``♠Q ♠Q``."""
    return format_cards([Card(c) for c in cards]) or "nothing"


@dataclass
class Notice:
    """A point the validator could not decide (the seed is silent, or cards are hidden)."""

    match: str
    hand: int
    seq: int | None
    message: str


@dataclass
class ViolationLog:
    """Collects violations for one hand (and, in strict mode, stops at the first)."""

    match: str
    hand: int
    strict: bool = False
    items: list[Violation] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)

    def add(self, rule: str, message: str, *, seq: int | None = None, trick: int | None = None,
            seat: int | None = None, cards: list[int] | None = None, required: str | None = None,
            zh: str | None = None) -> Violation:
        v = Violation(rule=rule, match=self.match, hand=self.hand, seq=seq, trick=trick,
                      seat=seat, cards=[str(Card(c)) for c in cards or []], required=required,
                      message=message, message_zh=zh or RULES_ZH.get(rule))
        self.items.append(v)
        if self.strict:
            raise StrictStop(v)
        return v

    def notice(self, message: str, seq: int | None = None) -> None:
        self.notices.append(Notice(self.match, self.hand, seq, message))


class StrictStop(Exception):
    """Raised in strict mode at the first violation."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(str(violation))
        self.violation = violation
