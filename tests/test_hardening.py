"""Issue 12: never destroy a user's files, never lose good records, refuse hostile input fast.

One test (or more) per defect found, numbered as in the issue; each failed before its fix.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import gamelog
import replay
from gamelog import FORMAT_VERSION, dump
from gamelog.errors import GamelogIOError
from shengji.cli import cli
from tests.helpers import small_match

ROOT = Path(__file__).resolve().parents[1]
MATCH = ROOT / "samples" / "matches" / "tractor-2deck.jsonl"
LINES = MATCH.read_bytes().splitlines(keepends=True)
N = len({json.loads(x)["hand"] for x in LINES}) - 1  # hands in the sample match


def run(*args: object, input: bytes | None = None):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False, input=input)


def hands_of(path: Path) -> int:
    return sum(1 for _ in gamelog.read_hands(path))


# -- data loss ---------------------------------------------------------------------------------

def test_01_report_never_empties_a_directory_it_did_not_write(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    shutil.copy(MATCH, games / "m.jsonl")
    result = run("report", games, "-o", f"{games}/")  # the input folder itself
    assert result.exit_code == 2 and (games / "m.jsonl").exists()
    docs = tmp_path / "mydocs"
    docs.mkdir()
    (docs / "thesis.txt").write_text("precious")
    result = run("report", MATCH, "-o", f"{docs}/")
    assert result.exit_code == 2 and "not written by shengji" in result.output
    assert (docs / "thesis.txt").read_text() == "precious"
    # an earlier report of ours is replaced, and a file added to it since is never deleted
    site = tmp_path / "site"
    assert run("report", MATCH, "-o", f"{site}/", "--max-hands", "2").exit_code == 0
    assert (site / "index.html").exists() and (site / ".shengji-output.json").exists()
    assert run("report", MATCH, "-o", f"{site}/", "--max-hands", "1").exit_code == 0
    assert len(list(site.glob("hand-*.html"))) == 1
    (site / "notes.txt").write_text("mine")
    assert run("report", MATCH, "-o", f"{site}/").exit_code == 2
    assert (site / "notes.txt").read_text() == "mine"
    # a single-file report never overwrites a file that is not a report of ours
    precious = tmp_path / "page.html"
    precious.write_text("<html>my page</html>")
    assert run("report", MATCH, "-o", precious).exit_code == 2
    assert precious.read_text() == "<html>my page</html>"
    out = tmp_path / "r.html"
    assert run("report", MATCH, "-o", out, "--max-hands", "1").exit_code == 0
    assert run("report", MATCH, "-o", out, "--max-hands", "1").exit_code == 0  # ours: replaced


def test_01_output_that_contains_an_input_is_refused(tmp_path):
    shutil.copy(MATCH, tmp_path / "m.jsonl")
    for command in ("report", "export"):
        result = run(command, tmp_path / "m.jsonl", "-o", f"{tmp_path}/")
        assert result.exit_code == 2 and "input" in result.output, command
    assert (tmp_path / "m.jsonl").exists()


def good_and_bad(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(MATCH, folder / "a.jsonl")
    dump(gamelog.load(MATCH), folder / "b.parquet")
    data = (folder / "b.parquet").read_bytes()
    (folder / "b.parquet").write_bytes(data[: len(data) // 2])  # truncated
    (folder / "c.jsonl").write_bytes(MATCH.read_bytes().replace(b"tractor-2deck-2-0001",
                                                                b"other-match"))
    return folder


def test_02_one_unreadable_file_does_not_stop_the_run(tmp_path):
    folder = good_and_bad(tmp_path)
    issues: list = []
    assert len(list(gamelog.read_hands(folder, issues=issues))) == 2 * N
    assert any("b.parquet" in str(i) for i in issues)
    for jobs in ("1", "2"):
        result = run("validate", folder, "-q", "-j", jobs)
        assert result.exit_code == 2
        assert f"{2 * N} hand(s)" in result.output and "b.parquet" in result.output


def test_02_a_bad_part_of_a_parquet_data_set_loses_only_itself(tmp_path):
    data = tmp_path / "set"
    events = list(gamelog.files.events_of(gamelog.read(MATCH, with_headers=True)))
    gamelog.files._parquet().write_dataset(events, data, rows_per_file=500)
    parts = sorted(data.glob("part-*.parquet"))
    assert len(parts) >= 3
    parts[1].write_bytes(b"PAR1 broken")
    issues: list = []
    hands = list(gamelog.read_hands(data, issues=issues))
    assert len(hands) > 6 and any(parts[1].name in str(i) for i in issues)


@pytest.mark.parametrize("damage", ["crc", "trailing", "truncated"])
def test_02_gzip_damage_keeps_every_line_that_decoded(tmp_path, damage):
    packed = bytearray(gzip.compress(MATCH.read_bytes()))
    if damage == "crc":
        packed[-8] ^= 0xFF
    elif damage == "trailing":
        packed += b"garbage!"
    else:
        packed = packed[: len(packed) - 2000]
    path = tmp_path / "m.jsonl.gz"
    path.write_bytes(bytes(packed))
    issues: list = []
    hands = list(gamelog.read_hands(path, issues=issues))
    assert len(hands) >= (N if damage != "truncated" else N - 4)
    assert len(issues) == 1 and "m.jsonl.gz" in str(issues[0])
    result = run("convert", path, tmp_path / "out.jsonl")
    assert result.exit_code == 2 and (tmp_path / "out.jsonl").exists()
    for jobs in ("1", "2"):
        result = run("validate", path, "-q", "-j", jobs)
        assert f"{len(hands)} hand(s)" in result.output, (jobs, result.output)


def test_03_export_swaps_its_tables_in_whole(tmp_path, monkeypatch):
    out = tmp_path / "tables"
    assert run("export", MATCH, "-o", out).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    import analyze.export as export

    real = export.pq.ParquetWriter

    class Dying(real):  # the disk fills up while the third table is written
        count = 0

        def __init__(self, *args, **kwargs):
            Dying.count += 1
            if Dying.count == 3:
                raise OSError(28, "No space left on device")
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(export.pq, "ParquetWriter", Dying)
    other = tmp_path / "c.jsonl"
    other.write_bytes(MATCH.read_bytes().replace(b"tractor-2deck-2-0001", b"x"))
    result = run("export", other, "-o", out)
    assert result.exit_code == 2 and "No space left" in result.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_04_a_data_set_written_over_another_keeps_none_of_its_parts(tmp_path):
    data = tmp_path / "set"
    events = list(gamelog.files.events_of(gamelog.read(MATCH, with_headers=True)))
    gamelog.files._parquet().write_dataset(events, data, rows_per_file=200)
    assert len(list(data.glob("*.parquet"))) > 3
    dump(small_match(hands=2), data)
    assert hands_of(data) == 2 and len(list(data.glob("*.parquet"))) == 1
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("x")
    with pytest.raises(GamelogIOError, match="not written by shengji"):
        dump(small_match(), foreign)
    assert (foreign / "keep.txt").exists()


def test_05_the_same_hands_in_two_files_count_once(tmp_path):
    shutil.copy(MATCH, tmp_path / "x.jsonl")
    assert run("convert", tmp_path / "x.jsonl", tmp_path).exit_code == 0  # x.parquet beside
    assert run("convert", tmp_path / "x.jsonl", tmp_path).exit_code == 0  # again
    issues: list = []
    assert len(list(gamelog.read_hands(tmp_path, issues=issues))) == N
    assert len(issues) == 1 and "counted once" in str(issues[0])
    for jobs in ("1", "2"):
        result = run("validate", tmp_path, "-q", "-j", jobs)
        assert result.exit_code == 0, result.output  # a warning alone
        assert f"{N} hand(s)" in result.output and "counted once" in result.output


def test_05_convert_refuses_to_overwrite_its_input(tmp_path):
    shutil.copy(MATCH, tmp_path / "x.jsonl")
    (tmp_path / "x.parquet").write_bytes(b"not mine to lose")
    result = run("convert", tmp_path, tmp_path)
    assert result.exit_code == 2 and "input" in result.output
    assert (tmp_path / "x.parquet").read_bytes() == b"not mine to lose"


# -- crashes and hangs -------------------------------------------------------------------------

def with_line(tmp_path: Path, bad: bytes, at: int = 5) -> Path:
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"".join(LINES[:at]) + bad + b"\n" + b"".join(LINES[at:]))
    return path


def test_06_deeply_nested_json_is_a_located_error(tmp_path):
    deep = b'{"type":"note","x":' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    path = with_line(tmp_path, deep, at=2)
    issues: list = []
    assert len(list(gamelog.read_hands(path, issues=issues))) == N
    assert len(issues) == 1 and issues[0].line == 3
    result = run("validate", path, "-q")
    assert "internal error" not in result.output and "line 3" in result.output
    deep_options = (b'{"type":"match","match":"d","hand":0,"seq":0,"version":"1.1","ruleset":'
                    b'"tractor","players":4,"decks":2,"options":{"a":' + b"[" * 50_000
                    + b"]" * 50_000 + b"}}")
    issues = []
    gamelog.loads(deep_options, strict=False, issues=issues)
    assert len(issues) == 1 and issues[0].line == 1


def test_07_an_impossible_drawn_count_is_a_violation_found_at_once(tmp_path):
    lines = [json.loads(x) for x in LINES]
    k = next(i for i, e in enumerate(lines) if e["type"] == "declare")
    lines[k]["drawn"] = 2_000_000_000
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in lines))
    started = time.monotonic()
    reports = list(replay.validate(path))
    assert time.monotonic() - started < 30
    assert any(v.rule == "declare.cards-not-held" and "in all" in v.message
               for r in reports for v in r.violations)


@pytest.mark.parametrize("field,value", [("seat", 2**31), ("seq", 2**40), ("hand", 2**31),
                                         ("points", -(2**31) - 1)])
def test_08_integers_beyond_the_columns_are_located_errors(tmp_path, field, value):
    lines = [json.loads(x) for x in LINES]
    k = next(i for i, e in enumerate(lines) if field in e and e["type"] != "match")
    lines[k][field] = value
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in lines))
    issues: list = []
    list(gamelog.read_hands(path, issues=issues))
    assert any(i.line == k + 1 and "out of range" in str(i) for i in issues), issues
    for command in (("convert", path, tmp_path / "o.parquet"), ("export", path, "-o",
                    tmp_path / "t"), ("report", path, "-o", tmp_path / "r.html")):
        result = run(*command)
        assert result.exit_code == 2 and "internal error" not in result.output, command


def test_09_a_corrupt_gzip_stream_names_its_file(tmp_path):
    packed = bytearray(gzip.compress(MATCH.read_bytes()))
    packed[200:260] = b"\x00" * 60
    path = tmp_path / "m.jsonl.gz"
    path.write_bytes(bytes(packed))
    with pytest.raises(GamelogIOError, match=r"m\.jsonl\.gz"):
        list(gamelog.read_hands(path, strict=True))
    result = run("validate", path)
    assert "internal error" not in result.output and "m.jsonl.gz" in result.output
    assert isinstance(zlib.error("x"), Exception)


def test_10_bad_json_in_a_parquet_options_cell_is_located(tmp_path):
    dump(gamelog.load(MATCH), tmp_path / "m.parquet")
    table = pq.read_table(tmp_path / "m.parquet")
    options = table.column("options").to_pylist()
    options[0] = "{not json"
    table = table.set_column(table.schema.get_field_index("options"), "options",
                             pa.array(options, pa.string()))
    pq.write_table(table, tmp_path / "bad.parquet")
    issues: list = []
    hands = list(gamelog.read_hands(tmp_path / "bad.parquet", issues=issues))
    assert len(hands) == N
    assert issues[0].row == 0 and issues[0].field == "$.options"
    assert "internal error" not in run("validate", tmp_path / "bad.parquet").output


def test_11_a_huge_version_number_is_a_located_error():
    line = (b'{"type":"match","match":"v","hand":0,"seq":0,"version":"1.' + b"9" * 5000
            + b'","ruleset":"tractor","players":4,"decks":2}\n')
    issues: list = []
    gamelog.loads(line, strict=False, issues=issues)
    assert len(issues) == 1 and issues[0].field == "$.version" and len(str(issues[0])) < 300


def test_12_and_17_page_names_are_bounded_distinct_and_linked(tmp_path):
    from analyze.report import match_of_slug, page_slug

    ids = ["sp ace", "sp-ace", "Sp-ace", "a.b", "a/b", "a%2Fb", "x" * 300, "象" * 100,
           "nul\x00l", "..", "a_b", "a_5Fb"]
    slugs = [page_slug(i, 1) for i in ids]
    assert len(set(slugs)) == len(ids)
    assert len({s.lower() for s in slugs}) == len(ids)  # case-insensitive file systems
    assert all(re.fullmatch(r"[a-z0-9_A-F~-]+", s) and len(s) < 150 for s in slugs)
    for i, s in zip(ids, slugs, strict=True):
        assert match_of_slug(s) in (i, None)
    assert match_of_slug(page_slug("a.b/c d", 3)) == "a.b/c d"
    events = []
    for i in ids[:8]:
        events += small_match(match=i, hands=1)
    dump(events, tmp_path / "m.jsonl")
    site = tmp_path / "site"
    result = run("report", tmp_path / "m.jsonl", "-o", f"{site}/")
    assert result.exit_code in (0, 1), result.output
    index = (site / "index.html").read_text()
    links = re.findall(r'href="(hand-[^"]+\.html)"', index)
    assert len(links) == 8 and all((site / link).exists() for link in links)
    assert "\x00" not in index


def test_13_hostile_files_cannot_exhaust_memory(tmp_path):
    from gamelog.jsonl import MAX_LINE_BYTES
    from gamelog.reader import MAX_ISSUES_PER_FILE

    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"{oops}\n" * 300_000 + b"".join(LINES))
    issues: list = []
    hands = list(gamelog.read_hands(path, issues=issues))
    assert len(hands) == N and len(issues) == MAX_ISSUES_PER_FILE + 1
    assert "more problem(s)" in str(issues[-1])
    long = tmp_path / "long.jsonl.gz"
    with gzip.open(long, "wb") as f:
        f.write(LINES[0])
        chunk = b"x" * (1 << 20)
        for _ in range(MAX_LINE_BYTES // len(chunk) + 4):
            f.write(chunk)
        f.write(b"\n" + b"".join(LINES[1:]))
    issues = []
    assert len(list(gamelog.read_hands(long, issues=issues))) == N
    assert "longer than" in str(issues[0]) and issues[0].line == 2
    blank = tmp_path / "blank.jsonl.gz"
    with gzip.open(blank, "wb", compresslevel=1) as f:
        f.write(b"".join(LINES))
        chunk = b"\n" * (1 << 22)
        for _ in range(64):  # 256 MiB of newlines
            f.write(chunk)
    started = time.monotonic()
    assert len(list(gamelog.read_hands(blank))) == N
    assert time.monotonic() - started < 20


# -- hostile content ---------------------------------------------------------------------------

def test_14_chart_labels_do_not_become_markup(tmp_path):
    lines = [json.loads(x) for x in LINES]
    lines[0]["seats"][0]["name"] = '<a href="https://evil.example">click</a>'
    lines[0]["seats"][1]["name"] = "<b>bold</b>"
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    assert run("report", tmp_path / "m.jsonl", "-o", tmp_path / "r.html").exit_code == 0
    html = (tmp_path / "r.html").read_text()
    charts = "".join(re.findall(r"var f=(\{.*?\});Plotly", html))
    assert "evil.example" in charts  # the name is in a chart ...
    assert "<a" not in charts and "<b>" not in charts  # ... as text, not markup
    assert '&lt;a href=\\"https:' in charts and "&lt;b&gt;bold&lt;" in charts


def test_15_control_characters_from_records_are_shown_escaped(tmp_path):
    events = small_match(match="m\x1b[2J\r\nFAKE OK\x00", hands=1)
    dump(events, tmp_path / "m.jsonl")
    for command in ("show", "validate"):
        result = run(command, tmp_path / "m.jsonl")
        assert "\x1b" not in result.output and "\x00" not in result.output
        assert "\r" not in result.output and "\\x1b[2J\\r\\nFAKE OK\\x00" in result.output


def test_16_csv_cells_never_start_a_formula(tmp_path):
    import msgspec

    events = small_match(match="=HYPERLINK(\"http://x\")", hands=1)
    events[0] = msgspec.structs.replace(events[0], seats=[
        gamelog.SeatInfo(seat=0, name="+cmd"), gamelog.SeatInfo(seat=1, name="@SUM(A1)"),
        gamelog.SeatInfo(seat=2, name="-2+3")])
    dump(events, tmp_path / "m.jsonl")
    assert run("export", tmp_path / "m.jsonl", "-o", tmp_path / "t", "--csv").exit_code in (0, 2)
    for table in (tmp_path / "t").glob("*.csv"):
        for line in table.read_text().splitlines()[1:]:
            for cell in line.split(","):
                assert not cell.strip('"').startswith(("=", "+", "@")), (table.name, line)
    assert "'=HYPERLINK" in (tmp_path / "t" / "hands.csv").read_text()


# -- silent acceptance and wrong codes ---------------------------------------------------------

def test_18_an_unknown_ruleset_is_an_input_error_everywhere(tmp_path):
    text = MATCH.read_text().replace('"ruleset":"tractor"', '"ruleset":"nonesuch"', 1)
    (tmp_path / "m.jsonl").write_text(text)
    assert run("validate", tmp_path / "m.jsonl").exit_code == 2
    result = run("report", tmp_path / "m.jsonl", "-o", tmp_path / "r.html")
    assert result.exit_code == 2 and "nonesuch" in result.output
    result = run("export", tmp_path / "m.jsonl", "-o", tmp_path / "t")
    assert result.exit_code == 2 and "nonesuch" in result.output
    import polars as pl

    assert pl.read_parquet(tmp_path / "t" / "hands.parquet").height == 0
    assert pl.read_parquet(tmp_path / "t" / "matches.parquet").height == 0


def test_19_an_incomplete_hand_is_said_so_and_not_ok(tmp_path):
    lines = LINES[:1] + [x for x in LINES[1:] if b'"hand":1,' in x][:30]
    (tmp_path / "m.jsonl").write_bytes(b"".join(lines))
    result = run("validate", tmp_path / "m.jsonl")
    assert "incomplete: stops after trick" in result.output and "OK" not in result.output
    assert result.exit_code == 1 and "1 incomplete" in result.output
    assert run("validate", tmp_path / "m.jsonl", "--allow-incomplete").exit_code == 0
    data = json.loads(run("validate", tmp_path / "m.jsonl", "--format", "json").output
                      .splitlines()[0])
    assert data["complete"] is False and data["incomplete"].startswith("incomplete: stops after")
    lone = [LINES[0], next(x for x in LINES if b'"type":"hand"' in x)]
    (tmp_path / "lone.jsonl").write_bytes(b"".join(lone))
    result = run("validate", tmp_path / "lone.jsonl")
    assert result.exit_code == 1 and "incomplete" in result.output


def test_20_a_warning_alone_exits_0(tmp_path):
    newer = MATCH.read_text().replace(f'"version":"{FORMAT_VERSION}"', '"version":"1.99"', 1)
    lines = newer.splitlines(keepends=True)
    lines.insert(3, '{"type":"future_event","match":"tractor-2deck-2-0001","hand":1,"seq":3}\n')
    fixed = []
    for line in lines[4:]:  # keep sequence numbers consecutive after the inserted event
        e = json.loads(line)
        if e["hand"] == 1:
            e["seq"] += 1
        fixed.append(json.dumps(e, ensure_ascii=False) + "\n")
    (tmp_path / "m.jsonl").write_text("".join(lines[:4] + fixed))
    result = run("validate", tmp_path / "m.jsonl", "-q")
    assert "warning:" in result.output and result.exit_code == 0, result.output


def test_21_messages_name_the_problem_and_place(tmp_path, monkeypatch):
    # a lone surrogate escape is not called "truncated"
    line = LINES[3].replace(b'"seat":', b'"note":"\\ud800x","seat":')
    issues: list = []
    gamelog.loads(LINES[0] + line, strict=False, issues=issues)
    assert "surrogate" in str(issues[0]) and "truncated" not in str(issues[0])
    # a byte order mark at the start is accepted
    (tmp_path / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + MATCH.read_bytes())
    issues = []
    assert len(list(gamelog.read_hands(tmp_path / "bom.jsonl", issues=issues))) == N
    assert issues == []
    # report -o . refuses cleanly
    monkeypatch.chdir(tmp_path)
    result = run("report", MATCH, "-o", ".")
    assert result.exit_code == 2 and "internal error" not in result.output
    # bad header options are a located error, counted
    bad = MATCH.read_text().replace('"players":4', '"players":0', 1)
    (tmp_path / "p.jsonl").write_text(bad)
    result = run("validate", tmp_path / "p.jsonl", "-q")
    assert result.exit_code == 2 and "p.jsonl" in result.output
    assert re.search(r"error: .*p\.jsonl.*players", result.output)
    assert "0 bad line(s)" not in result.output


def test_21_a_full_disk_names_the_file(tmp_path, monkeypatch):
    from gamelog import jsonl, outputs

    real_open = open

    class Full:
        def __init__(self, f):
            self.f = f

        def write(self, data):
            raise OSError(28, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.f, name)

    def fake_open(path, mode="r", *a, **k):
        f = real_open(path, mode, *a, **k)
        return Full(f) if ("w" in mode or "x" in mode) and outputs.TEMP_TAG in str(path) else f

    monkeypatch.setattr(outputs, "open", fake_open, raising=False)
    with pytest.raises(GamelogIOError, match=r"out\.jsonl: cannot write: No space"):
        jsonl.write(small_match(), tmp_path / "out.jsonl")
    assert list(tmp_path.iterdir()) == []


def test_22_one_policy_for_unknown_fields_and_duplicate_keys(tmp_path):
    dup = LINES[3].replace(b'"seat":', b'"seat":3,"seat":', 1)
    issues: list = []
    gamelog.loads(LINES[0] + dup, strict=False, issues=issues)
    assert len(issues) == 1 and "twice" in str(issues[0])
    spaced = LINES[3].replace(b'"seat":', b'"seat" : 3 , "seat":', 1)
    issues = []
    gamelog.loads(LINES[0] + spaced, strict=False, issues=issues)
    assert len(issues) == 1 and "twice" in str(issues[0])
    dump(gamelog.load(MATCH), tmp_path / "m.parquet")
    table = pq.read_table(tmp_path / "m.parquet")
    extra = [None] * table.num_rows
    extra[5] = 1
    pq.write_table(table.append_column("bogus", pa.array(extra, pa.int32())),
                   tmp_path / "x.parquet")
    issues = []
    list(gamelog.read_hands(tmp_path / "x.parquet", issues=issues))
    assert len(issues) == 1 and issues[0].row == 5 and issues[0].field == "$.bogus"
    issues = []
    gamelog.loads(LINES[0] + LINES[3].replace(b'"seat":', b'"bogus":1,"seat":'), strict=False,
                  issues=issues)
    assert len(issues) == 1 and issues[0].field == "$.bogus"


def test_23_one_lost_play_line_is_reported_once(tmp_path):
    k = next(i for i, x in enumerate(LINES) if b'"type":"play"' in x and b'"hand":2,' in x)
    broken = [*LINES[:k], LINES[k].replace(b'"cards":["', b'"cards":["ZZ","'), *LINES[k + 1:]]
    (tmp_path / "m.jsonl").write_bytes(b"".join(broken))
    reports = list(replay.validate(tmp_path / "m.jsonl"))
    hand2 = next(r for r in reports if r.hand == 2)
    assert len(hand2.record_issues) == 1
    assert len([v for v in hand2.violations if v.rule == "play.out-of-turn"]) <= 1
    assert len(hand2.violations) <= 2, [v.rule for v in hand2.violations]


# -- faults and resources ----------------------------------------------------------------------

def test_24_temporaries_of_killed_runs_are_listed_never_removed(tmp_path):
    # Issue 25 item 1: a name proves nothing, so no run removes what another left behind.
    dead = 2**22 + 12345  # beyond pid_max on most systems: certainly not running
    stale_file = tmp_path / f".out.jsonl.shengji-tmp-{dead}-abcd1234"
    stale_file.write_text("half")
    stale_dir = tmp_path / f".site.shengji-build-{dead}-abc123"
    stale_dir.mkdir()
    alive = tmp_path / f".out.jsonl.shengji-tmp-{os.getpid()}-0000"
    alive.write_text("ours, running")
    gamelog.dump(small_match(), tmp_path / "out.jsonl")
    assert stale_file.exists() and alive.exists()
    assert gamelog.outputs.stale_temporaries(tmp_path / "out.jsonl") == [stale_file]
    assert run("report", MATCH, "-o", f"{tmp_path / 'site'}/", "--max-hands", "1").exit_code == 0
    assert stale_dir.exists()
    assert gamelog.outputs.stale_temporaries(tmp_path / "site") == [stale_dir]


def test_25_gzip_output_is_deterministic(tmp_path):
    a, b = tmp_path / "a.jsonl.gz", tmp_path / "sub" / "b.jsonl.gz"
    gamelog.dump(small_match(), a)
    gamelog.dump(small_match(), b)
    assert a.read_bytes() == b.read_bytes()


def test_26_sigterm_ends_the_workers_too(tmp_path):
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        for k in range(400):
            f.write(MATCH.read_bytes().replace(b"tractor-2deck-2-0001", f"m{k}".encode()))
    env = {**os.environ, "SHENGJI_PURE": "1", "PYTHONWARNINGS": "ignore"}  # slower: mid-run
    proc = subprocess.Popen([sys.executable, "-m", "shengji.cli", "validate", str(big), "-j",
                             "2", "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, cwd=ROOT, env=env)
    deadline = time.monotonic() + 20
    children: list[int] = []
    while not children and time.monotonic() < deadline:  # until the workers have started
        time.sleep(0.2)
        children = _children(proc.pid)
    time.sleep(0.3)
    assert children and proc.poll() is None  # mid-run, workers busy with their batches
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    time.sleep(0.3)
    assert all(not _alive(c) for c in children), children


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_27_parallel_validation_streams_within_a_match_and_caps_workers(tmp_path):
    from shengji.cli.commands import validate as cli_module

    lines = [json.loads(x) for x in LINES]
    # one long match: the sample's hands over and over, renumbered
    hands = [[e for e in lines if e["hand"] == h] for h in range(1, N + 1)]
    path = tmp_path / "long.jsonl"
    with open(path, "w") as f:
        f.write(json.dumps(lines[0]) + "\n")
        for k in range(60):
            for e in hands[k % N]:
                f.write(json.dumps({**e, "hand": k + 1}) + "\n")
    batches: list[int] = []
    real = cli_module._validate_lines

    def spy(source, lines, first, *rest, **kw):
        batches.append(len(lines))
        return real(source, lines, first, *rest, **kw)

    import replay.parallel as parallel

    original = parallel.in_order

    def serial(jobs, work, tasks, keep_tasks=False):
        for task in tasks:
            result = spy(*task)
            yield (task, result) if keep_tasks else result

    parallel.in_order = serial
    try:
        out = list(cli_module._validate_lines_parallel([path], 2, None, {}, "json", False, [],
                                                       batch_lines=400))
    finally:
        parallel.in_order = original
    assert len(batches) > 10 and max(batches) < 1500  # cut inside the match
    parallel = [line for lines_, _, _ in out for line in lines_]
    single = run("validate", path, "--format", "json").output.splitlines()
    assert parallel == single[: len(parallel)] and len(parallel) == 60
    result = run("validate", path, "-j", "256", "-q")
    assert result.exit_code in (0, 1)
