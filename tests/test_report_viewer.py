"""The report's hand data and focus options, without a browser: which hands a report holds,
what each hand's viewer data says (holdings as play starts, violations at their plays), that
no record string can end the embedded JSON, players keyed by id, and rulesets kept apart."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import analyze
import replay
from analyze.handview import hand_data
from shengji.cli import cli

ROOT = Path(__file__).resolve().parents[1]
MATCHES = ROOT / "samples" / "matches"
INJECTED = MATCHES / "tractor-2deck-injected.jsonl"
CLEAN = MATCHES / "tractor-2deck.jsonl"


def embedded_hands(html: str) -> list[dict]:
    found = re.search(r'<script type="application/json" id="sj-hands">(.*?)</script>', html,
                      re.S)
    assert found is not None
    return json.loads(found.group(1))


def report_hands(tmp_path: Path, *args: str) -> list[tuple[str, int]]:
    out = tmp_path / "r.html"
    if out.exists():
        out.unlink()
    result = CliRunner().invoke(cli, ["report", *args, "-o", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    return [(h["m"], h["h"]) for h in embedded_hands(out.read_text())]


def test_focus_options_choose_the_hands(tmp_path):
    everything = [(r.match, r.hand) for r in replay.validate([INJECTED, CLEAN])]
    assert report_hands(tmp_path, str(INJECTED), str(CLEAN)) == everything
    clean_match = next(r.match for r in replay.validate(CLEAN))
    assert report_hands(tmp_path, str(INJECTED), str(CLEAN), "--match", clean_match) == [
        k for k in everything if k[0] == clean_match]
    assert report_hands(tmp_path, str(INJECTED), "--hand", "3-5") == [
        k for k in everything if k[0] != clean_match and 3 <= k[1] <= 5]
    assert report_hands(tmp_path, str(INJECTED), "--hand", "4") == [
        k for k in everything if k[0] != clean_match and k[1] == 4]
    bad = [(r.match, r.hand) for r in replay.validate(INJECTED) if r.violations]
    assert 0 < len(bad) < len(everything)
    assert report_hands(tmp_path, str(INJECTED), "--violations-only") == bad
    # issue 25: a choice that matches nothing says so (exit 2) and writes no empty report
    nobody = CliRunner().invoke(cli, ["report", str(INJECTED), "--player", "Nobody", "-o",
                                      str(tmp_path / "none.html")])
    assert nobody.exit_code == 2 and "no hand matched --player Nobody" in nobody.output
    assert not (tmp_path / "none.html").exists()
    assert report_hands(tmp_path, str(INJECTED), "--player", "Bo", "--hand", "2") == [
        k for k in everything if k[0] != clean_match and k[1] == 2]


def test_the_player_asked_for_sits_at_the_bottom(tmp_path):
    out = tmp_path / "r.html"
    assert CliRunner().invoke(cli, ["report", str(INJECTED), "-o", str(out), "--player",
                                    "bot-3"]).exit_code == 0
    hands = embedded_hands(out.read_text())
    assert hands and all(h["me"] == 2 for h in hands)  # bot-3 is Chen, seat 2


@pytest.mark.parametrize("args", [["--hand", "7-3"], ["--hand", "x"], ["--hand", "-"],
                                  ["--max-hands", "-1"]])
def test_bad_focus_values_are_usage_errors(tmp_path, args):
    result = CliRunner().invoke(cli, ["report", str(INJECTED), "-o", str(tmp_path / "r.html"),
                                      *args])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert not (tmp_path / "r.html").exists()


def test_holdings_as_play_starts_are_the_cards_each_seat_plays():
    checked = 0
    for path in sorted(MATCHES.glob("*.jsonl")):
        if "injected" in path.name or "labels" in path.name:
            continue
        for report in replay.validate(path):
            if report.violations or not report.complete or report.surrendered:
                continue
            data = hand_data(report, ["a", "b", "c", "d"][:report.record.header.players], "x")
            played = [Counter() for _ in range(len(data["start"]))]
            for t in report.tricks:
                for p in t.plays:
                    played[p.seat].update(p.cards)
            assert [Counter(h) for h in data["start"]] == played, (path.name, report.hand)
            checked += 1
    assert checked > 100


def test_each_violation_points_at_its_play():
    placed = 0
    for report in replay.validate(INJECTED):
        data = hand_data(report, ["a", "b", "c", "d"], "x")
        flat = [(t.number, p.seat) for t in report.tricks for p in t.plays]
        for v, row in zip(report.violations, data["v"], strict=True):
            assert row[0] == v.rule and row[1] == v.message
            if v.trick is not None and v.seat is not None and (v.trick, v.seat) in flat:
                assert row[6] is not None, (report.hand, v.rule)
            if row[6] is not None:
                assert flat[row[6]] == (v.trick, v.seat)
                placed += 1
    assert placed >= 3


def test_no_record_string_can_end_the_embedded_json(tmp_path):
    lines = INJECTED.read_text().splitlines()
    head = json.loads(lines[0])
    hostile = "</script><script>alert(1)</script><!--"
    head["seats"][0]["name"] = hostile
    (tmp_path / "m.jsonl").write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    out = tmp_path / "r.html"
    assert CliRunner().invoke(cli, ["report", str(tmp_path / "m.jsonl"), "-o",
                                    str(out)]).exit_code in (0, 1)
    html = out.read_text()
    assert "<script>alert(1)" not in html and "<!--" not in html.split("</head>", 1)[1]
    assert embedded_hands(html)[0]["names"][0] == hostile


def test_players_are_keyed_by_id_across_matches(tmp_path):
    lines = CLEAN.read_text().splitlines()
    head = json.loads(lines[0])
    first = head["match"]

    def copy(match: str, seat0: dict) -> list[str]:
        h = dict(head, match=match, seats=[dict(seat0, seat=0), *head["seats"][1:]])
        return [json.dumps(h)] + [line.replace(f'"match":"{first}"', f'"match":"{match}"')
                                  for line in lines[1:]]

    text = copy("a", {"player": "p1", "name": "Ann"}) + copy("b", {"player": "p9", "name": "Ann"}) \
        + copy("c", {"player": "p1", "name": "Annie"})
    (tmp_path / "m.jsonl").write_text("\n".join(text) + "\n")
    players = analyze.player_summary(analyze.collect(tmp_path / "m.jsonl",
                                                     players_by_id=True).frames())
    names = set(players["player"].to_list())
    assert {"Ann", "Ann (p9)"} <= names and "Annie" not in names
    hands = len(list(replay.validate(CLEAN)))
    declared = dict(zip(players["player"], players["hands_declared"], strict=True))
    assert declared["Ann"] >= declared["Ann (p9)"] > 0
    assert sum(declared.values()) == 3 * hands
    out = tmp_path / "r.html"
    assert CliRunner().invoke(cli, ["report", str(tmp_path / "m.jsonl"), "-o",
                                    str(out)]).exit_code == 0
    assert "<td>Ann (p9)</td>" in out.read_text()


def test_a_dashboard_over_several_rulesets_keeps_their_figures_apart(tmp_path):
    out = tmp_path / "r.html"
    paths = [str(CLEAN), str(MATCHES / "biaofen-3p.jsonl"), str(MATCHES / "four-deck.jsonl")]
    assert CliRunner().invoke(cli, ["report", *paths, "-o", str(out)]).exit_code == 0
    html = out.read_text()
    assert 'id="rulesets"' in html
    for ruleset in ("tractor", "biaofen", "four-deck"):
        assert f"Defenders' points per hand · {ruleset}" in html
    players = re.search(r'<table id="players">.*?</table>', html, re.S).group(0)
    assert players.count(">biaofen</td>") == 3 and players.count(">tractor</td>") == 4


def test_max_hands_writes_that_many_pages_and_the_index_links_only_to_them(tmp_path):
    site = tmp_path / "site"
    result = CliRunner().invoke(cli, ["report", str(INJECTED), "-o", f"{site}/", "--max-hands",
                                      "2"])
    assert result.exit_code == 0, result.output
    index = (site / "index.html").read_text()
    links = re.findall(r'href="(hand-[^"]+\.html)"', index)
    pages = sorted(p.name for p in site.glob("hand-*.html"))
    assert len(pages) == 2 and sorted(links) == pages
    assert index.count('<tr') > len(pages) + 2  # the dashboard still lists every hand
    page = (site / pages[0]).read_text()
    assert '<script src="viewer.js">' in page and len(embedded_hands(page)) == 1
    assert (site / "viewer.js").exists()
