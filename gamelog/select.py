"""A choice of hands by match, hand number and player: what ``--match``, ``--hand`` and
``--player`` mean on every command that reads records, and ``shengji select``.

A record-level predicate (no rules): it reads a hand's match id, number and header only, so
the same choice picks the same hands before a replay and after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gamelog.model import MatchStart


@dataclass(frozen=True)
class Selection:
    """Hands of these matches (any, when empty), with numbers in ``hands`` (inclusive; any,
    when ``None``), where ``player`` (an id or a name) sat (anyone, when ``None``)."""

    matches: frozenset[str] = frozenset()
    hands: tuple[int, int] | None = None
    player: str | None = None

    def __bool__(self) -> bool:
        return bool(self.matches or self.hands is not None or self.player is not None)

    def keeps(self, match: str, number: int, header: MatchStart | None) -> bool:
        """Whether the hand ``number`` of ``match`` (under ``header``) is chosen."""
        if self.matches and match not in self.matches:
            return False
        if self.hands is not None and not self.hands[0] <= number <= self.hands[1]:
            return False
        if self.player is not None:
            seats = header.seats if header is not None else []
            if not any(self.player in (s.player, s.name) for s in seats):
                return False
        return True

    def __call__(self, hand: object) -> bool:
        """A :class:`gamelog.Hand` chosen or not."""
        return self.keeps(hand.match, hand.number, hand.header)  # type: ignore[attr-defined]

    def describe(self) -> str:
        """The choice as the options that made it (for "no hand matched ..." messages)."""
        parts = [f"--match {m}" for m in sorted(self.matches)]
        if self.hands is not None:
            lo, hi = self.hands
            parts.append(f"--hand {lo}" if lo == hi else
                         f"--hand {lo}-{hi if hi < 2**31 else ''}")
        if self.player is not None:
            parts.append(f"--player {self.player}")
        return " ".join(parts)


__all__ = ["Selection"]
