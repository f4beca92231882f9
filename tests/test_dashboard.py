"""Issue 15: the report's dashboard gathered slice by slice (analyze/dashboard.py) gives the
figures of the whole frames, keeps only the first rows of what it lists, and says so."""

from __future__ import annotations

import random
import re
from pathlib import Path

import polars as pl
from click.testing import CliRunner

import analyze
from analyze.dashboard import Dashboard
from shengji.cli import cli

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "matches"
INPUTS = [SAMPLES / f"{n}.jsonl" for n in ("tractor-2deck", "biaofen-4p", "wanfen",
                                            "tractor-2deck-injected")]


def _slices(frames: dict[str, pl.DataFrame], rng: random.Random
            ) -> list[dict[str, pl.DataFrame]]:
    """The frames cut at random hand boundaries, each match listed in the slice of its
    first hand (as the collector's slices are)."""
    keys = frames["hands"].select("match", "hand").rows()
    cuts = sorted(rng.sample(range(1, len(keys)), 6))
    out, listed = [], set()
    for lo, hi in zip([0, *cuts], [*cuts, len(keys)], strict=True):
        part = pl.DataFrame(keys[lo:hi], schema=["match", "hand"], orient="row").with_columns(
            pl.col("hand").cast(pl.Int32))
        piece = {name: (frame.join(part, on=["match", "hand"], how="semi")
                        if {"match", "hand"} <= set(frame.columns) else frame)
                 for name, frame in frames.items()}
        new = set(part["match"].to_list()) - listed
        listed |= new
        piece["matches"] = frames["matches"].filter(pl.col("match").is_in(sorted(new)))
        out.append(piece)
    return out


def _figures(dash: Dashboard) -> tuple:
    return (dash.player_table(), dash.player_table(by_ruleset=True), dash.team_table(),
            dash.ruleset_table(), dash.bid_table("bid_players"), dash.bid_table("bid_sizes"),
            dash.auction_summary(), dash.rule_counts(),
            {k: sorted(v.items()) for k, v in dash.histograms.items()},
            dash.n_hands, dash.n_clean, dash.n_violations, dash.hands, dash.level_series(),
            dash.race_series(), dash.scatter, dash.awards)


def test_slices_give_the_figures_of_the_whole():
    frames = analyze.collect([str(p) for p in INPUTS], with_plays=False,
                             players_by_id=True).frames()
    whole = Dashboard()
    whole.add(frames)
    for seed in range(3):
        sliced = Dashboard()
        for piece in _slices(frames, random.Random(seed)):
            sliced.add(piece)
        assert _figures(sliced) == _figures(whole)
    # and the figures are those of the frame functions
    players = analyze.player_summary(frames)
    assert players.height == len(whole.player_table(by_ruleset=False))
    assert players["tricks_won"].sum() == frames["tricks"].height
    kept = frames["hands"].filter(pl.col("ruleset") == "tractor")["declarer_kept_deal"].mean()
    row = next(r for r in whole.ruleset_table() if r["ruleset"] == "tractor")
    assert row["kept"] == kept and row["hands"] == frames["hands"].filter(
        pl.col("ruleset") == "tractor").height


def test_only_the_first_rows_are_kept_and_the_page_says_so(tmp_path, monkeypatch):
    import analyze.dashboard as dashboard

    monkeypatch.setattr(dashboard, "HAND_ROWS", 5)
    monkeypatch.setattr(dashboard, "SERIES", 1)
    monkeypatch.setattr(dashboard, "POINTS", 3)
    out = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", *map(str, INPUTS[:3]), "-o", str(out),
                                      "--no-progress"])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    rows = re.search(r'<table id="hand-index">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    assert rows.count("<tr") == 5
    total = int(re.search(r"the first 5 of (\d+)", page).group(1))
    assert total > 5 and "shengji export gives every hand" in page
    assert "(the first 1 of " in page  # the level chart draws one match of several
    assert "(the first 3 of " in page  # the bid chart three hands



def test_charts_read_at_any_scale(tmp_path):
    """Issue 24: the level and race charts show one match at a time from a menu of the
    matches, every violated rule has its label, every axis of the dashboard's charts is
    titled, and the team lines are named in the report's language."""
    import json

    from analyze.metrics import collect
    from analyze.report import LABELS, dashboard_charts

    paths = [SAMPLES / f"{n}.jsonl" for n in ("tractor-2deck", "tractor-2deck-injected",
                                              "wanfen", "four-deck-injected")]
    dash = collect(paths).dashboard_so_far()
    for lang in ("en", "zh"):
        figures = [json.loads(c.json) for c in dashboard_charts(dash, lang)]
        by_title = {f["layout"]["title"]["text"].split(" (")[0]: f for f in figures}
        levels = by_title[LABELS[lang]["chart_levels"]]
        matches = {m for m, _ in dash.level_series()}
        assert len(matches) > 1
        menu = levels["layout"]["updatemenus"][0]["buttons"]
        assert len(menu) == len(matches)
        assert sum(bool(t.get("visible", True)) for t in levels["data"]) == 2  # one match
        assert {t["name"] for t in levels["data"]} == {f"{LABELS[lang]['team']} {k}"
                                                       for k in (0, 1)}
        rules = by_title[LABELS[lang]["chart_rules"]]
        assert rules["layout"]["yaxis"]["dtick"] == 1 and rules["layout"]["yaxis"]["type"] == \
            "category"
        assert rules["layout"]["height"] >= 22 * len(rules["data"][0]["y"])
        for f in figures:
            layout = f["layout"]
            assert layout["xaxis"].get("title", {}).get("text"), layout["title"]
            assert layout["yaxis"].get("title", {}).get("text"), layout["title"]
