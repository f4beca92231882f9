"""Metrics as polars frames, gathered in one pass over replayed hands.

:class:`Collector` is a visitor: give it each hand's :class:`~replay.engine.HandReport` (which
carries the hand's record) as the replay produces it, and it keeps flat rows; ``frames()``
turns them into polars DataFrames (matches, hands, tricks, plays, violations, holdings) and
the per-seat, per-player and per-team summaries are group-bys over those. Nothing is replayed
twice.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import polars as pl
import pyarrow as pa

from gamelog.cards import CARD_TOKENS, UNKNOWN
from gamelog.model import Deal, KittyBury, KittyTake, MatchStart, Setup
from replay.engine import HandReport
from replay.order import CLASS_NAMES, TRUMP
from replay.units import unit_name


def _tokens(cards: Iterable[int]) -> list[str]:
    return [CARD_TOKENS[c] for c in cards]


def lead_pattern(kinds: list[tuple[int, int]]) -> str:
    """A lead's pattern in words: ``pair``, ``tractor of 2``, ``throw: pair + single``."""
    return _pattern(tuple(kinds))


@functools.cache
def _pattern(kinds: tuple[tuple[int, int], ...]) -> str:
    names = [unit_name(w, n) for w, n in kinds]
    if len(names) == 1:
        return names[0]
    return "throw: " + " + ".join(names)


@dataclass
class Collector:
    """Accumulates rows from replayed hands; ``anonymize`` replaces player ids and names."""

    anonymize: bool = False
    matches: list[dict[str, Any]] = field(default_factory=list)
    hands: list[dict[str, Any]] = field(default_factory=list)
    tricks: list[dict[str, Any]] = field(default_factory=list)
    plays: list[dict[str, Any]] = field(default_factory=list)
    violations: list[dict[str, Any]] = field(default_factory=list)
    holdings: list[dict[str, Any]] = field(default_factory=list)
    auctions: list[dict[str, Any]] = field(default_factory=list)
    reports: list[HandReport] = field(default_factory=list)
    keep_reports: bool = False
    with_plays: bool = True
    """Keep a row per play (the ``plays`` table); the report does without it."""
    _seen_matches: set[str] = field(default_factory=set)
    _hand_index: dict[tuple[str, int], int] = field(default_factory=dict)
    _players: dict[tuple[str | None, int], str] = field(default_factory=dict)
    _holding_index: dict[tuple[str, int], list[int]] = field(default_factory=dict)
    _aliases: dict[str, str] = field(default_factory=dict)
    _labels: dict[str, str] = field(default_factory=dict)
    _label_owner: dict[str, str] = field(default_factory=dict)
    players_by_id: bool = False
    """Key players by id across matches (see :meth:`_player`)."""
    keep_pages: bool = False
    """Keep each hand's viewer data (JSON, :mod:`analyze.handview`) for the report's pages."""
    pages: list[tuple[str, str]] = field(default_factory=list)
    """(page slug, the hand's viewer JSON) per hand, with ``keep_pages``."""
    focus_player: str | None = None
    """A player (id or name) put at the bottom of each hand's viewer where they sat."""

    def player(self, header: MatchStart | None, seat: int | None) -> str | None:
        """The seat's player name (or id), anonymized when asked; cached per match and seat."""
        if seat is None:
            return None
        key = (header.match if header is not None else None, seat)
        found = self._players.get(key)
        if found is None:
            found = self._players[key] = self._player(header, seat)
        return found

    def _player(self, header: MatchStart | None, seat: int) -> str:
        """A seat's label: its name, else its id, else ``seat N``. With ``players_by_id``,
        players are keyed by id across matches: one id is one label (its first name seen), and
        a name two ids share gets the id added (``Ann (bot-7)``); that depends on the order
        hands are added, so only a collector that sees every hand in order (the report's)
        uses it, never an export's per-worker collectors."""
        info = None
        if header is not None:
            info = next((s for s in header.seats if s.seat == seat), None)
        pid = info.player if info is not None else None
        name = info.name if info is not None else None
        if self.anonymize:
            raw = pid or name or f"seat {seat}"
            key = f"{header.match if header else ''}:{raw}" if raw.startswith("seat ") else raw
            if key not in self._aliases:
                self._aliases[key] = f"Player {len(self._aliases) + 1}"
            return self._aliases[key]
        if pid is None or not self.players_by_id:
            return name or pid or f"seat {seat}"
        label = self._labels.get(pid)
        if label is None:
            label = name or pid
            owner = self._label_owner.setdefault(label, pid)
            if owner != pid:
                label = f"{label} ({pid})"
            self._labels[pid] = label
        return label

    def seat_of(self, header: MatchStart | None, player: str) -> int | None:
        """The seat where ``player`` (an id, a name or a label) sat in this match."""
        if header is None:
            return None
        for info in header.seats:
            if player in (info.player, info.name, self.player(header, info.seat)):
                return info.seat
        return None

    def add(self, report: HandReport) -> None:
        hand = report.record
        header = hand.header if hand is not None else None
        if self.keep_reports:
            self.reports.append(report)
        if self.keep_pages:
            self.pages.append(self.page_of(report))
        if header is not None and header.match not in self._seen_matches:
            self._seen_matches.add(header.match)
            self.matches.append({
                "match": header.match, "ruleset": header.ruleset, "players": header.players,
                "decks": header.decks, "source": header.source,
                "start_levels": list(header.levels) if header.levels else None,
                "tags": None if self.anonymize else dict(header.tags),
            })
        side = set(report.declarer_side)
        key = {"match": report.match, "hand": report.hand}
        out = report.outcome
        declarer_team = report.declarer % 2 if report.declarer is not None else None
        kept = None
        if out is not None and out.next_dealer is not None and side:
            kept = out.next_dealer in side
        kitty_before = kitty_after = None
        if hand is not None:
            for ev in hand.events:
                if isinstance(ev, (Deal, Setup)):
                    for seat, cards in enumerate(ev.holdings):
                        self._holding_index.setdefault((report.match, report.hand), []).append(
                            len(self.holdings))
                        self.holdings.append({**key, "seat": seat,
                                              "player": self.player(header, seat),
                                              "cards": list(cards),
                                              "hidden": sum(1 for c in cards if c == UNKNOWN)})
                    if isinstance(ev, Deal) and ev.kitty is not None:
                        kitty_before = list(ev.kitty)
                elif isinstance(ev, KittyTake) and kitty_before is None:
                    kitty_before = list(ev.cards)
                elif isinstance(ev, KittyBury):
                    kitty_after = list(ev.cards)
        self._hand_index[(report.match, report.hand)] = len(self.hands)
        self.hands.append({
            **key, "ruleset": report.ruleset, "dealer": report.dealer,
            "declarer": report.declarer, "declarer_player": self.player(header, report.declarer),
            "declarer_team": declarer_team, "trump": report.trump, "level": report.level,
            "complete": report.complete, "tricks": len(report.tricks),
            "defender_points": out.defender_points if out and not report.surrendered else None,
            "kitty_points": out.kitty_points if out else None,
            "kitty_multiplier": out.kitty_multiplier if out else None,
            "kitty_lost": (out.kitty_award is not None) if out else None,
            "kitty_award": out.kitty_award if out else None,
            "scores": list(out.scores) if out and out.scores else None,
            "level_change": list(out.level_change) if out and out.level_change else None,
            "settlement": list(out.settlement) if out and out.settlement else None,
            "contract": report.contract, "surrendered": report.surrendered,
            "next_dealer": out.next_dealer if out else None,
            "declarer_kept_deal": kept,
            "violations": len(report.violations),
            "record_issues": len(report.record_issues),
            "kitty_before": kitty_before, "kitty_after": kitty_after,
        })
        for t in report.tricks:
            lead = t.plays[0] if t.plays else None
            row = {
                **key, "trick": t.number, "leader": t.leader,
                "leader_player": self.player(header, t.leader),
                "lead_pattern": t.special or (lead_pattern(t.lead_kinds) if t.lead_kinds
                                              else None),
                "lead_suit": CLASS_NAMES[t.lead_class] if lead else None,
                "lead_is_trump": t.lead_class == TRUMP,
                "throw": t.throw, "failed_throw": t.failed_throw is not None,
                "throw_cards": _tokens(t.failed_throw) if t.failed_throw is not None else None,
                "forced_cards": _tokens(t.forced[0]) if t.forced else None,
                "trumped": t.trumped, "winner": t.winner,
                "winner_player": self.player(header, t.winner),
                "winner_side": ("declarer" if t.winner in side else "defenders")
                if side and t.winner is not None else None,
                "points": t.points,
            }
            cards = [_tokens(p.cards) for p in t.plays]
            for p, toks in zip(t.plays, cards, strict=True):
                row[f"seat{p.seat}"] = " ".join(toks)
            self.tricks.append(row)
            if not self.with_plays:
                continue
            for order, (p, toks) in enumerate(zip(t.plays, cards, strict=True)):
                self.plays.append({
                    **key, "trick": t.number, "order": order, "seat": p.seat,
                    "player": self.player(header, p.seat), "seq": p.seq,
                    "cards": toks, "n_cards": len(toks),
                    "is_lead": order == 0, "role": p.role or None, "won": p.seat == t.winner,
                    "side": ("declarer" if p.seat in side else "defenders") if side else None,
                })
        if report.bids or report.contract is not None:
            bids = [p for _, p in report.bids if p is not None]
            players = header.players if header is not None else 4
            points = out.defender_points if out is not None and not report.surrendered else None
            self.auctions.append({
                **key, "players": players,
                "opener": report.bids[0][0] if report.bids else None,
                "bids": len(bids), "passes": sum(1 for _, p in report.bids if p is None),
                "rounds": -(-len(report.bids) // players),
                "opening_bid": bids[0] if bids else None,
                "winning_bid": report.contract, "declarer": report.declarer,
                "declarer_player": self.player(header, report.declarer),
                "defender_points": points, "surrendered": report.surrendered,
                "made": None if points is None or report.contract is None
                else points < report.contract,
                "margin": None if points is None or report.contract is None
                else report.contract - points,
                "settlement": list(out.settlement) if out is not None and out.settlement
                else None,
            })
        for v in report.violations:
            self.violations.append({
                **key, "trick": v.trick, "seq": v.seq, "seat": v.seat,
                "player": self.player(header, v.seat), "rule": v.rule, "cards": list(v.cards),
                "required": v.required, "message": v.message,
            })

    def page_of(self, report: HandReport) -> tuple[str, str]:
        """The hand's page slug and its viewer data as JSON."""
        from analyze.handview import dumps, hand_data, page_slug

        hand = report.record
        header = hand.header if hand is not None else None
        n = header.players if header is not None else 4
        slug = page_slug(report.match, report.hand)
        data = hand_data(report, [self.player(header, s) or "" for s in range(n)], slug)
        if self.focus_player is not None:
            data["me"] = self.seat_of(header, self.focus_player)
        return slug, dumps(data)

    def hand_row(self, key: tuple[str, int]) -> dict[str, Any]:
        """The hands row of (match, hand)."""
        return self.hands[self._hand_index[key]]

    def holdings_of(self, key: tuple[str, int]) -> list[dict[str, Any]]:
        """The holdings rows of (match, hand)."""
        return [self.holdings[i] for i in self._holding_index.get(key, [])]

    # -- frames ---------------------------------------------------------------------------------

    @property
    def pending_hands(self) -> int:
        """Hands added since the last :meth:`drain`."""
        return len(self.hands)

    def drain(self) -> dict[str, pl.DataFrame]:
        """The frames of the rows added since the last drain, and forget those rows (player
        aliases and the matches already listed are kept): an export streams in slices."""
        frames = self.frames()
        for rows in (self.matches, self.hands, self.tricks, self.plays, self.violations,
                     self.holdings, self.auctions):
            rows.clear()
        self._hand_index.clear()
        self._holding_index.clear()
        return frames

    def frames(self) -> dict[str, pl.DataFrame]:
        """The flat tables: matches, hands, tricks, plays, violations, holdings."""
        return {
            "matches": _frame(self.matches, MATCH_SCHEMA),
            "hands": _frame(self.hands, HAND_SCHEMA),
            "tricks": _frame(self.tricks, TRICK_SCHEMA),
            "plays": _frame(self.plays, PLAY_SCHEMA),
            "violations": _frame(self.violations, VIOLATION_SCHEMA),
            "holdings": _frame(self.holdings, HOLDING_SCHEMA),
            "auctions": _frame(self.auctions, AUCTION_SCHEMA),
        }


MATCH_SCHEMA = {"match": pl.String, "ruleset": pl.String, "players": pl.Int32,
                "decks": pl.Int32, "source": pl.String, "start_levels": pl.List(pl.String),
                "tags": pl.Object}
HAND_SCHEMA = {
    "match": pl.String, "hand": pl.Int32, "ruleset": pl.String, "dealer": pl.Int32,
    "declarer": pl.Int32, "declarer_player": pl.String, "declarer_team": pl.Int32,
    "trump": pl.String, "level": pl.String, "complete": pl.Boolean, "tricks": pl.Int32,
    "defender_points": pl.Int32, "kitty_points": pl.Int32, "kitty_multiplier": pl.Int32,
    "kitty_lost": pl.Boolean, "kitty_award": pl.Int32, "scores": pl.List(pl.Int32),
    "level_change": pl.List(pl.Int32),
    "settlement": pl.List(pl.Int32), "contract": pl.Int32, "surrendered": pl.Boolean,
    "next_dealer": pl.Int32,
    "declarer_kept_deal": pl.Boolean, "violations": pl.Int32, "record_issues": pl.Int32,
    "kitty_before": pl.List(pl.String), "kitty_after": pl.List(pl.String),
}
TRICK_SCHEMA = {
    "match": pl.String, "hand": pl.Int32, "trick": pl.Int32, "leader": pl.Int32,
    "leader_player": pl.String, "lead_pattern": pl.String, "lead_suit": pl.String,
    "lead_is_trump": pl.Boolean, "throw": pl.Boolean, "failed_throw": pl.Boolean,
    "throw_cards": pl.List(pl.String), "forced_cards": pl.List(pl.String),
    "trumped": pl.Boolean, "winner": pl.Int32, "winner_player": pl.String,
    "winner_side": pl.String, "points": pl.Int32, "seat0": pl.String, "seat1": pl.String,
    "seat2": pl.String, "seat3": pl.String,
}
PLAY_SCHEMA = {
    "match": pl.String, "hand": pl.Int32, "trick": pl.Int32, "order": pl.Int32,
    "seat": pl.Int32, "player": pl.String, "seq": pl.Int32, "cards": pl.List(pl.String),
    "n_cards": pl.Int32, "is_lead": pl.Boolean, "role": pl.String, "won": pl.Boolean,
    "side": pl.String,
}
VIOLATION_SCHEMA = {
    "match": pl.String, "hand": pl.Int32, "trick": pl.Int32, "seq": pl.Int32, "seat": pl.Int32,
    "player": pl.String, "rule": pl.String, "cards": pl.List(pl.String),
    "required": pl.String, "message": pl.String,
}
AUCTION_SCHEMA = {
    "match": pl.String, "hand": pl.Int32, "players": pl.Int32, "opener": pl.Int32,
    "bids": pl.Int32, "passes": pl.Int32, "rounds": pl.Int32, "opening_bid": pl.Int32,
    "winning_bid": pl.Int32, "declarer": pl.Int32, "declarer_player": pl.String,
    "defender_points": pl.Int32, "surrendered": pl.Boolean, "made": pl.Boolean,
    "margin": pl.Int32, "settlement": pl.List(pl.Int32),
}
HOLDING_SCHEMA = {"match": pl.String, "hand": pl.Int32, "seat": pl.Int32, "player": pl.String,
                  "cards": pl.List(pl.String), "hidden": pl.Int32}


def _frame(rows: list[dict[str, Any]], schema: dict[str, Any]) -> pl.DataFrame:
    schema = {k: (pl.String if v is pl.Object else v) for k, v in schema.items()}
    if rows and "tags" in schema:
        import json

        rows = [{**r, "tags": json.dumps(r["tags"], ensure_ascii=False) if r.get("tags")
                 is not None else None} for r in rows]
    if not rows:
        return pl.DataFrame(schema=schema)
    # Through Arrow: polars builds nested list columns from Python lists one series at a time,
    # pyarrow converts them in one pass.
    table = pa.table({name: pa.array([r.get(name) for r in rows], type=_ARROW[dtype])
                      for name, dtype in schema.items()})
    return pl.from_arrow(table)  # type: ignore[return-value]


_ARROW = {pl.String: pa.string(), pl.Int32: pa.int32(), pl.Boolean: pa.bool_(),
          pl.List(pl.String): pa.list_(pa.string()), pl.List(pl.Int32): pa.list_(pa.int32())}


# --- summaries -----------------------------------------------------------------------------------


def player_summary(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Per player over all hands: tricks won and their share, points captured as a defender and
    conceded as a declarer, leads, throws tried and stood, trumps played, kitties lost as
    declarer, hands declared and kept, violations."""
    plays, tricks, hands = frames["plays"], frames["tricks"], frames["hands"]
    violations = frames["violations"]
    if tricks.is_empty():
        return pl.DataFrame()
    if plays.is_empty():  # collected without play rows: leads from the tricks
        base = frames["holdings"].select("player").unique().join(
            tricks.group_by(pl.col("leader_player").alias("player")).agg(
                pl.len().cast(pl.UInt32).alias("leads")), on="player", how="left")
    else:
        base = plays.group_by("player").agg(
            pl.len().alias("plays"),
            pl.col("is_lead").sum().alias("leads"),
        )
    won = tricks.group_by(pl.col("winner_player").alias("player")).agg(
        pl.len().alias("tricks_won"),
        pl.col("points").filter(pl.col("winner_side") == "defenders").sum()
        .alias("points_captured"),
    )
    throws = tricks.filter(pl.col("throw") | pl.col("failed_throw")).group_by(
        pl.col("leader_player").alias("player")).agg(
        pl.len().alias("throws_tried"),
        (~pl.col("failed_throw")).sum().alias("throws_stood"),
    )
    declared = hands.filter(pl.col("declarer_player").is_not_null()).group_by(
        pl.col("declarer_player").alias("player")).agg(
        pl.len().alias("hands_declared"),
        pl.col("declarer_kept_deal").sum().alias("declarer_kept"),
        pl.col("kitty_lost").sum().alias("kitties_lost"),
        pl.col("defender_points").sum().alias("points_conceded"),
    )
    faults = violations.group_by("player").agg(pl.len().alias("violations"))
    out = base
    for extra in (won, throws, declared, faults):
        out = out.join(extra, on="player", how="left")
    total_tricks = max(tricks.height, 1)
    return out.with_columns(
        pl.col(c).fill_null(0) for c in ("leads", "tricks_won", "points_captured", "throws_tried",
                                          "throws_stood", "hands_declared", "declarer_kept",
                                          "kitties_lost", "points_conceded", "violations")
    ).with_columns(
        (pl.col("tricks_won") / total_tricks).alias("trick_share"),
        pl.when(pl.col("hands_declared") > 0)
        .then(pl.col("declarer_kept") / pl.col("hands_declared")).otherwise(None)
        .alias("declarer_success"),
    ).sort("player")


def team_summary(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Per fixed team (seat % 2): hands declared, kept, points captured as defenders."""
    hands = frames["hands"]
    if hands.is_empty():
        return pl.DataFrame()
    return hands.filter(pl.col("declarer_team").is_not_null()).group_by("declarer_team").agg(
        pl.len().alias("hands_declared"),
        pl.col("declarer_kept_deal").sum().alias("kept"),
        pl.col("defender_points").mean().alias("mean_points_conceded"),
    ).sort("declarer_team")


def bid_accuracy(frames: dict[str, pl.DataFrame], by: str = "declarer_player") -> pl.DataFrame:
    """How well winning bids predicted the points the defenders took, per player (or per
    ``by="winning_bid"``): hands, how often the bid was made, the mean margin (bid minus points)
    and the mean absolute error."""
    a = frames.get("auctions")
    if a is None or a.is_empty():
        return pl.DataFrame()
    played = a.filter(pl.col("defender_points").is_not_null())
    return played.group_by(by).agg(
        pl.len().alias("hands"),
        pl.col("made").mean().alias("made_rate"),
        pl.col("margin").mean().alias("mean_margin"),
        pl.col("margin").abs().mean().alias("mean_abs_error"),
        pl.col("winning_bid").mean().alias("mean_bid"),
    ).sort(by)


def auction_summary(frames: dict[str, pl.DataFrame]) -> dict[str, Any]:
    """Opening bids, rounds of bidding, winning bids and surrenders over all auctions."""
    a = frames.get("auctions")
    if a is None or a.is_empty():
        return {}
    return {
        "auctions": a.height,
        "mean_opening_bid": a["opening_bid"].mean(),
        "mean_rounds": a["rounds"].mean(),
        "winning_bids": a.group_by("winning_bid").agg(pl.len().alias("count"))
        .sort("winning_bid").to_dicts(),
        "surrenders": int(a["surrendered"].sum()),
        "passed_out": int(a.filter(pl.col("bids") == 0).height),
    }


def violations_by_rule(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    v = frames["violations"]
    if v.is_empty():
        return pl.DataFrame(schema={"rule": pl.String, "count": pl.UInt32})
    return v.group_by("rule").agg(pl.len().alias("count")).sort(
        ["count", "rule"], descending=[True, False])  # ties by name: the same input, the same order


def collect(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *,
            anonymize: bool = False, keep_reports: bool = False, issues: list | None = None,
            ruleset: str | None = None, with_plays: bool = True, jobs: int = 1,
            progress: Callable[[int], None] | None = None, keep_pages: bool = False,
            keep: Callable[[HandReport], bool] | None = None,
            focus_player: str | None = None, players_by_id: bool = False) -> Collector:
    """Replay every hand once and gather all metrics; with ``jobs`` > 1 the replay runs in that
    many processes (the same rows, in the same order); ``progress(n)`` after each n hands.
    ``keep`` chooses the hands gathered (every hand is still replayed: a hand's verdict
    depends on the hands before it); ``keep_pages`` keeps each hand's viewer data."""
    c = Collector(anonymize=anonymize, keep_reports=keep_reports, with_plays=with_plays,
                  keep_pages=keep_pages, focus_player=focus_player,
                  players_by_id=players_by_id)
    for report in playable_reports(paths, issues=issues, ruleset=ruleset, jobs=jobs,
                                   progress=progress):
        if keep is None or keep(report):
            c.add(report)
    return c


def playable_reports(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *,
                     issues: list | None = None, ruleset: str | None = None, jobs: int = 1,
                     progress: Callable[[int], None] | None = None) -> Iterator[HandReport]:
    """Every hand's report, replayed once (in ``jobs`` processes when > 1), in input order;
    a match whose ruleset is unknown or misconfigured is reported once in ``issues`` and left
    out, since no table can hold it."""
    import replay
    from gamelog import files

    unplayable: set[str] = set()
    if jobs > 1:
        from replay.parallel import replay_in_processes

        hands = files.read_hands(paths, issues=issues)
        reports: Iterable[HandReport] = replay_in_processes(hands, jobs, ruleset=ruleset)
    else:
        reports = replay.validate(paths, ruleset=ruleset, issues=issues)
    for report in reports:
        if progress is not None:
            progress(1)
        problems = [i for i in report.record_issues if isinstance(i, replay.RulesetProblem)]
        if problems:  # its ruleset is unknown or misconfigured: reported once, not tabled
            for problem in problems:
                if str(problem) not in unplayable and issues is not None:
                    issues.append(problem)
                unplayable.add(str(problem))
            continue
        yield report
