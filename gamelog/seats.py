"""Seats at the table.

Seats are numbered 0 to ``players - 1`` in playing order (counter-clockwise, 逆时针, as every
seed deals and plays), so the next seat to act is always ``seat + 1`` modulo the number of
players. With four players the compass names N, W, S, E follow that order and partners sit
opposite (seat + 2).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator


class Seat(enum.IntEnum):
    """A seat, 0-based in playing order."""

    NORTH = 0
    WEST = 1
    SOUTH = 2
    EAST = 3

    def __str__(self) -> str:
        return str(int(self))

    @property
    def letter(self) -> str:
        return self.name[0]

    def next(self, players: int = 4) -> Seat:
        """The seat that plays after this one (下家)."""
        return Seat((self + 1) % players)

    def previous(self, players: int = 4) -> Seat:
        """The seat that plays before this one (上家)."""
        return Seat((self - 1) % players)

    def partner(self, players: int = 4) -> Seat:
        """The partner opposite (对家); only four-player games have fixed partners."""
        if players != 4:
            raise ValueError(f"a {players}-player game has no fixed partners")
        return Seat((self + 2) % 4)

    def team(self, players: int = 4) -> int | None:
        """0 for N/S, 1 for W/E in a four-player game; ``None`` where teams change each hand."""
        return int(self) % 2 if players == 4 else None

    def iter_from(self, players: int = 4) -> Iterator[Seat]:
        """Every seat once, starting with this one, in playing order."""
        for k in range(players):
            yield Seat((self + k) % players)

    @classmethod
    def parse(cls, text: str | int) -> Seat:
        """Read ``0``-``3`` or ``N``/``W``/``S``/``E`` (or the full compass name)."""
        if isinstance(text, int):
            return cls(text)
        t = text.strip().upper()
        if t.isdigit():
            return cls(int(t))
        for s in cls:
            if t in (s.name, s.letter):
                return s
        raise ValueError(f"{text!r} is not a seat (0-3 or N/W/S/E)")
