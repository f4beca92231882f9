"""analyze: metrics frames, export tables (read by plain polars and DuckDB), escaped reports."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
from click.testing import CliRunner

import analyze
import replay
from analyze.report import render
from gamelog import dump, dumps, loads
from shengji.cli import cli

ROOT = Path(__file__).resolve().parents[1]
INJECTED = ROOT / "samples" / "matches" / "tractor-2deck-injected.jsonl"


def test_frames_in_one_pass_match_the_replay():
    reports = list(replay.validate(INJECTED))
    collector = analyze.Collector()
    for r in reports:
        collector.add(r)
    f = collector.frames()
    assert f["hands"].height == len(reports)
    assert f["tricks"].height == sum(len(r.tricks) for r in reports)
    assert f["plays"].height == sum(len(t.plays) for r in reports for t in r.tricks)
    assert f["violations"].height == sum(len(r.violations) for r in reports)
    assert f["holdings"].height == 4 * len(reports)
    # per trick: winner's side and points agree with the replay
    first = reports[0].tricks[0]
    row = f["tricks"].row(0, named=True)
    assert (row["winner"], row["points"], row["trick"]) == (first.winner, first.points, 1)
    # the defenders' points of complete hands add up from their tricks plus the kitty award
    hands = f["hands"].filter(pl.col("complete") & (pl.col("violations") == 0))
    assert hands.height > 5
    players = analyze.player_summary(f)
    assert players["tricks_won"].sum() == f["tricks"].height
    assert abs(players["trick_share"].sum() - 1) < 1e-9
    assert set(analyze.violations_by_rule(f)["rule"]) == set(f["violations"]["rule"])


def test_export_tables_load_in_polars_and_join_in_duckdb(tmp_path):
    import duckdb

    result = CliRunner().invoke(cli, ["export", str(INJECTED), "-o", str(tmp_path / "t")])
    assert result.exit_code == 0, result.output
    tables = {p.stem: pl.read_parquet(p) for p in (tmp_path / "t").glob("*.parquet")}
    assert set(tables) == {"matches", "hands", "tricks", "plays", "violations", "holdings",
                           "auctions"}
    assert tables["plays"]["cards"].dtype == pl.List(pl.String)
    con = duckdb.connect()
    rows = con.execute(f"""
        select h.declarer_player, count(*) as plays
        from '{tmp_path / "t" / "plays.parquet"}' p
        join '{tmp_path / "t" / "hands.parquet"}' h using (match, hand)
        where p.is_lead group by 1 order by 1
    """).fetchall()
    assert sum(n for _, n in rows) == tables["tricks"].height
    result = CliRunner().invoke(cli, ["export", str(INJECTED), "-o", str(tmp_path / "c"), "--csv"])
    assert result.exit_code == 0
    csv = pl.read_csv(tmp_path / "c" / "plays.csv")
    assert csv.height == tables["plays"].height


def hostile_sample(tmp_path: Path) -> Path:
    """The 1-deck example with a script in a player's name and a note."""
    events = [e for m in loads((ROOT / "samples/examples/tractor-1deck.jsonl").read_bytes())
              for e in m.events()]
    import msgspec

    head = events[0]
    seats = [msgspec.structs.replace(s, name="<script>alert('x')</script>" if s.seat == 1
                                     else s.name) for s in head.seats]
    events[0] = msgspec.structs.replace(head, seats=seats, tags={"event": "<b>bold</b>"})
    path = tmp_path / "hostile.jsonl"
    dump(events, path)
    return path


def test_report_escapes_what_it_shows(tmp_path):
    path = hostile_sample(tmp_path)
    result = CliRunner().invoke(cli, ["report", str(path), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "r.html").read_text()
    assert "<script>alert('x')</script>" not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert html.count("Plotly.newPlot") >= 2
    assert html.count("<script>") - html.count("&lt;script&gt;") <= 3  # plotly.js + charts


def test_report_self_contained_lang_and_anonymize(tmp_path):
    out = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", str(INJECTED), "-o", str(out), "--lang", "zh",
                                      "--anonymize"])
    assert result.exit_code == 0
    html = out.read_text()
    body = html.split("</head>", 1)[1]
    body = re.sub(r'<script type="application/octet-stream" id="sj-plotly">[^<]*</script>', "",
                  body)  # plotly.js, packed: base64 may spell anything
    assert "闲家得分" in body and "Player 1" in body
    assert "Ann" not in body and "Chen" not in body
    assert "src=\"http" not in html and 'id="sj-plotly"' in html
    assert "shengji-toolkit" in html and "tractor" in html


def test_report_directory_has_an_index_and_a_page_per_hand(tmp_path):
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["report", str(INJECTED), "-o", f"{out}/"])
    assert result.exit_code == 0
    pages = sorted(out.glob("hand-*.html"))
    assert len(pages) == len(list(replay.validate(INJECTED)))
    assert (out / "index.html").exists() and (out / "plotly.min.js").exists()
    index = (out / "index.html").read_text()
    assert all(p.name in index for p in pages)
    assert "<script src=\"plotly.min.js\">" in pages[0].read_text()


def test_render_returns_written_files(tmp_path):
    collector = analyze.collect(INJECTED, keep_reports=True)
    assert render(collector, tmp_path / "x.html") == [tmp_path / "x.html"]
    assert dumps([]) == b""


def test_bid_accuracy_and_auction_tables(tmp_path):
    path = ROOT / "samples" / "matches" / "biaofen-4p.jsonl"
    f = analyze.collect(path).frames()
    auctions = f["auctions"]
    assert auctions.height == f["hands"].height == 12
    assert set(auctions["opening_bid"].drop_nulls().to_list()) <= {80}
    played = auctions.filter(pl.col("defender_points").is_not_null())
    made = (played["defender_points"] < played["winning_bid"]).to_list()
    assert made == played["made"].to_list()
    by_player = analyze.bid_accuracy(f)
    assert by_player["hands"].sum() == played.height
    summary = analyze.auction_summary(f)
    assert summary["auctions"] == 12 and sum(w["count"] for w in summary["winning_bids"]) == 12
    result = CliRunner().invoke(cli, ["export", str(path), "-o", str(tmp_path / "t")])
    assert result.exit_code == 0
    assert pl.read_parquet(tmp_path / "t" / "auctions.parquet").height == 12
    result = CliRunner().invoke(cli, ["report", str(path), "-o", str(tmp_path / "r.html")])
    html = (tmp_path / "r.html").read_text()
    assert 'id="bid-accuracy"' in html and "Winning bid against the defenders" in html


def test_both_languages_label_everything():
    from analyze.report import LABELS

    assert set(LABELS["en"]) == set(LABELS["zh"])


def test_player_summary_without_play_rows_agrees():
    clean = ROOT / "samples" / "matches" / "tractor-2deck.jsonl"  # out of turn leads would differ
    full = analyze.collect(clean).frames()
    lean = analyze.collect(clean, with_plays=False).frames()
    assert lean["plays"].is_empty()
    cols = ["player", "leads", "tricks_won", "points_captured", "hands_declared", "violations"]
    a = analyze.player_summary(full).select(cols).sort("player")
    b = analyze.player_summary(lean).select(cols).sort("player")
    assert a.cast({"leads": pl.UInt32}).equals(b.cast({"leads": pl.UInt32}))
