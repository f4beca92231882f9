"""Issue 25 (hardening, round 3): outputs that never delete a user's files, notation and
imports that cannot crash or exhaust memory, a command line that says what it means.

Tests are named by the issue's item numbers; each failed on the tree before its fix.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import gamelog
from shengji.cli import cli
from tests.helpers import small_match

ROOT = Path(__file__).resolve().parents[1]
MATCH = ROOT / "samples" / "matches" / "tractor-1deck.jsonl"


def run(*args: object, input: bytes | None = None):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False, input=input)


@pytest.fixture
def base(tmp_path: Path) -> Path:
    path = tmp_path / "base.jsonl"
    gamelog.dump(small_match(), path)
    return path


# -- 1. nothing is deleted because its name looks like one of ours --------------------------------

def test_1_backup_folders_named_like_temporaries_survive(tmp_path, base):
    backup = tmp_path / ".tables.2024-backup"
    backup.mkdir()
    (backup / "t.txt").write_text("thesis")
    old_site = tmp_path / ".site.2023-old"
    old_site.mkdir()
    (old_site / "index.html").write_text("mine")
    tmp_like = tmp_path / ".report.html.1999.tmp"
    tmp_like.write_text("draft")
    dead = 2**22 + 12345  # beyond pid_max on most systems: certainly not running
    ours_by_name = tmp_path / f".out.jsonl.shengji-tmp-{dead}-abcd1234"
    ours_by_name.write_text("half")
    assert run("export", base, "-o", tmp_path / "tables").exit_code == 0
    assert run("report", base, "-o", f"{tmp_path / 'site'}/").exit_code == 0
    assert run("report", base, "-o", tmp_path / "report.html").exit_code == 0
    gamelog.dump(small_match(), tmp_path / "out.jsonl")
    assert (backup / "t.txt").read_text() == "thesis"
    assert (old_site / "index.html").read_text() == "mine"
    assert tmp_like.read_text() == "draft"
    assert ours_by_name.read_text() == "half"  # a name proves nothing: listed, never removed
    assert gamelog.outputs.stale_temporaries(tmp_path / "out.jsonl") == [ours_by_name]
    # and nothing of ours is left beside the outputs
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    assert left == sorted([backup.name, old_site.name, tmp_like.name, ours_by_name.name])


# -- 2. the manifest proves what it lists -----------------------------------------------------------

def test_2_a_forged_manifest_deletes_nothing(tmp_path, base):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "thesis.txt").write_text("precious")
    (docs / ".shengji-output.json").write_text(json.dumps({"files": ["thesis.txt"]}))
    result = run("export", base, "-o", docs)
    assert result.exit_code == 2 and "does not prove" in result.output
    assert (docs / "thesis.txt").read_text() == "precious"
    # listing the file with a wrong digest proves nothing either
    (docs / ".shengji-output.json").write_text(json.dumps({
        "written_by": "shengji", "version": 2, "kind": "export", "folders": [],
        "files": {"thesis.txt": {"size": 8, "sha256": "0" * 64}}}))
    assert run("export", base, "-o", docs).exit_code == 2
    assert (docs / "thesis.txt").read_text() == "precious"


def test_2_a_changed_file_in_our_output_is_kept(tmp_path, base):
    out = tmp_path / "tables"
    assert run("export", base, "-o", out).exit_code == 0
    victim = next(p for p in out.iterdir() if p.suffix == ".parquet")
    victim.write_bytes(b"my edits")
    result = run("export", base, "-o", out)
    assert result.exit_code == 2 and "has changed" in result.output
    assert victim.read_bytes() == b"my edits"


def test_2_an_export_is_not_replaced_by_a_report(tmp_path, base):
    out = tmp_path / "t2"
    assert run("export", base, "-o", out).exit_code == 0
    before = sorted(p.name for p in out.iterdir())
    result = run("report", base, "-o", f"{out}/")
    assert result.exit_code == 2 and "not a report" in result.output
    assert sorted(p.name for p in out.iterdir()) == before
    assert run("export", base, "-o", out).exit_code == 0  # the same kind is replaced


def test_2_empty_subfolders_are_not_empty(tmp_path, base):
    out = tmp_path / "work"
    (out / "chapter1" / "figures").mkdir(parents=True)
    result = run("export", base, "-o", out)
    assert result.exit_code == 2
    assert (out / "chapter1" / "figures").is_dir()


def test_2_a_link_to_a_folder_is_written_through(tmp_path, base):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    assert run("export", base, "-o", link).exit_code == 0
    assert link.is_symlink() and (link / ".shengji-output.json").exists()
    assert run("export", base, "-o", link).exit_code == 0
    assert link.is_symlink()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_2_a_link_inside_our_output_is_foreign(tmp_path, base):
    out = tmp_path / "tables"
    assert run("export", base, "-o", out).exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep")
    (out / "mine").symlink_to(elsewhere, target_is_directory=True)
    assert run("export", base, "-o", out).exit_code == 2
    assert (elsewhere / "keep.txt").read_text() == "keep"


def test_2_record_outputs_never_overwrite_other_files(tmp_path, base):
    thesis = tmp_path / "thesis.txt"
    thesis.write_text("chapter one")
    result = run("convert", base, thesis)
    assert result.exit_code == 2 and "refusing to overwrite" in result.output
    assert thesis.read_text() == "chapter one"
    notes = tmp_path / "notes.jsonl"
    notes.write_text("my own notes, not a record\n")
    assert run("convert", base, notes).exit_code == 2
    assert notes.read_text() == "my own notes, not a record\n"
    # an earlier record of ours is replaced
    out = tmp_path / "copy.jsonl"
    assert run("convert", base, out).exit_code == 0
    assert run("convert", base, out).exit_code == 0
    schema = tmp_path / "schema.json"
    schema.write_text("not json at all")
    assert run("schema", "-o", schema).exit_code == 2
    assert schema.read_text() == "not json at all"


def test_2_an_interrupted_write_leaves_nothing_behind(tmp_path):
    def boom():
        yield from small_match()
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        gamelog.dump(boom(), tmp_path / "x.jsonl")
    with pytest.raises(KeyboardInterrupt):
        gamelog.dump(boom(), tmp_path / "ds")
    assert list(tmp_path.iterdir()) == []


def test_2_an_old_output_is_removed_only_by_its_listed_files(tmp_path, base):
    out = tmp_path / "tables"
    assert run("export", base, "-o", out).exit_code == 0
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    assert run("export", base, "-o", out).exit_code == 0
    assert {p.name: p.read_bytes() for p in out.iterdir()}.keys() == first.keys()
    shutil.rmtree(out)


# -- 3, 4, 6. the notation: no crash, no blow-up, located errors ----------------------------------

SJN_OK = """Match n1  ruleset tractor  4 players  1 deck(s)  format 1.2
  seat 0: Ann team 0

Hand 1 of match n1
  seat 0 holds ♠A
  events:
      0 hand level="2"
      1 deal
"""


def _read_sjn(tmp_path: Path, text: str | bytes, name: str = "x.sjn"):
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    issues: list = []
    hands = list(gamelog.read_hands(path, issues=issues))
    return hands, issues


def _hand_of_other_match(text: str) -> str:
    return text.replace("n1", "n2")


@pytest.mark.parametrize("bad", [
    "Hand " + "9" * 5000 + " of match n1",
    "      " + "7" * 5000 + " play seat 0 ♠A",
    "Match big  ruleset tractor  " + "4" * 5000 + " players  1 deck(s)  format 1.2",
    "      5 play seat " + "1" * 5000 + " ♠A",
    "      5 play seat 0 ♠A x=" + "1" * 5000,
    "      5 play seat 0 ♠A foo=" + "[" * 100_000,
    "  options: " + "[" * 100_000,
    "  seat 0 holds +999999999999 hidden",
    "  seat 100000000 holds ♠A",
])
def test_3_4_hostile_numbers_and_nesting_are_located_errors(tmp_path, bad):
    text = SJN_OK + bad + "\n" + _hand_of_other_match(SJN_OK)
    hands, issues = _read_sjn(tmp_path, text)
    assert [h.match for h in hands] == ["n1", "n2"] or len(hands) >= 1
    assert issues, "the hostile line is reported"
    assert all("internal" not in str(i) and "Traceback" not in str(i) for i in issues)
    assert any("line 9" in str(i) or "line" in str(i) for i in issues)
    result = run("validate", tmp_path / "x.sjn", "--allow-incomplete")
    assert result.exit_code == 2 and "internal error" not in result.output


def test_4_a_quadratic_hand_line_is_read_in_linear_time(tmp_path):
    import time

    line = "Hand 1 of match " + "  (" * 40_000
    start = time.process_time()
    _read_sjn(tmp_path, SJN_OK + line + "\n")
    assert time.process_time() - start < 2.0
    line = "Match " + "  ruleset x  " * 20_000
    start = time.process_time()
    _read_sjn(tmp_path, line + "\n" + SJN_OK)
    assert time.process_time() - start < 2.0


def test_4_a_huge_note_line_is_skipped_with_bounded_memory(tmp_path):
    import tracemalloc

    path = tmp_path / "x.sjn"
    with open(path, "w", encoding="utf-8") as f:
        f.write(SJN_OK)
        f.write("# " + "n" * (40 << 20) + "\n")  # 40 MB: past the 16 MiB line limit
        f.write(_hand_of_other_match(SJN_OK))
    tracemalloc.start()
    issues: list = []
    hands = list(gamelog.read_hands(path, issues=issues))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [h.match for h in hands] == ["n1", "n2"]
    assert any("longer than the 16 MiB limit" in str(i) for i in issues)
    assert peak < 40 << 20


def test_6_invalid_utf8_is_one_bad_line(tmp_path):
    raw = SJN_OK.encode() + b"      2 declare seat 0 \xff\xfe\n" + _hand_of_other_match(SJN_OK).encode()
    hands, issues = _read_sjn(tmp_path, raw)
    assert [h.match for h in hands] == ["n1", "n2"]
    assert len(issues) == 1 and "line 9" in str(issues[0]) and "invalid UTF-8" in str(issues[0])


def test_6_utf16_gets_a_hint(tmp_path):
    hands, issues = _read_sjn(tmp_path, SJN_OK.encode("utf-16"))
    assert hands == [] and len(issues) == 1
    assert "UTF-16" in str(issues[0]) and "x.sjn" in str(issues[0])


def test_9_a_mistyped_event_type_gets_a_suggestion(tmp_path):
    _hands, issues = _read_sjn(tmp_path, SJN_OK + "      2 plya seat 0 ♠A\n")
    assert any("did you mean 'play'" in str(i) for i in issues)


# -- 5. import ----------------------------------------------------------------------------------

SHARED_LOG = ROOT.parent / "shared" / "botzone" / "logs.json"


def _botzone_log() -> dict:
    from gamelog.botzone import write_log

    hand = next(iter(gamelog.read_hands(ROOT / "samples" / "examples")))
    for h in gamelog.read_hands(ROOT / "samples" / "matches" / "tractor-2deck.jsonl"):
        if h.start is not None and (h.start.first_draw or 0) == 0:
            hand = h
            break
    return write_log(hand)


def test_5_a_deeply_nested_log_is_one_bad_log(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_botzone_log()))
    deep = tmp_path / "deep.json"
    deep.write_text('{"log": ' + "[" * 100_000 + "]" * 100_000 + "}")
    out = tmp_path / "out.jsonl"
    result = run("import", "--from", "botzone", deep, good, "-o", out)
    assert result.exit_code == 2 and "deep.json" in result.output
    assert "internal error" not in result.output and "nested too deeply" in result.output
    assert [h.match for h in gamelog.read_hands(out)] == ["botzone-good"]


@pytest.mark.parametrize("level", ["<script>", {"x": 1}, "11", True])
def test_5_the_level_is_checked(tmp_path, level):
    log = _botzone_log()
    log["initdata"]["level"] = level
    path = tmp_path / "1.json"
    path.write_text(json.dumps(log))
    result = run("import", "--from", "botzone", path, "-o", tmp_path / "out.jsonl")
    assert result.exit_code == 2 and "initdata.level" in result.output


def test_5_logs_of_the_same_name_stay_apart(tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "1.json").write_text(json.dumps(_botzone_log()))
    out = tmp_path / "out.jsonl"
    result = run("import", "--from", "botzone", tmp_path / "a" / "1.json",
                 tmp_path / "b" / "1.json", "-o", out)
    assert result.exit_code == 0, result.output
    assert sorted(h.match for h in gamelog.read_hands(out)) == ["botzone-a-1", "botzone-b-1"]


@pytest.mark.parametrize("key", ["-1", "99999999999999", "x"])
def test_5_an_answer_keyed_by_a_non_seat_is_reported(tmp_path, key):
    log = _botzone_log()
    entry = next(e for e in log["log"] if "output" not in e)
    entry[key] = entry.pop(next(iter(entry)))
    path = tmp_path / "1.json"
    path.write_text(json.dumps(log))
    result = run("import", "--from", "botzone", path, "-o", tmp_path / "out.jsonl")
    assert result.exit_code == 2 and "not a seat" in result.output


def test_5_a_game_record_is_told_apart(tmp_path):
    result = run("import", "--from", "botzone", MATCH, "-o", tmp_path / "out.jsonl")
    assert result.exit_code == 2 and "game record" in result.output
    assert "Extra data" not in result.output


@pytest.mark.skipif(not SHARED_LOG.exists() and not os.environ.get("CI"),
                    reason="the platform's sample log is not in ../shared/")
def test_5_the_platform_log_imports_in_ci(tmp_path):
    out = tmp_path / "out.jsonl"
    result = run("import", "--from", "botzone", SHARED_LOG, "-o", out)
    assert result.exit_code == 0, result.output
    hands = list(gamelog.read_hands(out))
    assert len(hands) == 1 and len(hands[0].events) == 87  # 88 with the header
    result = run("validate", out)
    assert result.exit_code == 1 and "stops after trick 16" in result.output


# -- 8. review budget bounds ------------------------------------------------------------------

@pytest.mark.parametrize("args", [["--samples", "1000000000"], ["--confirm", "100000000"]])
def test_8_review_budget_has_an_upper_bound(args):
    result = run("review", MATCH, *args)
    assert result.exit_code == 2 and "range" in result.output


def test_8_report_review_samples_has_an_upper_bound(tmp_path):
    result = run("report", MATCH, "--review", "--review-samples", "100000", "-o",
                 tmp_path / "r.html")
    assert result.exit_code == 2


# -- 9. the newcomer's list ---------------------------------------------------------------------

@pytest.mark.parametrize("args, says", [
    (["simulate", "--ruleset", "tracktor", "-o", "{tmp}/x.jsonl"], "did you mean 'tractor'"),
    (["simulate", "--decks", "5", "-o", "{tmp}/x.jsonl"], "decks must be one of"),
    (["simulate", "--players", "5", "-o", "{tmp}/x.jsonl"], "players must be one of"),
    (["validate", "--ruleset", "tracktor", str(MATCH)], "did you mean 'tractor'"),
    (["validate", "-O", "deks=3", str(MATCH)], "did you mean 'decks'"),
    (["report", "--ruleset", "tracktor", str(MATCH), "-o", "{tmp}/r.html"], "did you mean"),
])
def test_9_a_wrong_ruleset_or_option_is_one_usage_error(tmp_path, args, says):
    result = run(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert result.exit_code == 2
    assert says in result.output and "internal error" not in result.output
    assert result.output.count("Error") == 1
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", ["validate", "report", "show", "review", "select"])
@pytest.mark.parametrize("choice", [["--player", "Nobody"], ["--match", "nomatch"],
                                    ["--hand", "900-901"]])
def test_9_nothing_matched_is_said_and_exits_2(tmp_path, command, choice):
    out = {"report": ["-o", tmp_path / "r.html"], "select": ["-o", tmp_path / "s.jsonl"]}
    result = run(command, MATCH, *choice, *out.get(command, []))
    assert result.exit_code == 2 and "no hand matched" in result.output
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", ["validate", "show", "review"])
def test_9_no_record_at_all_exits_2(tmp_path, command):
    (tmp_path / "notes.md").write_text("no records here")
    result = run(command, tmp_path)
    assert result.exit_code == 2 and "no hand found" in result.output


def test_9_a_report_name_without_slash_or_suffix_is_refused(tmp_path):
    result = run("report", MATCH, "-o", tmp_path / "site")
    assert result.exit_code == 2 and "site/" in result.output and "site.html" in result.output
    assert not (tmp_path / "site").exists()


def test_9_the_same_filters_on_every_reading_command(tmp_path):
    shown = run("show", MATCH, "--hand", "2-3")
    assert shown.exit_code == 0 and shown.output.count("\nHand ") == 2
    checked = run("validate", MATCH, "--hand", "2-3", "--format", "json")
    assert [json.loads(x)["hand"] for x in checked.output.splitlines()] == [2, 3]
    parallel = run("validate", MATCH, "--hand", "2-3", "--format", "json", "-j", "2")
    assert parallel.output == checked.output
    whole = run("validate", MATCH, "--format", "json")
    assert [x for x in whole.output.splitlines() if json.loads(x)["hand"] in (2, 3)] == \
        checked.output.splitlines()  # the same verdicts as in the whole match
    player = next(iter(gamelog.read_hands(MATCH))).header.seats[0].name
    assert run("validate", MATCH, "--player", player, "-q").exit_code in (0, 1)


def test_9_select_writes_the_chosen_hands_and_merges_files(tmp_path):
    other = ROOT / "samples" / "matches" / "tractor-2deck.jsonl"
    out = tmp_path / "chosen.jsonl"
    result = run("select", MATCH, MATCH, other, "--hand", "2-3", "-o", out)
    assert result.exit_code == 0 and "read more than once" in result.output
    hands = [(h.match, h.number) for h in gamelog.read_hands(out)]
    assert len(hands) == len(set(hands)) == 4
    assert {n for _, n in hands} == {2, 3}
    assert run("validate", out).exit_code == 0
    # a folder of records in, a Parquet data set out
    result = run("select", ROOT / "samples" / "matches", "--match",
                 "tractor-1deck-1-0001", "-o", tmp_path / "ds")
    assert result.exit_code == 0
    assert {h.match for h in gamelog.read_hands(tmp_path / "ds")} == {"tractor-1deck-1-0001"}


def test_9_show_cuts_long_tags_unless_full(tmp_path):
    log = tmp_path / "b.jsonl"
    assert run("import", "--from", "botzone", SHARED_LOG if SHARED_LOG.exists() else
               _write_log(tmp_path), "-o", log).exit_code == 0
    shown = run("show", log)
    assert max(len(line) for line in shown.output.splitlines()) < 400
    assert "--full shows all" in shown.output
    full = run("show", log, "--full")
    assert max(len(line) for line in full.output.splitlines()) > 400 or \
        "--full shows all" not in full.output


def _write_log(tmp_path: Path) -> Path:
    path = tmp_path / "1.json"
    path.write_text(json.dumps(_botzone_log()))
    return path


def test_9_review_progress_counts_only_the_hands_reviewed(tmp_path, monkeypatch):
    import shengji.cli as cli_module

    lengths: list[int] = []
    real = cli_module.click.progressbar

    def spy(*a, **k):
        lengths.append(k.get("length"))
        return real(*a, **k)

    monkeypatch.setattr(cli_module.click, "progressbar", spy)
    result = run("review", MATCH, "--hand", "2", "--samples", "1", "--confirm", "0",
                 "--progress")
    assert result.exit_code == 0, result.output
    assert lengths == [1]
    lengths.clear()
    result = run("report", MATCH, "--hand", "2", "--review", "--review-samples", "1",
                 "--progress", "-o", tmp_path / "r.html")
    assert result.exit_code == 0, result.output
    assert lengths[-1] == 1  # the review's bar: one hand, not the match's 33


def test_9_legal_follows_past_the_limit_are_up_to_the_limit_never_none():
    from replay.api import Position, judge_follow, legal_follows

    leader = "7H 7H 8H 8H 9H 9H " + "2C " * 19
    follower = "3H 4H 5H 6H TH JH QH KH AH 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 3D 4D 5D 6D"
    p = Position.of([leader.strip(), follower, "AC", "KC"], trump="S", level="2",
                    ruleset="tractor", decks=2, leader=0)
    p = p.play(0, "7H 7H 8H 8H 9H 9H")
    found = legal_follows(p, 1, limit=50)
    assert 0 < len(found) <= 50
    assert all(judge_follow(p, 1, " ".join(map(str, f))) is None for f in found)
    assert all(sum(str(c).endswith("H") for c in f) == 6 for f in found)  # all six hearts


def test_9_export_writes_rows_for_the_chosen_hands_only(tmp_path):
    import polars as pl

    tables = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"t{jobs}"
        result = run("export", MATCH, "--hand", "2-3", "-j", jobs, "-o", out)
        assert result.exit_code == 0, result.output
        tables[jobs] = {p.name: pl.read_parquet(p) for p in sorted(out.glob("*.parquet"))}
    assert sorted(tables["1"]["hands.parquet"]["hand"].to_list()) == [2, 3]
    assert sorted(set(tables["1"]["plays.parquet"]["hand"].to_list())) == [2, 3]
    for name, frame in tables["1"].items():
        assert frame.equals(tables["2"][name]), name
    whole = tmp_path / "whole"
    assert run("export", MATCH, "-o", whole).exit_code == 0
    all_hands = pl.read_parquet(whole / "hands.parquet").filter(pl.col("hand").is_in([2, 3]))
    assert all_hands.equals(tables["1"]["hands.parquet"])  # the same rows as in the whole


def test_2_a_parquet_data_set_output_is_checked_as_a_directory(tmp_path, base):
    """convert / select / import to a name without a suffix write a Parquet data set, and
    replace an earlier one of theirs (the output check must not ask the name for a format)."""
    out = tmp_path / "ds"
    result = run("convert", base, out)
    assert result.exit_code == 0, result.output
    for _ in range(2):
        result = run("select", base, "-o", out)
        assert result.exit_code == 0, result.output
    assert {h.match for h in gamelog.read_hands(out)} == {"m1"}
