"""The report's dashboard, gathered slice by slice so that its memory does not grow with the hands.

The report's collector hands each slice of rows (a few hundred hands, as frames) to a
:class:`Dashboard` and lets it go. The dashboard keeps sums and counts (per player and ruleset,
per team, per ruleset, per bid, per rule), a histogram of the defenders' points per ruleset as
counts, and only the first rows of what it lists hand by hand: the hand table
(``HAND_ROWS``), the level and race charts (``SERIES`` matches) and the bid and award charts
(``POINTS`` hands). Every figure it shows is the one the whole frames would give; what is cut
says so on the page. Sums of integers make the result the same however the hands were sliced
(``report -j 2`` writes the same bytes as ``-j 1``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import polars as pl

from replay.engine import LEVEL_ORDER

HAND_ROWS = 5_000
"""Hands listed in the dashboard's hand table (the first ones)."""
SERIES = 30
"""Matches drawn in the level and race charts (the first ones)."""
POINTS = 2_000
"""Hands drawn in the bid scatter and the kitty-award bars (the first ones)."""
_MERGE_EVERY = 16
"""Partial tables merged into one every so many slices."""

LEVELS = [*LEVEL_ORDER, "NT"]
_PLAYER_SUMS = ("leads", "tricks_won", "points_captured", "throws_tried", "throws_stood",
                "hands_declared", "declarer_kept", "kitties_lost", "points_conceded",
                "violations")


class Dashboard:
    """Sums, counts and the first rows of a report's hands (see the module's docstring)."""

    def __init__(self, *, hand_rows: int | None = None, series: int | None = None,
                 points: int | None = None) -> None:
        self.limits = (HAND_ROWS if hand_rows is None else hand_rows,
                       SERIES if series is None else series,
                       POINTS if points is None else points)
        self.n_hands = self.n_clean = self.n_violations = 0
        self.parts: dict[str, list[pl.DataFrame]] = {
            "players": [], "tricks": [], "teams": [], "rulesets": [], "bid_players": [],
            "bid_sizes": []}
        self.matches: dict[str | None, set[str]] = {}
        self.histograms: dict[str, Counter[int]] = {}
        self.rules: Counter[str] = Counter()
        self.auction: Counter[str] = Counter()
        self.winning_bids: Counter[int] = Counter()
        self.hands: list[dict[str, Any]] = []
        self.starts: dict[str, list[str] | None] = {}
        self.levels: dict[str, list[int]] = {}
        self.level_rows: dict[tuple[str, int], list[tuple[int, int]]] = {}
        self.race: dict[str, list[tuple[int, list[int]]]] = {}
        self.scatter: list[tuple[int, int, str | None]] = []
        self.awards: list[tuple[str, int, int]] = []
        self._slices = 0

    # -- taking in a slice ------------------------------------------------------------------------

    def add(self, frames: dict[str, pl.DataFrame]) -> None:
        """Take in the rows of some hands (the collector's tables for them)."""
        for m in frames["matches"].iter_rows(named=True):
            self.starts.setdefault(m["match"], m["start_levels"])
        hands = frames["hands"]
        if hands.is_empty():
            return
        hand_rows, series, points = self.limits
        self.n_hands += hands.height
        self.n_clean += hands.filter((pl.col("violations") == 0)
                                     & (pl.col("record_issues") == 0)).height
        self.n_violations += frames["violations"].height
        keys = hands.select("match", "hand", pl.col("ruleset").fill_null("?"))
        self._players(frames, keys)
        self._sums(hands, frames.get("auctions"))
        for rule, n in frames["violations"].group_by("rule").len().iter_rows():
            self.rules[rule] += n
        scored = hands.filter(pl.col("ruleset").is_not_null()
                              & pl.col("defender_points").is_not_null())
        for ruleset, pts, n in scored.group_by("ruleset", "defender_points").len().iter_rows():
            self.histograms.setdefault(ruleset, Counter())[pts] += n
        for ruleset, match in hands.select("ruleset", "match").unique().iter_rows():
            self.matches.setdefault(ruleset, set()).add(match)
        if len(self.hands) < hand_rows:
            self.hands.extend(hands.head(hand_rows - len(self.hands)).select(
                ["match", "hand", "ruleset", "declarer_player", "trump", "level",
                 "defender_points", "violations"]).to_dicts())
        if series or points:
            self._series(hands, series, points)
        auctions = frames.get("auctions")
        if auctions is not None and len(self.scatter) < points:
            played = auctions.filter(pl.col("defender_points").is_not_null())
            self.scatter.extend(played.head(points - len(self.scatter)).select(
                "winning_bid", "defender_points", "declarer_player").iter_rows())
        self._slices += 1
        if self._slices % _MERGE_EVERY == 0:
            for name in self.parts:
                self._merge(name)

    def _players(self, frames: dict[str, pl.DataFrame], keys: pl.DataFrame) -> None:
        """Per ruleset and player: the additive counts of the player table."""
        tricks = frames["tricks"].join(keys, on=["match", "hand"], how="left")
        hands = frames["hands"].with_columns(pl.col("ruleset").fill_null("?"))
        by = ["ruleset", "player"]
        seen = frames["holdings"].join(keys, on=["match", "hand"], how="left").select(
            "ruleset", "player").unique()
        pieces = [
            tricks.group_by("ruleset", pl.col("leader_player").alias("player")).agg(
                pl.len().cast(pl.Int64).alias("leads")),
            tricks.group_by("ruleset", pl.col("winner_player").alias("player")).agg(
                pl.len().cast(pl.Int64).alias("tricks_won"),
                pl.col("points").filter(pl.col("winner_side") == "defenders").sum()
                .cast(pl.Int64).alias("points_captured")),
            tricks.filter(pl.col("throw") | pl.col("failed_throw")).group_by(
                "ruleset", pl.col("leader_player").alias("player")).agg(
                pl.len().cast(pl.Int64).alias("throws_tried"),
                (~pl.col("failed_throw")).sum().cast(pl.Int64).alias("throws_stood")),
            hands.filter(pl.col("declarer_player").is_not_null()).group_by(
                "ruleset", pl.col("declarer_player").alias("player")).agg(
                pl.len().cast(pl.Int64).alias("hands_declared"),
                pl.col("declarer_kept_deal").sum().cast(pl.Int64).alias("declarer_kept"),
                pl.col("kitty_lost").sum().cast(pl.Int64).alias("kitties_lost"),
                pl.col("defender_points").sum().cast(pl.Int64).alias("points_conceded")),
            frames["violations"].join(keys, on=["match", "hand"], how="left").group_by(
                "ruleset", "player").agg(pl.len().cast(pl.Int64).alias("violations")),
        ]
        table = seen  # the players dealt in: a violation of nobody's is not a player's
        for piece in pieces:
            table = table.join(piece, on=by, how="left")
        self.parts["players"].append(table.with_columns(
            pl.col(c).fill_null(0) for c in _PLAYER_SUMS))
        self.parts["tricks"].append(tricks.group_by("ruleset").agg(
            pl.len().cast(pl.Int64).alias("tricks")))

    def _sums(self, hands: pl.DataFrame, auctions: pl.DataFrame | None) -> None:
        """Per team, per ruleset and per bid: sums and counts (means are taken at the end)."""
        def total(col: str) -> list[pl.Expr]:
            return [pl.col(col).cast(pl.Int64).sum().alias(f"{col}_sum"),
                    pl.col(col).count().cast(pl.Int64).alias(f"{col}_n")]

        self.parts["teams"].append(hands.filter(pl.col("declarer_team").is_not_null())
                                   .group_by("declarer_team").agg(
            pl.len().cast(pl.Int64).alias("hands_declared"),
            pl.col("declarer_kept_deal").sum().cast(pl.Int64).alias("kept"),
            *total("defender_points")))
        self.parts["rulesets"].append(hands.group_by("ruleset").agg(
            pl.len().cast(pl.Int64).alias("hands"), *total("defender_points"),
            *total("declarer_kept_deal"), pl.col("violations").cast(pl.Int64).sum()))
        if auctions is None or auctions.is_empty():
            return
        self.auction["auctions"] += auctions.height
        for col in ("opening_bid", "rounds"):
            self.auction[f"{col}_sum"] += int(auctions[col].sum() or 0)
            self.auction[f"{col}_n"] += auctions[col].count()
        self.auction["surrenders"] += int(auctions["surrendered"].sum() or 0)
        self.auction["passed_out"] += auctions.filter(pl.col("bids") == 0).height
        for bid, n in auctions.group_by("winning_bid").len().iter_rows():
            self.winning_bids[bid] += n
        played = auctions.filter(pl.col("defender_points").is_not_null())
        self.auction["played"] += played.height
        for name, by in (("bid_players", "declarer_player"), ("bid_sizes", "winning_bid")):
            self.parts[name].append(played.group_by(by).agg(
                pl.len().cast(pl.Int64).alias("hands"), *total("made"), *total("margin"),
                pl.col("margin").abs().cast(pl.Int64).sum().alias("abs_sum"),
                *total("winning_bid")))

    def _series(self, hands: pl.DataFrame, series: int, points: int) -> None:
        """The first matches' levels and running scores, the first hands' bids and awards."""
        rows = hands.select("match", "hand", "ruleset", "level_change", "scores",
                            "kitty_award").iter_rows()
        for match, hand, ruleset, change, scores, award in rows:
            if match not in self.levels and len(self.levels) < series:
                start = self.starts.get(match) or ["2", "2"]
                self.levels[match] = [LEVELS.index(x) if x in LEVELS else 0 for x in start]
            current = self.levels.get(match)
            if current is not None:
                for team, value in enumerate(current):
                    self.level_rows.setdefault((match, team), []).append((hand, value))
                change = change or []
                self.levels[match] = [min(v + (change[i] if i < len(change) else 0), 12)
                                      for i, v in enumerate(current)]
            if scores is not None and (match in self.race or len(self.race) < series):
                self.race.setdefault(match, []).append((hand, list(scores)))
            if award is not None and ruleset == "wanfen" and len(self.awards) < points:
                self.awards.append((match, hand, award))

    def _merge(self, name: str) -> pl.DataFrame | None:
        parts = self.parts[name]
        if not parts:
            return None
        keys = {"players": ["ruleset", "player"], "tricks": ["ruleset"],
                "teams": ["declarer_team"], "rulesets": ["ruleset"],
                "bid_players": ["declarer_player"], "bid_sizes": ["winning_bid"]}[name]
        merged = pl.concat(parts, how="vertical_relaxed").group_by(keys).agg(
            pl.all().sum())
        self.parts[name] = [merged]
        return merged

    # -- what the page shows ----------------------------------------------------------------------

    @property
    def rulesets_seen(self) -> list[str]:
        return sorted(r for r in self.matches if r is not None)

    def player_table(self, *, by_ruleset: bool | None = None) -> list[dict[str, Any]]:
        """The player table: over several rulesets one row per player and ruleset (points and
        tricks of different games do not add up), else one row per player."""
        return self.player_frame(by_ruleset=by_ruleset).to_dicts()

    def player_frame(self, *, by_ruleset: bool | None = None) -> pl.DataFrame:
        """:meth:`player_table` as a frame (empty when no trick was played)."""
        merged = self._merge("players")
        totals = self._merge("tricks")
        if merged is None or totals is None or totals["tricks"].sum() == 0:
            return pl.DataFrame()
        split = len(self.rulesets_seen) > 1 if by_ruleset is None else by_ruleset
        if not split:
            merged = merged.group_by("player").agg(pl.col(c).sum() for c in _PLAYER_SUMS)
            merged = merged.with_columns(pl.lit(int(totals["tricks"].sum())).alias("tricks"))
            order = ["player"]
        else:
            merged = merged.join(totals, on="ruleset", how="left").filter(
                pl.col("ruleset") != "?")
            order = ["ruleset", "player"]
        return merged.with_columns(
            (pl.col("tricks_won") / pl.col("tricks").clip(1)).alias("trick_share"),
            pl.when(pl.col("hands_declared") > 0)
            .then(pl.col("declarer_kept") / pl.col("hands_declared")).otherwise(None)
            .alias("declarer_success"),
        ).drop("tricks").sort(order)

    def team_table(self) -> list[dict[str, Any]]:
        return self.team_frame().to_dicts()

    def team_frame(self) -> pl.DataFrame:
        """Per fixed team (seat % 2): hands declared, kept, mean points conceded."""
        merged = self._merge("teams")
        if merged is None or merged.is_empty():
            return pl.DataFrame()
        return merged.select(
            "declarer_team", "hands_declared", "kept",
            _mean("defender_points_sum", "defender_points_n", "mean_points_conceded"),
        ).sort("declarer_team")

    def ruleset_table(self) -> list[dict[str, Any]]:
        merged = self._merge("rulesets")
        if merged is None or merged.is_empty():
            return []
        matches = pl.DataFrame({"ruleset": list(self.matches),
                                "matches": [len(v) for v in self.matches.values()]},
                               schema={"ruleset": pl.String, "matches": pl.Int64})
        return merged.join(matches, on="ruleset", how="left", nulls_equal=True).select(
            "ruleset", "matches", "hands",
            _mean("defender_points_sum", "defender_points_n", "mean_points"),
            _mean("declarer_kept_deal_sum", "declarer_kept_deal_n", "kept"),
            "violations").sort("ruleset").to_dicts()

    def bid_table(self, name: str) -> list[dict[str, Any]]:
        return self.bid_frame(name).to_dicts()

    def bid_frame(self, name: str) -> pl.DataFrame:
        """Winning bids against the points taken, per declarer (``bid_players``) or per bid
        (``bid_sizes``): hands, made rate, mean margin and absolute error, mean bid."""
        merged = self._merge(name)
        if merged is None or merged.is_empty():
            return pl.DataFrame()
        key = merged.columns[0]
        return merged.select(
            key, "hands", _mean("made_sum", "made_n", "made_rate"),
            _mean("margin_sum", "margin_n", "mean_margin"),
            _mean("abs_sum", "margin_n", "mean_abs_error"),
            _mean("winning_bid_sum", "winning_bid_n", "mean_bid"),
        ).sort(key)

    def auction_summary(self) -> dict[str, Any]:
        a = self.auction
        if not a["auctions"]:
            return {}
        return {
            "auctions": a["auctions"],
            "mean_opening_bid": a["opening_bid_sum"] / a["opening_bid_n"]
            if a["opening_bid_n"] else None,
            "mean_rounds": a["rounds_sum"] / a["rounds_n"] if a["rounds_n"] else None,
            "winning_bids": [{"winning_bid": b, "count": n}
                             for b, n in sorted(self.winning_bids.items(),
                                                key=lambda x: (x[0] is None, x[0] or 0))],
            "surrenders": a["surrenders"], "passed_out": a["passed_out"],
        }

    def rule_counts(self) -> list[tuple[str, int]]:
        """Violations per rule, most first (ties by name: the same input, the same order)."""
        return sorted(self.rules.items(), key=lambda x: (-x[1], x[0]))

    def level_series(self) -> dict[tuple[str, int], list[tuple[int, int]]]:
        """(match, team) -> [(hand, level index)] for the first matches, by match id."""
        return {k: sorted(v) for k, v in sorted(self.level_rows.items())}

    def race_series(self) -> dict[str, list[tuple[int, list[int]]]]:
        return {m: sorted(v) for m, v in self.race.items()}


def _mean(total: str, count: str, name: str) -> pl.Expr:
    """``total / count`` as a mean, null when nothing was counted (as polars' mean gives)."""
    return pl.when(pl.col(count) > 0).then(pl.col(total) / pl.col(count)).otherwise(None) \
        .alias(name)
