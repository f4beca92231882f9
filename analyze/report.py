"""HTML review reports: a page per hand and a dashboard, from jinja2 templates and plotly charts.

One self-contained file by default (plotly.js inlined once, every chart a div and a few lines of
data), or a directory with one page per hand, an index and one shared plotly.js. Everything
shown is escaped by jinja2's autoescaping.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
import os
import re
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

import jinja2
import plotly.graph_objects as go
import polars as pl
from markupsafe import Markup, escape
from plotly.offline import get_plotlyjs

from analyze.metrics import (
    Collector,
    auction_summary,
    bid_accuracy,
    player_summary,
    team_summary,
    violations_by_rule,
)
from gamelog.cards import CARD_BY_TOKEN, UNKNOWN, Card, Rank, Suit
from gamelog.jsonl import atomic_output
from gamelog.outputs import check_report_file, owned_directory
from replay import get_ruleset
from replay.engine import HandReport

LABELS = {
    "en": {
        "title": "Shengji review", "dashboard": "Dashboard", "hands": "Hands", "hand": "Hand",
        "match": "Match", "trick": "Trick", "leader": "Leader", "winner": "Winner",
        "points": "Points", "seat": "Seat", "holdings": "Holdings at the start",
        "kitty_before": "Kitty as dealt", "kitty_after": "Kitty buried", "tricks": "Tricks",
        "violations": "Violations", "none": "none", "trump": "Trump", "level": "Level",
        "declarer": "Declarer", "dealer": "Dealer", "defenders_points": "Defenders' points",
        "multiplier": "Kitty multiplier", "level_change": "Level change",
        "next_dealer": "Next dealer", "failed_throw": "failed throw", "throw": "throw",
        "trumped": "trumped", "players": "Players", "generated": "Generated",
        "version": "shengji-toolkit", "ruleset": "Ruleset", "rule": "Rule",
        "required": "required", "summary": "Summary", "clean": "clean",
        "with_violations": "with violations", "chart_points": "Defenders' points, trick by trick",
        "chart_levels": "Levels by hand", "chart_distribution": "Defenders' points per hand",
        "chart_tricks": "Tricks won", "chart_capture": "Points captured as defenders",
        "chart_rules": "Violations by rule", "back": "back to the dashboard",
        "chart_race": "The race to 10,000 (打万分)", "chart_awards": "Kitty awards (抠底)",
        "score": "Score", "award": "Award",
        "no_trump": "no-trump", "tricks_won": "tricks won", "player": "Player",
        "notices": "Undetermined", "lead": "lead", "bid_accuracy": "Bid accuracy",
        "chart_bids": "Winning bid against the defenders' points", "winning_bid": "Winning bid",
        "made": "made", "margin": "mean margin (bid − points)", "abs_error": "mean error",
        "auctions": "Auctions", "contract": "Bid", "share": "share", "leads": "leads",
        "captured": "points captured", "conceded": "points conceded",
        "throws": "throws (stood)", "declared": "declared (kept)", "kitties_lost": "kitties lost",
        "opening_bid": "mean opening bid", "rounds": "mean rounds of bidding",
        "surrenders": "surrenders", "surrendered": "surrendered", "anonymized": "anonymized",
    },
    "zh": {
        "title": "升级复盘", "dashboard": "总览", "hands": "牌局", "hand": "局", "match": "比赛",
        "trick": "轮", "leader": "首家", "winner": "赢家", "points": "分", "seat": "座位",
        "holdings": "起手牌", "kitty_before": "原底牌", "kitty_after": "扣底", "tricks": "出牌",
        "violations": "违规", "none": "无", "trump": "主", "level": "级", "declarer": "庄家",
        "dealer": "发牌", "defenders_points": "闲家得分", "multiplier": "扣底倍数",
        "level_change": "升级", "next_dealer": "下局庄家", "failed_throw": "甩牌失败",
        "throw": "甩牌", "trumped": "毙", "players": "玩家", "generated": "生成时间",
        "version": "shengji-toolkit", "ruleset": "规则", "rule": "规则", "required": "应为",
        "summary": "摘要", "clean": "无违规", "with_violations": "有违规",
        "chart_points": "闲家累计得分", "chart_levels": "各局级数", "chart_distribution": "闲家得分分布",
        "chart_tricks": "赢轮数", "chart_capture": "闲家捡分", "chart_rules": "违规统计",
        "chart_race": "打万分：先记满10000分", "chart_awards": "抠底得分", "score": "总分",
        "award": "抠底分",
        "back": "返回总览", "no_trump": "无主", "tricks_won": "赢轮", "player": "玩家",
        "notices": "无法判定", "lead": "首出", "bid_accuracy": "叫分准确度",
        "chart_bids": "标分与边家得分", "winning_bid": "中标分", "made": "庄胜率",
        "margin": "平均差 (标分 − 得分)", "abs_error": "平均误差", "auctions": "竞叫", "contract": "标分",
        "share": "占比", "leads": "首出", "captured": "捡分", "conceded": "失分",
        "throws": "甩牌 (成功)", "declared": "做庄 (保庄)", "kitties_lost": "被抠底",
        "opening_bid": "平均起叫", "rounds": "平均叫牌轮数", "surrenders": "投降",
        "surrendered": "投降", "anonymized": "已匿名",
    },
}
SUIT_NAMES = {"S": "♠", "H": "♥", "C": "♣", "D": "♦", "NT": None}


def _templates() -> jinja2.Environment:
    here = Path(__file__).resolve().parent
    for candidate in (here / "templates", here.parent / "templates"):
        if candidate.is_dir():
            break
    return jinja2.Environment(loader=jinja2.FileSystemLoader(candidate),
                              autoescape=jinja2.select_autoescape(["html", "j2"]),
                              trim_blocks=True, lstrip_blocks=True)


def tool_version() -> str:
    try:
        return metadata.version("shengji-toolkit")
    except metadata.PackageNotFoundError:
        return "dev"


def _span(card: Card, lang: str) -> str:
    cls = "c red" if card.is_red else "c"
    return f'<span class="{cls}">{escape(card.display(lang))}</span>'


_SPANS = {lang: [_span(Card(i), lang) for i in range(54)] for lang in ("en", "zh")}
_HIDDEN = '<span class="c hidden">?</span>'


def cards_html(cards: Iterable[int], order: Any | None, lang: str, hidden: int = 0) -> Markup:
    """Cards as HTML spans (red or black), in trump order when the hand's order is known.

    Built from a fixed table of 54 escaped spans per language: much faster than a template
    macro per card, and nothing user-supplied enters it."""
    spans = _SPANS.get(lang, _SPANS["en"])
    ordered = sorted(cards, key=order.sort_key) if order is not None else list(cards)
    inner = "".join(spans[c] for c in ordered) + _HIDDEN * hidden
    return Markup(f'<span class="cards">{inner}</span>')


def tokens_html(tokens: Iterable[str], order: Any | None, lang: str) -> Markup:
    toks = list(tokens)
    return cards_html([CARD_BY_TOKEN[t] for t in toks if t != UNKNOWN], order, lang,
                      hidden=sum(1 for t in toks if t == UNKNOWN))


LAYOUT = {"margin": {"l": 50, "r": 20, "t": 40, "b": 40}, "height": 320}


class Chart:
    """A plotly figure rendered as a div plus its data; plotly.js comes from the page.

    Takes a ``go.Figure`` (dashboard) or a plain ``{"data": ..., "layout": ...}`` dict (hand
    pages: building thousands of validated Figure objects would dominate the report's time)."""

    counter = 0

    def __init__(self, fig: go.Figure | dict[str, Any]) -> None:
        Chart.counter += 1
        self.id = f"chart{Chart.counter}"
        if isinstance(fig, dict):
            layout = {**LAYOUT, "plot_bgcolor": "#fff", "paper_bgcolor": "#fff",
                      **fig.get("layout", {})}
            self.json = json.dumps({"data": fig["data"], "layout": layout}, ensure_ascii=False)
        else:
            fig.update_layout(**LAYOUT, template="plotly_white")
            self.json = fig.to_json()

    def script(self) -> str:
        # JSON inside a <script>: escape "</" so no string can close the tag.
        data = self.json.replace("</", "<\\/")
        return (f"(function(){{var f={data};Plotly.newPlot('{self.id}',f.data,f.layout,"
                "{displayModeBar:false,responsive:true});})();")


def _order_for(report: HandReport, rules: Any) -> Any:
    if report.trump is None or rules is None:
        return None
    level = None if report.level in (None, "NT") else Rank.parse(report.level)
    trump = None if report.trump == "NT" else Suit(report.trump)
    return rules.order(trump, level)


def hand_context(report: HandReport, collector: Collector, lang: str) -> dict[str, Any]:
    hand = report.record
    header = hand.header if hand is not None else None
    rules = _rules_for(header)
    order = _order_for(report, rules)
    key = (report.match, report.hand)
    holdings = collector.holdings_of(key)
    hand_row = collector.hand_row(key)
    by_trick: dict[int | None, list] = {}
    for v in report.violations:
        by_trick.setdefault(v.trick, []).append(v)
    players = header.players if header is not None else 4
    seat_names = [collector.player(header, s) for s in range(players)]
    tricks = []
    cumulative, running = [], 0
    side = set(report.declarer_side)
    for t in report.tricks:
        plays = {p.seat: cards_html(p.cards, order, lang) for p in t.plays}
        if t.winner is not None and side and t.winner not in side:
            running += t.points
        cumulative.append(running)
        tricks.append({
            "number": t.number, "leader": t.leader, "winner": t.winner, "points": t.points,
            "plays": [plays.get(s, "") for s in range(players)],
            "throw": t.throw, "trumped": t.trumped,
            "failed_throw": cards_html(t.failed_throw, order, lang)
            if t.failed_throw is not None else None,
            "violations": by_trick.get(t.number, []),
            "defender": t.winner is not None and bool(side) and t.winner not in side,
        })
    chart = None
    if report.tricks:
        L = LABELS[lang]
        shapes, notes = [], []
        for points, label in (rules.point_thresholds() if rules is not None else []):
            shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": points,
                           "y1": points, "line": {"dash": "dot", "color": "#c0392b"}})
            notes.append({"xref": "paper", "x": 0, "y": points, "text": f"{points}: {label}",
                          "showarrow": False, "xanchor": "left", "yanchor": "bottom",
                          "font": {"size": 11, "color": "#c0392b"}})
        chart = Chart({
            "data": [{"type": "scatter", "mode": "lines+markers", "name": L["defenders_points"],
                      "x": [t.number for t in report.tricks], "y": cumulative}],
            "layout": {"title": {"text": L["chart_points"]}, "shapes": shapes,
                       "annotations": notes, "xaxis": {"title": {"text": L["trick"]},
                                                       "gridcolor": "#eef1f4"},
                       "yaxis": {"title": {"text": L["points"]}, "gridcolor": "#eef1f4"}},
        })
    trump_name = (LABELS[lang]["no_trump"] if report.trump == "NT"
                  else SUIT_NAMES.get(report.trump or "") or "?")
    return {
        "report": report, "anchor": page_slug(report.match, report.hand),
        "seat_names": seat_names,
        "holdings": [{"seat": h["seat"], "player": h["player"],
                      "cards": tokens_html(h["cards"], order, lang)} for h in holdings],
        "kitty_before": tokens_html(hand_row["kitty_before"] or [], order, lang)
        if hand_row["kitty_before"] else None,
        "kitty_after": tokens_html(hand_row["kitty_after"] or [], order, lang)
        if hand_row["kitty_after"] else None,
        "tricks": tricks, "untricked": by_trick.get(None, []), "chart": chart,
        "trump_name": trump_name, "outcome": report.outcome,
        "red_trump": report.trump in ("H", "D"),
    }


_RULES: dict[tuple, Any] = {}


def _rules_for(header: Any) -> Any:
    """The header's ruleset, built once per distinct header settings."""
    if header is None:
        return None
    key = (header.ruleset, header.players, header.decks, tuple(sorted(header.options.items())))
    if key not in _RULES:
        try:
            _RULES[key] = get_ruleset(header.ruleset, players=header.players,
                                      decks=header.decks, **header.options)
        except ValueError:
            _RULES[key] = None
    return _RULES[key]


_SLUG_SAFE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_SLUG_MAX = 120


def page_slug(match: str, hand: int) -> str:
    """The file name (without ``.html``) and anchor of a hand's page: ``hand-<match>-<hand>``,
    where the match id keeps lower-case letters, digits and ``-`` and writes every other byte
    of its UTF-8 as ``_XX`` (hex). Distinct ids never share a slug, even on a file system that
    ignores case, and the slug reads back to the id (:func:`match_of_slug`). An id whose slug
    would pass 120 characters is cut and followed by ``~`` and 16 hex digits of its SHA-256,
    so a page name stays well within file name limits."""
    body = "".join(ch if ch in _SLUG_SAFE else "".join(f"_{b:02X}" for b in ch.encode())
                   for ch in match)
    if len(body) > _SLUG_MAX:
        digest = hashlib.sha256(match.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        cut = body[:_SLUG_MAX - 17]
        cut = cut[:cut.rfind("_")] if "_" in cut[-2:] else cut  # never half an escape
        body = f"{cut}~{digest}"
    return f"hand-{body}-{hand}"


def match_of_slug(slug: str) -> str | None:
    """The match id of a :func:`page_slug` (``None`` for a cut, hashed one)."""
    body = slug.removeprefix("hand-").rsplit("-", 1)[0]
    if "~" in body:
        return None
    return re.sub(rb"_([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]),
                  body.encode("ascii")).decode("utf-8", "surrogatepass")


def chart_text(text: object) -> str:
    """A label for a plotly chart: plotly renders some HTML in labels (``<a href>``, ``<b>``,
    ``<br>``), so a name from a record is written with entities and shows as typed."""
    return html.escape(str(text), quote=False) if text is not None else ""


def dashboard_charts(frames: dict[str, pl.DataFrame], lang: str) -> list[Chart]:
    L = LABELS[lang]
    charts: list[Chart] = []
    hands = frames["hands"]
    if not hands.is_empty():
        fig = go.Figure()
        levels = _levels(hands, frames["matches"])
        for (match, team), rows in levels.items():
            fig.add_trace(go.Scatter(x=[r[0] for r in rows], y=[r[1] for r in rows],
                                     mode="lines+markers",
                                     name=chart_text(f"{match} · team {team}")))
        fig.update_layout(title=L["chart_levels"], xaxis_title=L["hand"],
                          yaxis={"title": L["level"], "tickvals": list(range(13)),
                                 "ticktext": [*"23456789", "10", "J", "Q", "K", "A"]})
        charts.append(Chart(fig))
        pts = [p for p in hands["defender_points"].to_list() if p is not None]
        charts.append(Chart(go.Figure(go.Histogram(x=pts, nbinsx=20)).update_layout(
            title=L["chart_distribution"], xaxis_title=L["defenders_points"])))
    summary = player_summary(frames)
    if not summary.is_empty():
        names = [chart_text(p) for p in summary["player"].to_list()]
        charts.append(Chart(go.Figure(go.Bar(x=names,
                                             y=summary["tricks_won"].to_list())).update_layout(
            title=L["chart_tricks"])))
        charts.append(Chart(go.Figure(go.Bar(x=names,
                                             y=summary["points_captured"].to_list()))
                            .update_layout(title=L["chart_capture"])))
    auctions = frames.get("auctions")
    if auctions is not None and not auctions.is_empty():
        played = auctions.filter(pl.col("defender_points").is_not_null())
        bids = played["winning_bid"].to_list()
        fig = go.Figure(go.Scatter(x=bids, y=played["defender_points"].to_list(),
                                   mode="markers",
                                   text=[chart_text(p) for p in played["declarer_player"].to_list()],
                                   name=L["defenders_points"], marker={"opacity": 0.6}))
        if bids:
            fig.add_trace(go.Scatter(x=[min(bids), max(bids)], y=[min(bids), max(bids)],
                                     mode="lines", name="bid = points",
                                     line={"dash": "dot", "color": "#c0392b"}))
        fig.update_layout(title=L["chart_bids"], xaxis_title=L["winning_bid"],
                          yaxis_title=L["defenders_points"])
        charts.append(Chart(fig))
    race = hands.filter(pl.col("scores").is_not_null()) if not hands.is_empty() else hands
    if not race.is_empty():  # 打万分: each team's running score, hand by hand
        fig = go.Figure()
        for match in race["match"].unique(maintain_order=True).to_list():
            rows = race.filter(pl.col("match") == match).sort("hand")
            for team in (0, 1):
                fig.add_trace(go.Scatter(
                    x=rows["hand"].to_list(), y=[s[team] for s in rows["scores"].to_list()],
                    mode="lines+markers", name=chart_text(f"{match} · team {team}")))
        fig.add_hline(y=10_000, line_dash="dot", line_color="#c0392b")
        fig.update_layout(title=L["chart_race"], xaxis_title=L["hand"], yaxis_title=L["score"])
        charts.append(Chart(fig))
    awards = (hands.filter(pl.col("kitty_award").is_not_null() & (pl.col("ruleset") == "wanfen"))
              if not hands.is_empty() else hands)
    if not awards.is_empty():
        fig = go.Figure(go.Bar(
            x=[chart_text(f"{m} #{h}") for m, h in zip(awards["match"].to_list(),
                                                       awards["hand"].to_list(), strict=True)],
            y=awards["kitty_award"].to_list()))
        fig.update_layout(title=L["chart_awards"], yaxis_title=L["award"])
        charts.append(Chart(fig))
    rules = violations_by_rule(frames)
    if not rules.is_empty():
        charts.append(Chart(go.Figure(go.Bar(x=rules["count"].to_list(),
                                             y=[chart_text(r) for r in rules["rule"].to_list()],
                                             orientation="h"))
                            .update_layout(title=L["chart_rules"])))
    return charts


LEVELS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "NT"]


def _levels(hands: pl.DataFrame, matches: pl.DataFrame) -> dict[tuple[str, int], list]:
    """(match, team) -> [(hand, level index)] from the start levels and each level change."""
    start = {r["match"]: r["start_levels"] for r in matches.iter_rows(named=True)}
    out: dict[tuple[str, int], list] = {}
    current: dict[str, list[int]] = {}
    for row in hands.sort(["match", "hand"]).iter_rows(named=True):
        m = row["match"]
        if m not in current:
            lv = start.get(m) or ["2", "2"]
            current[m] = [LEVELS.index(x) if x in LEVELS else 0 for x in lv]
        for team, value in enumerate(current[m]):
            out.setdefault((m, team), []).append((row["hand"], value))
        change = row["level_change"] or []
        current[m] = [min(v + (change[i] if i < len(change) else 0), 12)
                      for i, v in enumerate(current[m])]
    return out


def render(collector: Collector, output: str | os.PathLike[str], *, lang: str = "en",
           title: str | None = None, max_hand_pages: int | None = None) -> list[Path]:
    """Write the report: one HTML file, or (output ending in / or an existing directory) an
    index plus one page per hand. Returns the files written."""
    env = _templates()
    Chart.counter = 0  # chart ids count from 1 in every report: the same input, the same bytes
    frames = collector.frames()
    L = LABELS[lang]
    out = Path(output)
    as_dir = is_directory_output(output)
    summary = player_summary(frames)
    hands = frames["hands"]
    rulesets = sorted({r["ruleset"] for r in collector.matches}) or ["?"]
    stamp = {
        "version": tool_version(), "rulesets": ", ".join(rulesets),
        "generated": _now().strftime("%Y-%m-%d %H:%M UTC"),
    }
    reports = collector.reports
    if max_hand_pages is not None:
        reports = reports[:max_hand_pages]
    common = {"L": L, "lang": lang, "stamp": stamp, "title": title or L["title"],
              "anonymized": collector.anonymize}
    dashboard = {
        "charts": dashboard_charts(frames, lang),
        "players": summary.to_dicts() if not summary.is_empty() else [],
        "teams": team_summary(frames).to_dicts() if not hands.is_empty() else [],
        "hands": hands.select(["match", "hand", "declarer_player", "trump", "level",
                               "defender_points", "violations"]).to_dicts()
        if not hands.is_empty() else [],
        "n_hands": hands.height,
        "n_clean": hands.filter((pl.col("violations") == 0) & (pl.col("record_issues") == 0))
        .height if not hands.is_empty() else 0,
        "n_violations": frames["violations"].height,
        "bid_players": bid_accuracy(frames).to_dicts(),
        "bid_sizes": bid_accuracy(frames, by="winning_bid").to_dicts(),
        "auction": auction_summary(frames),
    }
    anchors = {page_slug(r.match, r.hand) for r in reports}
    dashboard["pages"] = anchors
    for row in dashboard["hands"]:
        row["anchor"] = page_slug(row["match"], row["hand"])
    written: list[Path] = []
    if not as_dir:
        check_report_file(out)
        pages = [hand_context(r, collector, lang) for r in reports]
        text = env.get_template("report.html.j2").render(
            **common, dashboard=dashboard, pages=pages, plotly_js=get_plotlyjs(),
            plotly_src=None, single=True)
        _write(out, text)
        return [out]
    # The site is built in a fresh folder beside the target and swapped in whole at the end,
    # so a reader sees the old site or the new one, never half of each; a directory that is
    # not an earlier report of ours is never replaced (gamelog.outputs).
    with owned_directory(out, "report") as build:
        template = env.get_template("report.html.j2")
        (build / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
        for r in reports:
            page = hand_context(r, collector, lang)
            text = template.render(**common, dashboard=None, pages=[page], plotly_js=None,
                                   plotly_src="plotly.min.js", single=False)
            name = f"{page['anchor']}.html"
            (build / name).write_text(text, encoding="utf-8")
            written.append(out / name)
        text = template.render(**common, dashboard=dashboard, pages=[], plotly_js=None,
                               plotly_src="plotly.min.js", single=False)
        (build / "index.html").write_text(text, encoding="utf-8")
    return [out / "index.html", *written]


def _now() -> dt.datetime:
    """The generation time stamped on a report: now, or ``SOURCE_DATE_EPOCH`` when set (the
    reproducible-builds convention), so that a report can be made byte for byte again."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    if epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), dt.UTC)
    return dt.datetime.now(dt.UTC)


def is_directory_output(output: str | os.PathLike[str]) -> bool:
    """Whether ``render`` writes a directory (a name ending in ``/``, or an existing
    directory) rather than one file."""
    return str(output).endswith(("/", os.sep)) or Path(output).is_dir()


def _write(path: Path, text: str) -> None:
    with atomic_output(path) as f:
        f.write(text.encode())
