"""HTML review reports: a page per hand and a dashboard, from jinja2 templates and plotly charts.

One self-contained file by default (plotly.js inlined once, every chart a div and a few lines of
data), or a directory with one page per hand, an index and one shared plotly.js. Everything
shown is escaped by jinja2's autoescaping.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import gzip
import html
import json
import os
from importlib import metadata
from pathlib import Path
from typing import Any

import jinja2
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from analyze.dashboard import Dashboard
from analyze.handview import card_labels, dumps, encode, match_of_slug, page_json, page_slug
from analyze.metrics import (
    Collector,
)
from gamelog.cards import CARD_TOKENS
from gamelog.outputs import atomic_output, check_report_file, owned_directory

__all__ = ["LABELS", "match_of_slug", "page_slug", "render"]

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
        "incomplete": "incomplete: stops after trick", "viewer": "Hand viewer",
        "start": "Start (Home)", "prev_trick": "Previous trick (Up)",
        "prev_play": "Previous play (Left)", "next_play": "Next play (Right)",
        "next_trick": "Next trick (Down)", "end": "End (End)", "view": "Whose view",
        "all_hands": "Show all hands", "view_of": "View of seat", "partner": "partner",
        "cards": "cards", "play": "play", "before_play": "Before the first lead",
        "defenders": "Defenders", "declarers": "Declarers", "kitty": "Kitty",
        "filter": "Filter", "min_points": "points from", "max_points": "to",
        "violations_only": "with violations only", "shown": "shown",
        "by_ruleset": "By ruleset", "mean_points": "mean defenders' points",
        "kept": "declarer kept the deal", "matches": "Matches",
        "thr_defenders": "defenders +{n}", "thr_declarer": "declarer +{n}",
        "thr_passes": "the deal passes", "review": "Decision review",
        "review_note": "an estimate, not a verdict (docs/review.md)", "accuracy": "accuracy",
        "decisions": "decisions", "inaccuracies": "inaccuracies", "mistakes": "mistakes",
        "blunders": "blunders", "inaccuracy": "inaccuracy", "mistake": "mistake",
        "blunder": "blunder", "better": "better", "points_lost": "points",
        "burial": "Kitty burial", "first_of": "the first {n} of {m}",
        "export_for_all": "shengji export gives every hand",
        "auction_review": "Auction review", "pass": "pass",
        "bid": "bid", "as_declarer": "defenders' points with this seat declaring, about",
        "best_choice": "best", "dang_lost": "档 given away",
        "declaration_review": "Declaration review", "declared_trump": "declared",
        "after_cards": "after cards dealt:", "not_yet": "declaring nothing yet",
        "declared_nothing": "declared nothing", "last_chance": "its last chance, cards dealt:",
        "levels_lost": "levels given away",
        "as_good": "as good as the best alternative",
        "gave_away": "gave away {n} points against", "possibly": "possibly a {m}",
        "exact_note": "exact: every deal of the unseen cards solved",
        "estimate_note": "estimated over deals of the unseen cards consistent with what the "
                         "seat knew; values ± one standard error; a mark only where the "
                         "swing less its error (± {e}) reaches the mark's threshold",
        "alternative": "Alternative", "value": "defenders' expected final points",
        "vs_made": "vs the play made", "deals": "deals", "play_made": "played",
        "all_deals": "all", "line_made": "What may follow the play made",
        "line_best": "What may follow the best alternative",
        "screened_note": "Alternatives listed above the best on fewer deals were screened only: "
                         "the best is the one that held its value against the play made on the "
                         "most deals.",
        "line_note": "On one deal of the unseen cards consistent with what the seat knew, "
                     "played on by the rollout player: an illustration, not the evidence.",
        "autoplay": "Autoplay (Space)", "prev_hand": "Previous hand (P)",
        "next_hand": "Next hand (N)", "keys": "Keys (?)",
        "keys_list": ["→ / ← next / previous play", "↓ / ↑ next / previous trick",
                      "Home / End start / end of the hand", "N / P next / previous hand",
                      "Space autoplay", "? this help"],
        "legend_leader": "led the trick", "legend_winner": "won it (outlined)",
        "legend_defenders": "points the defenders took", "legend_bad": "a violation",
        "legend_marks": "review marks: inaccuracy, mistake, blunder",
        "chart_eval": "Defenders' expected final points, play by play",
        "play_no": "Play", "expected_points": "Expected points",
        "final_points": "final points", "as_dealt": "as dealt", "buried": "buried",
        "team": "team", "hands_loading": "Loading {n} hands…", "rulesets": "Rulesets",
        "count": "Hands", "all_matches": "every match", "bid_eq_points": "bid = points",
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
        "incomplete": "未打完：停在第几轮之后", "viewer": "逐张复盘",
        "start": "开始 (Home)", "prev_trick": "上一轮 (↑)", "prev_play": "上一张 (←)",
        "next_play": "下一张 (→)", "next_trick": "下一轮 (↓)", "end": "结束 (End)",
        "view": "视角", "all_hands": "显示所有人的牌", "view_of": "只看座位", "partner": "同伴",
        "cards": "张", "play": "出牌", "before_play": "首轮出牌之前", "defenders": "闲家",
        "declarers": "庄家方", "kitty": "底牌", "filter": "筛选", "min_points": "得分从",
        "max_points": "到", "violations_only": "只看有违规的", "shown": "显示",
        "by_ruleset": "按规则", "mean_points": "闲家平均得分", "kept": "保庄", "matches": "比赛",
        "thr_defenders": "闲家升{n}级", "thr_declarer": "庄家升{n}级", "thr_passes": "闲家上台",
        "review": "复盘评估", "review_note": "估计，不是裁决 (docs/review.md)", "accuracy": "准确度",
        "decisions": "决策", "inaccuracies": "欠佳", "mistakes": "失误", "blunders": "大错",
        "inaccuracy": "欠佳", "mistake": "失误", "blunder": "大错", "better": "更好",
        "points_lost": "分", "burial": "扣底", "first_of": "前 {n} / 共 {m}",
        "export_for_all": "全部牌局请用 shengji export",
        "auction_review": "叫分评估", "pass": "不叫",
        "bid": "叫", "as_declarer": "若此家坐庄，闲家约得", "best_choice": "最佳",
        "dang_lost": "档损失",
        "declaration_review": "亮主评估", "declared_trump": "亮", "after_cards": "已发牌数：",
        "not_yet": "暂不亮主",
        "declared_nothing": "未亮主", "last_chance": "最后机会，已发牌数：", "levels_lost": "级损失",
        "as_good": "与最佳选择相当", "gave_away": "比最佳选择损失 {n} 分，应出",
        "possibly": "或为{m}", "exact_note": "精确：未见牌的每种分布都已算尽",
        "estimate_note": "按与该家所知相符的未见牌分布估计；数值 ± 一个标准误；"
                         "差值减去其标准误（± {e}）仍达到标准才标记",
        "alternative": "候选出法", "value": "闲家期望终局得分", "vs_made": "与实际出牌相比",
        "deals": "模拟副数", "play_made": "实际", "all_deals": "全部",
        "line_made": "实际出牌之后的一种走法", "line_best": "最佳出法之后的一种走法",
        "screened_note": "排在最佳之上而模拟副数较少的候选只经过初筛：最佳是在最多副数上与实际出牌比较后"
                         "仍保持其值的那一种。",
        "line_note": "在与该家所知相符的一种未见牌分布上，由模拟玩家续打：仅作说明，不是依据。",
        "autoplay": "自动播放 (空格)", "prev_hand": "上一局 (P)", "next_hand": "下一局 (N)",
        "keys": "快捷键 (?)",
        "keys_list": ["→ / ← 下一张 / 上一张", "↓ / ↑ 下一轮 / 上一轮", "Home / End 开始 / 结束",
                      "N / P 下一局 / 上一局", "空格 自动播放", "? 本帮助"],
        "legend_leader": "首家", "legend_winner": "赢家（框出）", "legend_defenders": "闲家得分",
        "legend_bad": "违规", "legend_marks": "复盘标记：欠佳、失误、大错",
        "chart_eval": "闲家期望终局得分（逐张）", "play_no": "出牌序号",
        "expected_points": "期望得分", "final_points": "终局得分", "as_dealt": "原底",
        "buried": "扣底", "team": "队", "hands_loading": "正在载入 {n} 局…", "rulesets": "规则",
        "count": "局数", "all_matches": "全部比赛", "bid_eq_points": "标分 = 得分",
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
            given = fig.layout.to_plotly_json()  # a chart's own height (say) stands
            fig.update_layout(**{k: v for k, v in LAYOUT.items() if k not in given},
                              template="plotly_white")
            self.json = fig.to_json()

    def script(self) -> str:
        # JSON inside a <script>: escape "</" so no string can close the tag.
        data = self.json.replace("</", "<\\/")
        return (f"(function(){{var f={data};Plotly.newPlot('{self.id}',f.data,f.layout,"
                "{displayModeBar:false,responsive:true});})();")


def chart_text(text: object) -> str:
    """A label for a plotly chart: plotly renders some HTML in labels (``<a href>``, ``<b>``,
    ``<br>``), so a name from a record is written with entities and shows as typed."""
    return html.escape(str(text), quote=False) if text is not None else ""


def dashboard_charts(dash: Dashboard, lang: str) -> list[Chart]:
    """The dashboard's charts, from what :class:`~analyze.dashboard.Dashboard` gathered."""
    L = LABELS[lang]
    charts: list[Chart] = []
    if dash.n_hands:
        charts.append(Chart(_per_match(
            dash.level_series(), L, title=_capped(L["chart_levels"], len(dash.levels),
                                                  _match_count(dash), L),
            xaxis_title=L["hand"],
            yaxis={"title": L["level"], "tickvals": list(range(13)),
                   "ticktext": [*"23456789", "10", "J", "Q", "K", "A"]})))
        # one histogram per ruleset: a four-deck hand's 400 points and a biaofen hand's 200
        # are not one distribution (counts per value, summed into the bins)
        for ruleset in sorted(dash.histograms):
            counts = sorted(dash.histograms[ruleset].items())
            title = L["chart_distribution"] + (f" · {ruleset}" if len(dash.matches) > 1
                                               else "")
            charts.append(Chart(go.Figure(go.Histogram(
                x=[v for v, _ in counts], y=[n for _, n in counts], histfunc="sum",
                nbinsx=20)).update_layout(title=chart_text(title),
                                          xaxis_title=L["defenders_points"],
                                          yaxis_title=L["count"])))
    players = dash.player_table(by_ruleset=True)
    if players:
        won: dict[str, int] = {}
        captured: dict[str, dict[str, int]] = {}
        for row in players:
            won[row["player"]] = won.get(row["player"], 0) + row["tricks_won"]
            if row["points_captured"]:
                captured.setdefault(row["ruleset"], {})[row["player"]] = row["points_captured"]
        names = sorted(won)
        charts.append(Chart(go.Figure(go.Bar(x=[chart_text(p) for p in names],
                                             y=[won[p] for p in names])).update_layout(
            title=L["chart_tricks"], xaxis={"title": L["player"], "automargin": True},
            yaxis_title=L["tricks_won"])))
        fig = go.Figure()
        for ruleset, rows in sorted(captured.items()):
            fig.add_trace(go.Bar(x=[chart_text(p) for p in rows], y=list(rows.values()),
                                 name=chart_text(ruleset)))
        fig.update_layout(title=L["chart_capture"], barmode="stack",
                          showlegend=len(captured) > 1,
                          xaxis={"title": L["player"], "automargin": True},
                          yaxis_title=L["points"])
        charts.append(Chart(fig))
    if dash.scatter:
        bids = [b for b, _, _ in dash.scatter]
        fig = go.Figure(go.Scatter(x=bids, y=[p for _, p, _ in dash.scatter], mode="markers",
                                   text=[chart_text(d) for _, _, d in dash.scatter],
                                   name=L["defenders_points"], marker={"opacity": 0.6}))
        fig.add_trace(go.Scatter(x=[min(bids), max(bids)], y=[min(bids), max(bids)],
                                 mode="lines", name=L["bid_eq_points"],
                                 line={"dash": "dot", "color": "#c0392b"}))
        fig.update_layout(title=_capped(L["chart_bids"], len(dash.scatter),
                                        dash.auction["played"], L),
                          xaxis_title=L["winning_bid"], yaxis_title=L["defenders_points"])
        charts.append(Chart(fig))
    race = dash.race_series()
    if race:  # 打万分: each team's running score, hand by hand
        series = {(match, team): [(h, s[team]) for h, s in rows]
                  for match, rows in race.items() for team in (0, 1)}
        fig = _per_match(series, L, title=_capped(L["chart_race"], len(race),
                                                  len(dash.matches.get("wanfen", ())), L),
                         xaxis_title=L["hand"], yaxis_title=L["score"])
        fig.add_hline(y=10_000, line_dash="dot", line_color="#c0392b")
        charts.append(Chart(fig))
    if dash.awards:
        fig = go.Figure(go.Bar(x=[chart_text(f"{m} #{h}") for m, h, _ in dash.awards],
                               y=[a for _, _, a in dash.awards]))
        fig.update_layout(title=L["chart_awards"], yaxis_title=L["award"],
                          xaxis={"title": L["hand"], "automargin": True, "tickangle": -40,
                                 "type": "category"})
        charts.append(Chart(fig))
    rules = dash.rule_counts()
    if rules:
        charts.append(Chart(go.Figure(go.Bar(x=[n for _, n in rules],
                                             y=[chart_text(r) for r, _ in rules],
                                             orientation="h"))
                            .update_layout(title=L["chart_rules"],
                                           height=max(320, 120 + 22 * len(rules)),
                                           xaxis_title=L["violations"],
                                           yaxis={"type": "category", "dtick": 1,
                                                  "title": L["rule"],
                                                  "automargin": True,
                                                  "autorange": "reversed"})))
    return charts


MAX_MATCH_MENU = 60
"""Matches a per-match chart offers in its menu (the title says when there are more)."""


def _per_match(series: dict[tuple[str, int], list[tuple[int, int]]], L: dict[str, Any],
               **layout: Any) -> go.Figure:
    """Each team's line for one match at a time, with a menu of the matches (every match's
    lines at once do not read past a few): the first match shown, the first
    :data:`MAX_MATCH_MENU` in the menu."""
    matches = sorted({m for m, _ in series})[:MAX_MATCH_MENU]
    fig = go.Figure()
    owner = []
    for (match, team), rows in series.items():
        if match not in matches:
            continue
        fig.add_trace(go.Scatter(x=[r[0] for r in rows], y=[r[1] for r in rows],
                                 mode="lines+markers", visible=match == matches[0],
                                 name=chart_text(f"{L['team']} {team}")))
        owner.append(match)
    if len(matches) > 1:
        fig.update_layout(updatemenus=[{
            "type": "dropdown", "x": 1, "xanchor": "right", "y": 1.18, "yanchor": "top",
            "buttons": [{"label": chart_text(m), "method": "update",
                         "args": [{"visible": [o == m for o in owner]}]} for m in matches]}])
    fig.update_layout(**layout)
    return fig


def _match_count(dash: Dashboard) -> int:
    return sum(len(v) for v in dash.matches.values())


def _capped(title: str, shown: int, total: int, L: dict[str, str]) -> str:
    """A chart's title, saying so when it draws only the first of its matches or hands."""
    return title if shown >= total else f"{title} ({L['first_of'].format(n=shown, m=total)})"


def _viewer_js() -> str:
    here = Path(__file__).resolve().parent
    for candidate in (here / "templates", here.parent / "templates"):
        if (candidate / "viewer.js").is_file():
            return (candidate / "viewer.js").read_text(encoding="utf-8")
    raise FileNotFoundError("templates/viewer.js")


@functools.cache
def _packed_plotly() -> str:
    """plotly.js gzipped (no time stamp: the same bytes every run) and base64-encoded: a third
    of its size; the page unpacks it once with the browser's DecompressionStream."""
    return base64.b64encode(gzip.compress(get_plotlyjs().encode(), 9, mtime=0)).decode()


def _hand_pages(collector: Collector, reviews: dict[str, Any] | None = None
                ) -> list[tuple[str, str]]:
    """(slug, viewer JSON) per hand: kept by the collector, or made from its kept reports;
    with a hand's decision review (``reviews`` by slug) its marks."""
    from analyze.decisions import viewer_marks

    pages = collector.pages
    if not pages and collector.reports:
        pages = [collector.page_of(r) for r in collector.reports]
    out = []
    for slug, body, names in pages:
        review = (reviews or {}).get(slug)
        out.append((slug, page_json(body, names, {"rv": viewer_marks(review)}
                                    if review is not None else None)))
    return out


def _review_table(collector: Collector, reviews: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Per player accuracy over the reviewed hands (the report's player labels)."""
    if not reviews:
        return []
    from analyze.decisions import player_accuracy

    return player_accuracy((reviews[slug], names) for slug, _, names in collector.pages
                           if slug in reviews)


def render(collector: Collector, output: str | os.PathLike[str], *, lang: str = "en",
           title: str | None = None, max_hand_pages: int | None = None,
           reviews: dict[str, Any] | None = None) -> list[Path]:
    """Write the report: one HTML file, or (output ending in / or an existing directory) an
    index plus one page per hand. Returns the files written.

    The dashboard is HTML; each hand is compact JSON (:mod:`analyze.handview`), embedded once,
    that the viewer (templates/viewer.js) draws when the hand is opened or scrolled into view.
    """
    env = _templates()
    Chart.counter = 0  # chart ids count from 1 in every report: the same input, the same bytes
    dash = collector.dashboard_so_far()
    L = LABELS[lang]
    out = Path(output)
    as_dir = is_directory_output(output)
    rulesets = dash.rulesets_seen or ["?"]
    stamp = {
        "version": tool_version(), "rulesets": ", ".join(rulesets), "many": len(rulesets) > 1,
        "generated": _now().strftime("%Y-%m-%d %H:%M UTC"),
    }
    pages = _hand_pages(collector, reviews)
    if max_hand_pages is not None:
        pages = pages[:max_hand_pages]
    config = {"lang": lang, "L": L, "cards": card_labels(lang), "tokens": list(CARD_TOKENS),
              "focus": collector.focus_player is not None, "single": not as_dir}
    common = {"L": L, "lang": lang, "stamp": stamp, "title": title or L["title"],
              "anonymized": collector.anonymize, "config_json": dumps(config)}
    dashboard = {
        "charts": dashboard_charts(dash, lang),
        "players": dash.player_table(),
        "teams": dash.team_table(),
        "hands": dash.hands,
        "hands_note": (L["first_of"].format(n=len(dash.hands), m=dash.n_hands)
                       if len(dash.hands) < dash.n_hands else None),
        "rulesets": dash.ruleset_table(),
        "n_hands": dash.n_hands,
        "n_clean": dash.n_clean,
        "n_violations": dash.n_violations,
        "bid_players": dash.bid_table("bid_players"),
        "bid_sizes": dash.bid_table("bid_sizes"),
        "auction": dash.auction_summary(),
        "review": _review_table(collector, reviews),
    }
    anchors = {slug for slug, _ in pages}
    dashboard["pages"] = anchors
    for row in dashboard["hands"]:
        row["anchor"] = page_slug(row["match"], row["hand"])
    sections = []
    for slug, data in pages:
        row = json.loads(data)
        sections.append({"anchor": slug, "match": row["m"], "hand": row["h"],
                         "violations": len(row["v"])})
    for i, sec in enumerate(sections):  # the viewer's previous and next hand
        sec["prev"] = sections[i - 1]["anchor"] if i else None
        sec["next"] = sections[i + 1]["anchor"] if i + 1 < len(sections) else None
    template = env.get_template("report.html.j2")
    if not as_dir:
        check_report_file(out)
        text = template.render(
            **common, dashboard=dashboard, sections=sections,
            hands_json=encode([d for _, d in pages]), plotly_gz=_packed_plotly(),
            plotly_src=None, viewer_js=_viewer_js(), viewer_src=None, single=True)
        _write(out, text)
        return [out]
    written: list[Path] = []
    # The site is built in a fresh folder beside the target and swapped in whole at the end,
    # so a reader sees the old site or the new one, never half of each; a directory that is
    # not an earlier report of ours is never replaced (gamelog.outputs).
    with owned_directory(out, "report") as build:
        (build / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
        (build / "viewer.js").write_text(_viewer_js(), encoding="utf-8")
        for sec, (slug, data) in zip(sections, pages, strict=True):
            text = template.render(**common, dashboard=None, sections=[sec],
                                   hands_json=encode([data]), plotly_gz=None,
                                   plotly_src="plotly.min.js", viewer_js=None,
                                   viewer_src="viewer.js", single=False)
            name = f"{slug}.html"
            (build / name).write_text(text, encoding="utf-8")
            written.append(out / name)
        text = template.render(**common, dashboard=dashboard, sections=[], hands_json="[]",
                               plotly_gz=None, plotly_src="plotly.min.js", viewer_js=None,
                               viewer_src="viewer.js", single=False)
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
    with atomic_output(path, "report") as f:
        f.write(text.encode())
