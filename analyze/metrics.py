"""Metrics as polars frames, gathered in one pass over replayed hands.

:class:`Collector` is a visitor: give it each hand's :class:`~replay.engine.HandReport` (which
carries the hand's record) as the replay produces it, and it keeps flat rows; ``frames()``
turns them into polars DataFrames (matches, hands, tricks, plays, violations, holdings) and
the per-seat, per-player and per-team summaries are group-bys over those. Nothing is replayed
twice.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import polars as pl
import pyarrow as pa

from analyze.dashboard import Dashboard
from gamelog.cards import CARD_TOKENS, UNKNOWN
from gamelog.model import Deal, KittyBury, KittyTake, MatchStart, Setup
from gamelog.select import Selection
from replay.engine import HandReport
from replay.order import CLASS_NAMES, TRUMP
from replay.units import unit_name

RAW = "\x00"
"""The start of a raw player key (:meth:`Collector.player` with ``defer_labels``)."""
PLAYER_COLUMNS = {"hands": ("declarer_player",), "tricks": ("leader_player", "winner_player"),
                  "plays": ("player",), "violations": ("player",), "holdings": ("player",),
                  "auctions": ("declarer_player",)}
"""The columns that hold player labels, per table."""


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
    pages: list[tuple[str, str, list[str]]] = field(default_factory=list)
    """(page slug, the hand's viewer JSON without its seats' names, the names) per hand,
    with ``keep_pages`` (:func:`analyze.handview.page_json` puts them together)."""
    defer_labels: bool = False
    """Leave player labels to the parent (a worker's collector; see :meth:`player`)."""
    raw_keys: dict[str, None] = field(default_factory=dict)
    """With ``defer_labels``: the raw player keys, in the order first seen."""
    _absorbed: list[dict[str, pl.DataFrame]] = field(default_factory=list)
    _absorbed_hands: int = 0
    focus_player: str | None = None
    """A player (id or name) put at the bottom of each hand's viewer where they sat."""
    max_pages: int | None = None
    """Keep the viewer data of at most this many hands (the report's ``--max-hands``)."""
    summarize: bool = False
    """Keep no rows past each compaction: they go to a :class:`~analyze.dashboard.Dashboard`
    (the report's, whose memory does not grow with the hands); :meth:`frames` then holds only
    the rows not yet compacted."""
    _dashboard: Dashboard | None = None

    def player(self, header: MatchStart | None, seat: int | None) -> str | None:
        """The seat's player label (see :meth:`label`); cached per match and seat. With
        ``defer_labels`` (a worker's collector) it is a raw key the parent turns into the
        label (:meth:`absorb`), since labels depend on every hand before."""
        if seat is None:
            return None
        key = (header.match if header is not None else None, seat)
        found = self._players.get(key)
        if found is None:
            info = None
            if header is not None:
                info = next((s for s in header.seats if s.seat == seat), None)
            who = (info.player if info is not None else None,
                   info.name if info is not None else None, seat,
                   header.match if header is not None else "")
            if self.defer_labels:
                found = RAW + json.dumps(who, ensure_ascii=False)
                self.raw_keys.setdefault(found, None)
            else:
                found = self.label(*who)
            if len(self._players) >= _PLAYER_CACHE:  # a cache: a label is the same made again
                self._players.clear()
            self._players[key] = found
        return found

    def label(self, pid: str | None, name: str | None, seat: int, match: str) -> str:
        """A seat's label: its name, else its id, else ``seat N``. Anonymized, ``Player N`` in
        the order players are first seen. With ``players_by_id``, players are keyed by id
        across matches: one id is one label (its first name seen), and a name two ids share
        gets the id added (``Ann (bot-7)``). Both depend on the order hands come in, so a
        worker's collector defers them to the parent (``defer_labels``)."""
        if self.anonymize:
            raw = pid or name or f"seat {seat}"
            key = f"{match}:{raw}" if raw.startswith("seat ") else raw
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

    def absorb(self, frames: dict[str, pl.DataFrame], pages: list[tuple[str, str, list[str]]],
               raw_keys: Iterable[str]) -> None:
        """Take in a worker's rows and pages (made with ``defer_labels``), batches in input
        order: its raw player keys get their labels here, in the order the worker first saw
        them, so the result is that of one collector seeing every hand."""
        frames, mapping = self.relabel(frames, raw_keys)
        self._keep(frames)
        self._absorbed_hands += frames["hands"].height
        room = None if self.max_pages is None else max(0, self.max_pages - len(self.pages))
        self.pages.extend((slug, body, [mapping.get(n, n) for n in names])
                          for slug, body, names in pages[:room])

    def relabel(self, frames: dict[str, pl.DataFrame], raw_keys: Iterable[str]
                ) -> tuple[dict[str, pl.DataFrame], dict[str, str]]:
        """A worker's frames (``defer_labels``) with its raw player keys replaced by their
        labels, given here in the order the worker first saw them; and that mapping."""
        mapping = {k: self.label(*json.loads(k[len(RAW):])) for k in raw_keys}
        if mapping:
            frames = {name: frame.with_columns(
                pl.col(c).replace(mapping) for c in PLAYER_COLUMNS.get(name, ())
                if c in frame.columns) for name, frame in frames.items()}
        return frames, mapping

    def compact(self) -> None:
        """Turn the rows gathered so far into frames kept in order (far smaller than rows of
        Python dicts), or with ``summarize`` hand them to the dashboard and keep none: a
        collector that keeps every hand (the report's) calls it every few hundred hands."""
        if self.hands:
            self._absorbed_hands += len(self.hands)
            self._keep(self.drain())

    def _keep(self, frames: dict[str, pl.DataFrame]) -> None:
        if self.summarize:
            if self._dashboard is None:
                self._dashboard = Dashboard()
            self._dashboard.add(frames)
        else:
            self._absorbed.append(frames)

    def dashboard_so_far(self) -> Dashboard:
        """The report's dashboard over every hand gathered (with ``summarize``, the one
        gathered slice by slice; otherwise made from :meth:`frames`)."""
        if self.summarize:
            self.compact()
            return self._dashboard if self._dashboard is not None else Dashboard()
        dash = Dashboard()
        dash.add(self.frames())
        return dash

    @property
    def hand_count(self) -> int:
        """Hands gathered: added here, and absorbed from workers."""
        return len(self.hands) + self._absorbed_hands

    def seat_of(self, header: MatchStart | None, player: str) -> int | None:
        """The seat where ``player`` (an id or a name) sat in this match."""
        if header is None:
            return None
        for info in header.seats:
            if player in (info.player, info.name):
                return info.seat
        return None

    def add(self, report: HandReport) -> None:
        hand = report.record
        header = hand.header if hand is not None else None
        if self.keep_reports:
            self.reports.append(report)
        if self.keep_pages and (self.max_pages is None or len(self.pages) < self.max_pages):
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

    def page_of(self, report: HandReport) -> tuple[str, str, list[str]]:
        """The hand's page slug, its viewer data as JSON (but the names) and its seats'
        names."""
        from analyze.handview import dumps, hand_data, page_slug

        hand = report.record
        header = hand.header if hand is not None else None
        n = header.players if header is not None else 4
        slug = page_slug(report.match, report.hand)
        names = [self.player(header, s) or "" for s in range(n)]
        data = hand_data(report, [], slug)
        del data["names"]
        if self.focus_player is not None:
            data["me"] = self.seat_of(header, self.focus_player)
        return slug, dumps(data), names

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
        frames = self._own_frames()
        for rows in (self.matches, self.hands, self.tricks, self.plays, self.violations,
                     self.holdings, self.auctions):
            rows.clear()
        self._hand_index.clear()
        self._holding_index.clear()
        return frames

    def frames(self) -> dict[str, pl.DataFrame]:
        """The flat tables: matches, hands, tricks, plays, violations, holdings, auctions
        (with the rows absorbed from workers, in order)."""
        own = self._own_frames()
        if not self._absorbed:
            return own
        parts = [*self._absorbed, own]
        return {name: pl.concat([p[name] for p in parts], how="vertical_relaxed")
                for name in own}

    def _own_frames(self) -> dict[str, pl.DataFrame]:
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


def _dashboard(frames: dict[str, pl.DataFrame]) -> Dashboard:
    """The report's sums over whole frames (one code path for the report and these tables)."""
    dash = Dashboard(hand_rows=0, series=0, points=0)
    dash.add(frames)
    return dash


def player_summary(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Per player over all hands: tricks won and their share, points captured as a defender and
    conceded as a declarer, leads, throws tried and stood, hands declared and kept, kitties
    lost as declarer, violations; with the ``plays`` table, plays and leads counted from it."""
    out = _dashboard(frames).player_frame(by_ruleset=False)
    if out.is_empty():
        return out
    plays = frames["plays"]
    if not plays.is_empty():
        counted = plays.group_by("player").agg(pl.len().cast(pl.Int64).alias("plays"),
                                               pl.col("is_lead").sum().cast(pl.Int64)
                                               .alias("leads"))
        out = counted.join(out.drop("leads"), on="player", how="left").select(
            "player", "plays", "leads", *[c for c in out.columns if c not in
                                          ("player", "leads")]).sort("player")
    return out


def team_summary(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Per fixed team (seat % 2): hands declared, kept, points captured as defenders."""
    return _dashboard(frames).team_frame()


def bid_accuracy(frames: dict[str, pl.DataFrame], by: str = "declarer_player") -> pl.DataFrame:
    """How well winning bids predicted the points the defenders took, per player (or per
    ``by="winning_bid"``): hands, how often the bid was made, the mean margin (bid minus points)
    and the mean absolute error."""
    name = {"declarer_player": "bid_players", "winning_bid": "bid_sizes"}[by]
    return _dashboard(frames).bid_frame(name)


def auction_summary(frames: dict[str, pl.DataFrame]) -> dict[str, Any]:
    """Opening bids, rounds of bidding, winning bids and surrenders over all auctions."""
    return _dashboard(frames).auction_summary()


def violations_by_rule(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Violations per rule, most first."""
    return pl.DataFrame(_dashboard(frames).rule_counts(), orient="row",
                        schema={"rule": pl.String, "count": pl.UInt32})


@dataclass(frozen=True)
class HandFilter(Selection):
    """A choice of hands (``--match``, ``--hand``, ``--player`` as :class:`Selection`, and the
    report's ``--violations-only``), as a predicate on a hand's report; picklable, for
    workers."""

    violations_only: bool = False

    def __bool__(self) -> bool:
        return Selection.__bool__(self) or self.violations_only

    def __call__(self, report: HandReport) -> bool:  # type: ignore[override]
        if self.violations_only and not report.violations:
            return False
        header = report.record.header if report.record is not None else None
        return self.keeps(report.match, report.hand, header)


def collect(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *,
            anonymize: bool = False, keep_reports: bool = False, issues: list | None = None,
            ruleset: str | None = None, with_plays: bool = True, jobs: int = 1,
            progress: Callable[[int], None] | None = None, keep_pages: bool = False,
            keep: Callable[[HandReport], bool] | None = None,
            focus_player: str | None = None, players_by_id: bool = False,
            max_pages: int | None = None, summarize: bool = False) -> Collector:
    """Replay every hand once and gather all metrics; with ``jobs`` > 1 the replay and the
    rows (and pages) are made in that many processes, the same rows in the same order;
    ``progress(n)`` after each n hands. ``keep`` chooses the hands gathered (every hand is
    still replayed: a hand's verdict depends on the hands before it; a :class:`HandFilter`
    with ``jobs`` > 1); ``keep_pages`` keeps each hand's viewer data; ``summarize`` keeps the
    report's dashboard instead of the rows (:class:`Collector`)."""
    c = Collector(anonymize=anonymize, keep_reports=keep_reports, with_plays=with_plays,
                  keep_pages=keep_pages, focus_player=focus_player,
                  players_by_id=players_by_id, max_pages=max_pages, summarize=summarize)
    if jobs > 1 and not keep_reports and (keep is None or isinstance(keep, HandFilter)):
        _collect_in_processes(c, paths, jobs, keep=keep, ruleset=ruleset, issues=issues,
                              progress=progress)
        return c
    for report in playable_reports(paths, issues=issues, ruleset=ruleset, jobs=jobs,
                                   progress=progress):
        if keep is None or keep(report):
            c.add(report)
            if (keep_pages or summarize) and len(c.hands) >= COMPACT_EVERY:
                c.compact()  # the report: frames or the dashboard's sums, not dicts
    return c


_PLAYER_CACHE = 1 << 16
"""Seats whose labels are cached (per match and seat); past it the cache starts again, so an
export of many matches holds no more."""

COMPACT_EVERY = 500
"""Hands between two :meth:`Collector.compact` of the report's collector."""


def _collect_in_processes(c: Collector, paths: Any, jobs: int, *, keep: HandFilter | None,
                          ruleset: str | None, issues: list | None,
                          progress: Callable[[int], None] | None) -> None:
    """Fill ``c`` from workers that replay batches of hands and make their rows and pages
    (labels deferred to ``c``, :meth:`Collector.absorb`); batches in input order."""
    from analyze.batches import batch_results, first_match_rows

    def args() -> tuple[Any, ...]:  # no more pages asked for once the report has enough
        room = c.max_pages is None or len(c.pages) < c.max_pages
        return ruleset, {"with_plays": c.with_plays, "keep_pages": c.keep_pages and room,
                         "focus_player": c.focus_player, "keep": keep or None}

    listed: set[str] = set()
    for frames, (pages, raw_keys) in batch_results(paths, jobs, _collect_batch, args,
                                                   issues=issues, progress=progress):
        c.absorb(first_match_rows(frames, listed), pages, raw_keys)


def _collect_batch(packed: bytes, first: int, ruleset: str | None, settings: dict[str, Any],
                   start: Any = None) -> tuple[Any, ...]:
    """A worker of :func:`_collect_in_processes`: replay a batch (the first ``first`` hands
    as warm-up only) and return its rows as Arrow IPC, the ruleset problems met, the hands
    replayed, its pages and raw player keys, and the match contexts at start and end."""
    from analyze.batches import to_ipc

    c = Collector(defer_labels=True, with_plays=settings["with_plays"],
                  keep_pages=settings["keep_pages"], focus_player=settings["focus_player"])
    problems, count, at_start, end = fill_from_batch(c, packed, first, ruleset, start,
                                                     settings["keep"])
    return to_ipc(c.drain()), problems, count, (c.pages, list(c.raw_keys)), at_start, end


def fill_from_batch(c: Collector, packed: bytes, first: int, ruleset: str | None, start: Any,
                    keep: Callable[[HandReport], bool] | None = None
                    ) -> tuple[list[str], int, Any, Any]:
    """Replay a packed batch of hands (the first ``first`` as warm-up only) into ``c`` (the
    hands ``keep`` accepts); returns the ruleset problems met, the hands replayed, and the
    match contexts at the batch's start and end (:mod:`replay.parallel`)."""
    import replay
    from gamelog import files
    from replay.parallel import replay_after_warmup

    problems: list[str] = []
    count = [0]

    def add(report: HandReport) -> None:
        count[0] += 1
        found = [str(i) for i in report.record_issues if isinstance(i, replay.RulesetProblem)]
        if found:
            problems.extend(found)
        elif keep is None or keep(report):
            c.add(report)

    _, at_start, end = replay_after_warmup(files.unpack_hands(packed),
                                           lambda i, _h: i >= first, ruleset, {}, start,
                                           on_report=add)
    return problems, count[0], at_start, end


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
