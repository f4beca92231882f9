"""Reading and writing records: canonical JSONL, Parquet, gzip, atomic writes, bad input."""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import gamelog
from gamelog import (
    GamelogIOError,
    MalformedRecordError,
    RecordWarning,
    UnsupportedVersionError,
    dump,
    dumps,
    load,
    loads,
    read_hands,
)
from gamelog.files import events_of, read
from gamelog.parquet import SCHEMA
from tests.helpers import jsonl_lines, small_match


def read_collect(path):
    issues = []
    hands = list(read_hands(path, issues=issues))
    return hands, issues


def write_lines(path, lines, newline_at_end=True):
    text = "\n".join(lines) + ("\n" if newline_at_end else "")
    path.write_text(text, encoding="utf-8")
    return path


def test_jsonl_round_trip_is_canonical(tmp_path):
    events = small_match()
    path = tmp_path / "a.jsonl"
    assert dump(events, path) == len(events)
    assert path.read_bytes() == dumps(events)
    matches = load(path)
    assert len(matches) == 1 and len(matches[0].hands) == 2
    assert matches[0].events() == events
    assert dumps(matches) == path.read_bytes()


def test_parquet_round_trip_is_byte_identical(tmp_path):
    events = small_match()
    dump(events, tmp_path / "a.parquet")
    back = list(events_of(read(tmp_path / "a.parquet", with_headers=True)))
    assert back == events
    assert dumps(back) == dumps(events)


def test_parquet_is_readable_without_the_package(tmp_path):
    import duckdb
    import polars as pl

    dump(small_match(), tmp_path / "a.parquet")
    df = pl.read_parquet(tmp_path / "a.parquet")
    plays = df.filter(pl.col("type") == "play")
    assert plays.height == 8
    assert plays["cards"].to_list()[0] == ["AS"]
    assert df.schema["holdings"] == pl.List(pl.List(pl.String))
    table = pq.read_table(tmp_path / "a.parquet")
    assert table.schema.equals(SCHEMA, check_metadata=False)
    con = duckdb.connect()
    count = con.execute(
        f"select count(*) from '{tmp_path / 'a.parquet'}' where type = 'play' and seat = 0"
    ).fetchone()[0]
    assert count == 2
    tags = df.filter(pl.col("type") == "match")["tags"].to_list()[0]
    assert tags in ({"site": "test"}, [{"key": "site", "value": "test"}])


def test_header_options_keep_their_types(tmp_path):
    header = small_match()[0]
    header = gamelog.MatchStart(**{**{f: getattr(header, f) for f in header.__struct_fields__},
                                   "options": {"a": 1, "b": 1.5, "c": True, "d": "x"}})
    dump([header], tmp_path / "h.parquet")
    back = load(tmp_path / "h.parquet")[0].header
    assert back.options == {"a": 1, "b": 1.5, "c": True, "d": "x"}
    assert [type(v) for v in back.options.values()] == [int, float, bool, str]


def test_dataset_directory_never_splits_a_hand(tmp_path):
    events = small_match(hands=10)
    paths = gamelog.parquet.write_dataset(events, tmp_path / "ds", rows_per_file=20,
                                          rows_per_group=5)
    assert len(paths) > 1
    for p in paths:
        t = pq.read_table(p)
        pf = pq.ParquetFile(p)
        hands_per_group = []
        for g in range(pf.num_row_groups):
            hands_per_group.append(set(pf.read_row_group(g).column("hand").to_pylist()))
        for a, b in itertools.pairwise(hands_per_group):
            assert not (a & b), "a hand is split between row groups"
        assert t.num_rows > 0
    files_hands = [set(pq.read_table(p).column("hand").to_pylist()) - {0} for p in paths]
    for a, b in itertools.pairwise(files_hands):
        assert not (a & b), "a hand is split between files"
    back = list(events_of(read(tmp_path / "ds", with_headers=True)))
    assert dumps(back) == dumps(events)


def test_gzip_is_read_transparently(tmp_path):
    events = small_match()
    dump(events, tmp_path / "a.jsonl.gz")
    assert (tmp_path / "a.jsonl.gz").read_bytes()[:2] == b"\x1f\x8b"
    # a gzip stream under a plain name is recognised by its magic bytes
    (tmp_path / "b.jsonl").write_bytes(gzip.compress(dumps(events)))
    for name in ("a.jsonl.gz", "b.jsonl"):
        assert load(tmp_path / name)[0].events() == events


def test_writes_are_atomic(tmp_path):
    path = tmp_path / "a.jsonl"
    dump(small_match("old"), path)  # an earlier record (other files are never overwritten)
    old = path.read_text()

    def broken():
        yield small_match()[0]
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        dump(broken(), path)
    assert path.read_text() == old
    assert [p.name for p in tmp_path.iterdir()] == ["a.jsonl"]


def test_reader_streams_hands_in_order(tmp_path):
    events = small_match("a", 3) + small_match("b", 2)
    dump(events, tmp_path / "x.jsonl")
    hands = list(read_hands(tmp_path / "x.jsonl"))
    assert [(h.match, h.number) for h in hands] == [("a", 1), ("a", 2), ("a", 3), ("b", 1),
                                                    ("b", 2)]
    assert all(h.header is not None and h.header.match == h.match for h in hands)
    assert all(h.start is not None for h in hands)


# --- bad input: each kind has its own message, the good hands around it survive ------------


def bad_file(tmp_path, mutate, newline_at_end=True):
    lines = jsonl_lines(small_match(hands=3))
    mutate(lines)
    return write_lines(tmp_path / "bad.jsonl", lines, newline_at_end)


def assert_one_issue(tmp_path, mutate, line, field, words, newline_at_end=True, hands=3):
    path = bad_file(tmp_path, mutate, newline_at_end)
    got, issues = read_collect(path)
    assert len(issues) == 1, [str(i) for i in issues]
    issue = issues[0]
    assert isinstance(issue, MalformedRecordError)
    assert issue.source == str(path) and issue.line == line and issue.field == field
    for w in words:
        assert w in str(issue)
    assert len(got) == hands
    with pytest.raises(MalformedRecordError):
        list(read_hands(path, strict=True))
    return got, issue


def test_truncated_last_line(tmp_path):
    def cut(lines):
        lines[-1] = lines[-1][: len(lines[-1]) // 2]

    got, issue = assert_one_issue(tmp_path, cut, 25, None, ["truncated"], newline_at_end=False)
    assert len(got[-1].events) == 7 and got[-1].issues == [issue]


def test_invalid_utf8(tmp_path):
    path = tmp_path / "bad.jsonl"
    lines = [line.encode() for line in jsonl_lines(small_match())]
    lines[3] = lines[3].replace(b'"seat":0', b'"seat":0,"note":"\xff\xfe"')
    path.write_bytes(b"\n".join(lines) + b"\n")
    got, issues = read_collect(path)
    assert len(issues) == 1 and issues[0].line == 4 and "UTF-8" in str(issues[0])
    assert len(got) == 2


def test_not_json(tmp_path):
    def garble(lines):
        lines[4] = "{this is not json"

    assert_one_issue(tmp_path, garble, 5, None, ["not valid JSON", "line 5"])


def test_wrong_type(tmp_path):
    def wrong(lines):
        lines[3] = lines[3].replace('"seat":0', '"seat":"north"')

    assert_one_issue(tmp_path, wrong, 4, "$.seat", ["wrong type", "expected int, got str"])


def test_unknown_card_names_the_field_and_suggests(tmp_path):
    def card(lines):
        lines[3] = lines[3].replace('"cards":["AS"]', '"cards":["♠A"]')

    _, _issue = assert_one_issue(tmp_path, card, 4, "$.cards[0]", ["unknown card", "'AS'"])


def test_unknown_card_without_suggestion(tmp_path):
    def card(lines):
        lines[2] = lines[2].replace('[["AS"]', '[["ZZ"]')

    assert_one_issue(tmp_path, card, 3, "$.holdings[0][0]", ["unknown card 'ZZ'"])


def test_missing_field(tmp_path):
    def missing(lines):
        lines[3] = lines[3].replace(',"seat":0', "")

    assert_one_issue(tmp_path, missing, 4, "$.seat", ["missing required field 'seat'"])


def test_unknown_field_in_current_version(tmp_path):
    def extra(lines):
        lines[3] = lines[3].replace('"seat":0', '"seat":0,"colour":"red"')

    assert_one_issue(tmp_path, extra, 4, "$.colour", ["unknown field 'colour'"])


def test_unknown_event_type(tmp_path):
    def kind(lines):
        lines[3] = lines[3].replace('"type":"play"', '"type":"dance"')

    assert_one_issue(tmp_path, kind, 4, "$.type", ["dance"])


def test_duplicate_sequence_number(tmp_path):
    def dup(lines):
        lines.insert(4, lines[3])

    got, _issue = assert_one_issue(tmp_path, dup, 5, "$.seq", ["duplicate sequence number 2"])
    assert len(got[0].events) == 8  # the duplicate line was skipped


def test_out_of_order_sequence_number(tmp_path):
    def swap(lines):
        lines[3], lines[4] = lines[4], lines[3]

    path = bad_file(tmp_path, swap)
    _, issues = read_collect(path)
    assert any("jumps from 1 to 3" in str(i) for i in issues)
    assert any("out of order" in str(i) and i.line == 5 for i in issues)


def test_missing_event_is_a_gap(tmp_path):
    def drop(lines):
        del lines[4]

    assert_one_issue(tmp_path, drop, 5, "$.seq", ["jumps from 2 to 4", "1 event(s) missing"])


def test_hand_without_header(tmp_path):
    def no_header(lines):
        del lines[0]

    path = bad_file(tmp_path, no_header)
    got, issues = read_collect(path)
    assert len(got) == 3 and all(h.header is None for h in got)
    # said once per match; each hand still carries it
    assert len(issues) == 1 and "no header line" in str(issues[0])
    assert all(any("no header line" in str(i) for i in h.issues) for h in got)


def test_hand_must_start_with_hand_event_and_be_contiguous(tmp_path):
    def move(lines):
        lines.append(lines[2])  # a line of hand 1 after hand 3

    path = bad_file(tmp_path, move)
    _, issues = read_collect(path)
    assert any("comes after hand 3" in str(i) for i in issues)
    assert any("must begin with a 'hand' event" in str(i) for i in issues)


def test_newer_minor_version_is_read_leniently(tmp_path):
    def newer(lines):
        lines[0] = lines[0].replace(f'"version":"{gamelog.FORMAT_VERSION}"', '"version":"1.7","future":1')
        lines[3] = lines[3].replace('"seat":0', '"seat":0,"speed":"fast"')
        lines.insert(4, json.dumps({"type": "emote", "match": "m1", "hand": 1, "seq": 99}))

    path = bad_file(tmp_path, newer)
    got, issues = read_collect(path)
    assert len(got) == 3
    assert got[0].events[2] == small_match()[3]  # the unknown field is dropped
    assert [type(i) for i in issues] == [RecordWarning]
    assert "newer minor version" in str(issues[0])
    assert list(read_hands(path, strict=True))  # warnings do not stop strict mode


def test_newer_major_version_is_refused(tmp_path):
    def newer(lines):
        lines[0] = lines[0].replace(f'"version":"{gamelog.FORMAT_VERSION}"', '"version":"2.0"')

    path = bad_file(tmp_path, newer)
    got, issues = read_collect(path)
    assert got == []
    assert len(issues) == 1 and isinstance(issues[0], UnsupportedVersionError)
    assert "2.0" in str(issues[0]) and issues[0].line == 1
    with pytest.raises(UnsupportedVersionError):
        list(read_hands(path, strict=True))


def test_many_errors_are_all_collected(tmp_path):
    def several(lines):
        lines[3] = "{"
        lines[12] = lines[12].replace('"seat":1', '"seat":true')
        lines[21] = lines[21].replace('"cards":["QS"]', '"cards":["Q"]')

    path = bad_file(tmp_path, several)
    got, issues = read_collect(path)
    assert [i.line for i in issues] == [4, 13, 22]
    assert len(got) == 3
    assert [len(h.issues) for h in got] == [1, 1, 1]


def test_blank_lines_are_ignored(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text("\n" + dumps(small_match()).decode().replace("\n", "\n\n"))
    hands, issues = read_collect(path)
    assert issues == [] and len(hands) == 2


def test_missing_file_and_unknown_suffix(tmp_path):
    with pytest.raises(GamelogIOError, match="no such file"):
        list(read_hands(tmp_path / "nope.jsonl"))
    (tmp_path / "a.csv").write_text("x")
    with pytest.raises(GamelogIOError, match="cannot tell the format"):
        list(read_hands(tmp_path / "a.csv"))


def test_corrupt_parquet_is_a_file_problem(tmp_path):
    """Strict: an I/O error. Collecting: a problem naming the file, and reading goes on."""
    (tmp_path / "a.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(GamelogIOError, match="not a readable Parquet file"):
        list(read_hands(tmp_path / "a.parquet", strict=True))
    hands, issues = read_collect(tmp_path / "a.parquet")
    assert hands == [] and "not a readable Parquet file" in str(issues[0])
    pq.write_table(pa.table({"x": [1]}), tmp_path / "b.parquet")
    with pytest.raises(GamelogIOError, match="no column"):
        list(read_hands(tmp_path / "b.parquet", strict=True))
    hands, issues = read_collect(tmp_path / "b.parquet")
    assert hands == [] and "no column" in str(issues[0])


def test_parquet_bad_rows_are_reported_by_row_and_field(tmp_path):
    dump(small_match(), tmp_path / "a.parquet")
    table = pq.read_table(tmp_path / "a.parquet")
    cards = table.column("cards").to_pylist()
    cards[3] = ["XX"]
    table = table.set_column(table.schema.get_field_index("cards"), "cards",
                             pa.array(cards, type=SCHEMA.field("cards").type))
    pq.write_table(table, tmp_path / "b.parquet")
    hands, issues = read_collect(tmp_path / "b.parquet")
    assert len(hands) == 2 and len(issues) == 1
    assert issues[0].row == 3 and issues[0].field == "$.cards[0]"
    assert "row 3" in str(issues[0]) and "unknown card 'XX'" in str(issues[0])


def test_loads_reads_text():
    text = dumps(small_match()).decode()
    assert loads(text)[0].events() == small_match()
    with pytest.raises(MalformedRecordError):
        loads(text + "{\n")
    issues = []
    assert len(loads(text + "{\n", strict=False, issues=issues)[0].hands) == 2
    assert len(issues) == 1


def test_parquet_of_an_older_minor_without_newer_columns_reads(tmp_path):
    dump(small_match(), tmp_path / "a.parquet")
    table = pq.read_table(tmp_path / "a.parquet").drop(["round_settlement"])
    pq.write_table(table, tmp_path / "old.parquet")
    hands, issues = read_collect(tmp_path / "old.parquet")
    assert issues == [] and len(hands) == 2
    assert [e for h in hands for e in h.events] == small_match()[1:]


def test_hands_pack_and_unpack_for_other_processes():
    """The transfer form of ``validate -j``: every field of every hand comes back."""
    from gamelog.files import pack_hands, unpack_hands

    hands = list(gamelog.read_hands(Path(__file__).resolve().parents[1] / "samples" / "examples"))
    hands[0].issues.append(ValueError("line 3: something"))
    back = unpack_hands(pack_hands(hands))
    assert [(h.match, h.number, h.events, h.header, h.source, h.first_line) for h in back] == \
        [(h.match, h.number, h.events, h.header, h.source, h.first_line) for h in hands]
    assert back[0].issues == ["line 3: something"]


def test_header_store_keeps_every_header_in_bounded_live_memory():
    """Headers past the live limit are archived compactly and come back equal."""
    from gamelog.reader import HeaderStore

    store = HeaderStore(live=2)
    headers = [gamelog.MatchStart(match=f"m{i}", hand=0, seq=0, version=gamelog.FORMAT_VERSION,
                                  ruleset="tractor", players=4, decks=2, tags={"i": str(i)})
               for i in range(5)]
    for h in headers:
        store[h.match] = h
    assert len(store) == 5 and len(store._live) == 2
    assert all(h.match in store for h in headers) and "m9" not in store
    assert [store.get(h.match) for h in headers] == headers
    assert store.get("m9") is None
