"""Ruleset ``biaofen``: 标分 (seed 003), 3 or 4 players. Spec: docs/rules/biaofen.md."""

from __future__ import annotations

from gamelog.cards import Card, Rank, Suit
from replay.order import CardOrder, standard_order
from replay.rulesets.base import Declaration, Option, Outcome, Ruleset, chain_answers, register
from replay.units import Shape, Unit

OPENING_BID = 80
BID_STEP = 5


@register
class Biaofen(Ruleset):
    """标分, seed 003: an auction for the points the defenders may take, one declarer against
    the rest, permanent 2s and jokers, settlement in 档 over rounds of six hands."""

    name = "biaofen"
    aliases = ("标分", "biao-fen")
    title = "标分 (bid for points), 3 or 4 players"
    seed = "003"
    options = (
        Option("players", int, 4, "players: 3 (one against two) or 4 (one against three)",
               (3, 4)),
        Option("decks", int, 2, "decks in play (always 2)", (2,)),
    )
    fixed_teams = False
    has_auction = True
    allows_surrender = True
    trump_throws = False  # ruling 8: 「第一家出牌方出副牌时可选择用“甩牌”方式出牌」
    round_length = 6

    # -- table ------------------------------------------------------------------------------

    def team_of(self, seat: int, declarer: int | None) -> int:
        return 0 if seat == declarer else 1

    def declarer_side(self, declarer: int) -> set[int]:
        return {declarer}

    # -- deal and declarations --------------------------------------------------------------

    def declaration(self, cards: list[Card], level: Rank) -> Declaration | str:
        return "标分 has no declarations: the winner of the auction names trump"

    # -- auction ----------------------------------------------------------------------------

    def check_bid(self, points: int, lowest: int | None) -> str | None:
        if points % BID_STEP or points <= 0:
            return f"bids are positive multiples of {BID_STEP}"
        if points > OPENING_BID:
            return f"the opening bid is {OPENING_BID} (80分起叫)"
        if lowest is not None and points >= lowest:
            return f"a bid must be lower than {lowest} (从大往小)"
        return None

    # -- kitty ------------------------------------------------------------------------------

    def kitty_size(self) -> int:
        return 12

    # -- tricks -----------------------------------------------------------------------------

    def order(self, trump: Suit | None, level: Rank | None) -> CardOrder:
        """Level 2 always (ruling 52): 大王、小王、正2、副2、A … 3."""
        return standard_order(trump, Rank.TWO)

    def answers(self, kind: tuple[int, int]) -> list[Shape]:
        width, length = kind
        if width == 1:
            return [()]
        return chain_answers(2, length)

    # -- outcome ----------------------------------------------------------------------------

    def surrender_outcome(self, declarer: int, contract: int | None) -> Outcome | None:
        n = contract if contract is not None else OPENING_BID
        if n < 55:
            return None  # the text is cut off there (ruling 58)
        settlement = [2] * self.players
        settlement[declarer] = -2 * (self.players - 1)
        return Outcome(0, 0, None, settlement=settlement)

    def kitty_multiplier(self, winning: list[Unit]) -> int:
        return 2  # 被“抠底”时底牌里的分牌的分数翻倍计算

    def outcome(self, defender_points: int, kitty_points: int, multiplier: int | None,
                dealer: int, declarer: int, *, contract: int | None = None,
                bombs: tuple[int, ...] = (), face: int | None = None,
                level: str | None = None, totals: list[int] | None = None) -> Outcome:
        n = contract if contract is not None else OPENING_BID
        each = settlement_per_defender(self.players, n, defender_points)
        settlement = [-each] * self.players
        settlement[declarer] = each * (self.players - 1)
        out = Outcome(defender_points, kitty_points, multiplier, settlement=settlement)
        add_bombs(out, bombs, self.players)
        return out

    def round_settlement(self, declarers: list[int]) -> list[int] | None:
        return round_settlement(self.players, declarers)

    def point_thresholds(self) -> list[tuple[int, str]]:
        return []


def settlement_per_defender(players: int, n: int, points: int) -> int:
    """What each defender pays the declarer (negative: is paid), seed 003's 计分规则."""
    if points < n:
        each = 2 if n >= 55 else 3
        if points == 0:
            each += 3          # 大光 (replaces 小光, ruling 56)
        elif points <= n / 2:
            each += 1          # 小光 (exact comparison, ruling 57)
        return each
    steps = [n, n + 40, n + 70, n + 90] if players == 4 else [n, n + 30, n + 50]
    k = sum(1 for s in steps if points >= s)
    if points >= steps[-1]:
        k += (points - steps[-1]) // 20
    return -k


def add_bombs(out: Outcome, bombs: tuple[int, ...], players: int) -> None:
    """A bomb (8 identical cards in one hand) earns 5 档 from each other player (ruling 58)."""
    if not bombs or out.settlement is None:
        return
    for holder in bombs:
        for seat in range(players):
            out.settlement[seat] += 5 * (players - 1) if seat == holder else -5
    out.notes.append("includes a bomb reward, which the seed's cut-off text leaves unverified "
                     "(ruling 58)")


def round_settlement(players: int, declarers: list[int]) -> list[int]:
    """Rewards and penalties of a round (ruling 59), per seat; sums to zero."""
    out = [0] * players
    counts = [0] * players
    sweep = len(declarers) == 6 and len(set(declarers)) == 1
    for i, d in enumerate(declarers):
        counts[d] += 1
        reward = 1 if counts[d] >= 3 else 0
        if sweep and i >= 3:
            reward += 1
        for seat in range(players):
            out[seat] += reward * (players - 1) if seat == d else -reward
    for seat in range(players):
        if counts[seat] == 0:
            for other in range(players):
                out[other] += -2 * (players - 1) if other == seat else 2
    return out
