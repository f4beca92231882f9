"""Fuzz targets for the JSON Lines reader, the Parquet reader and the validator.

Each target takes a file of ``tests/fuzz_corpus/`` and mutates it the way broken or hostile
files differ from good ones (bytes flipped, inserted, deleted, cut off, lines repeated or
swapped, values swapped for extreme ones), then reads or validates it. Nothing may come out
but the toolkit's own located problems: no other exception, no hang, and every good record
around the damage kept.

The budget is ``SHENGJI_FUZZ_EXAMPLES`` examples per target (default 150, what CI runs; set it
to 20000 or more for a long run: ``SHENGJI_FUZZ_EXAMPLES=20000 pytest tests/test_fuzz.py``).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gamelog
import replay
from gamelog.errors import RecordError

CORPUS = Path(__file__).resolve().parent / "fuzz_corpus"
JSONL = sorted(CORPUS.glob("*.jsonl"))
PARQUET = sorted(CORPUS.glob("*.parquet"))
BUDGET = int(os.environ.get("SHENGJI_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=BUDGET, deadline=None, derandomize=BUDGET <= 1000,
                suppress_health_check=list(HealthCheck))

EXTREMES = [b"-1", b"0", b"2147483648", b"-2147483649", b"1e308", b"null", b"true", b'""',
            b"[]", b"{}", b'"\\u0000"', b'"\\ud800"', b'"\xff\xfe"', b"9" * 40, b"[" * 300]


@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with a few random mutations of the kinds real damage takes."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "cut", "dup_line", "swap",
                                     "value", "nul"]))
        if not out:
            break
        at = draw(st.integers(0, len(out) - 1))
        if kind == "flip":
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "delete":
            del out[at:at + draw(st.integers(1, 64))]
        elif kind == "cut":
            del out[at:]
        elif kind == "nul":
            out[at:at] = b"\x00" * draw(st.integers(1, 4))
        else:
            lines = bytes(out).split(b"\n")
            i = draw(st.integers(0, len(lines) - 1))
            if kind == "dup_line":
                lines.insert(i, lines[i])
            elif kind == "swap":
                j = draw(st.integers(0, len(lines) - 1))
                lines[i], lines[j] = lines[j], lines[i]
            else:  # a number or string value swapped for an extreme one
                line = lines[i]
                colon = line.find(b":", draw(st.integers(0, max(0, len(line) - 1))))
                if colon >= 0:
                    end = min((k for k in (line.find(b",", colon), line.find(b"}", colon))
                               if k > 0), default=len(line))
                    lines[i] = line[:colon + 1] + draw(st.sampled_from(EXTREMES)) + line[end:]
            out = bytearray(b"\n".join(lines))
    return bytes(out)


def only_located(issues: list) -> None:
    for issue in issues:
        assert isinstance(issue, RecordError), repr(issue)
        assert issue.source is not None or "line" in str(issue) or "row" in str(issue), issue


@FUZZ
@given(st.data())
def test_fuzz_jsonl_reader_and_validator(data):
    source = data.draw(st.sampled_from(JSONL))
    raw = data.draw(mutated(source.read_bytes()))
    path_bytes = io.BytesIO(raw)
    issues: list = []
    matches = gamelog.loads(path_bytes.getvalue(), strict=False, issues=issues)
    only_located(issues)
    hands = [h for m in matches for h in m.hands]
    reports = list(replay.validate_hands(hands))
    assert len(reports) == len(hands)
    for report in reports:
        for v in report.violations:
            assert v.rule and v.message


@FUZZ
@given(st.data())
def test_fuzz_jsonl_files_plain_and_gzip(tmp_path_factory, data):
    import gzip

    source = data.draw(st.sampled_from(JSONL))
    raw = data.draw(mutated(source.read_bytes()))
    folder = tmp_path_factory.mktemp("fz")
    if data.draw(st.booleans()):
        packed = bytearray(gzip.compress(raw, mtime=0))
        packed = data.draw(mutated(bytes(packed)))
        path = folder / "f.jsonl.gz"
        path.write_bytes(packed)
    else:
        path = folder / "f.jsonl"
        path.write_bytes(raw)
    issues: list = []
    for report in replay.validate(path, issues=issues):
        assert report.hand is not None
    only_located(issues)


@FUZZ
@given(st.data())
def test_fuzz_parquet_reader_bytes(tmp_path_factory, data):
    source = data.draw(st.sampled_from(PARQUET))
    raw = data.draw(mutated(source.read_bytes()))
    path = tmp_path_factory.mktemp("fz") / "f.parquet"
    path.write_bytes(raw)
    issues: list = []
    reports = list(replay.validate(path, issues=issues))  # collect mode: reports, never raises
    assert reports or issues, "a damaged file read as no hands and no problem"
    assert all(report.hand is not None for report in reports)
    only_located(issues)


@FUZZ
@given(st.data())
def test_fuzz_parquet_reader_cells(tmp_path_factory, data):
    """Well-formed Parquet files with hostile cell values: every row that is wrong is named,
    the others are read."""
    source = data.draw(st.sampled_from(PARQUET))
    table = pq.read_table(source)
    for _ in range(data.draw(st.integers(1, 3))):
        name = data.draw(st.sampled_from(table.schema.names))
        column = table.column(name).to_pylist()
        row = data.draw(st.integers(0, len(column) - 1))
        kind = table.schema.field(name).type
        if pa.types.is_int32(kind):
            column[row] = data.draw(st.sampled_from([None, -1, 0, 2**31 - 1, -(2**31), 7, 99]))
        elif pa.types.is_string(kind):
            column[row] = data.draw(st.sampled_from([None, "", "{", "[" * 200, "\x00", "ZZ",
                                                     "{\"a\":1,\"a\":2}", "tractor", "1.1"]))
        elif pa.types.is_list(kind):
            column[row] = data.draw(st.sampled_from([None, [], None if column[row] is None
                                                     else column[row] * 2]))
        try:
            array = pa.array(column, kind)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            continue
        table = table.set_column(table.schema.get_field_index(name), name, array)
    path = tmp_path_factory.mktemp("fz") / "f.parquet"
    pq.write_table(table, path)
    issues: list = []
    reports = list(replay.validate(path, issues=issues))
    assert reports or issues, "hostile cells read as no hands and no problem"
    assert all(report.hand is not None for report in reports)
    only_located(issues)


# -- the typed notation and Botzone logs (issue 25) --------------------------------------------

SJN_EXTREMES = [b"9" * 5000, b"+" + b"9" * 12 + b" hidden", b"[" * 20_000, b"{" * 20_000,
                b"\xff\xfe", b"\xef\xbb\xbf", b"\x00" * 8, b"  (" * 5000, b"  ruleset x  " * 500,
                b"seat 99999999 holds AS", b"+300000000 hidden", b'"\\ud800"', b"n" * 200_000]


def _sjn_corpus() -> bytes:
    from gamelog import notation

    return notation.dumps(gamelog.load(JSONL[0])).encode()


@st.composite
def hostile_sjn(draw: st.DrawFn) -> bytes:
    """The notation of a corpus record, damaged, with hostile values put in at random
    places: long digit runs, deep nesting, huge hidden counts and seats, quadratic-regex bait,
    bytes that are not UTF-8, and UTF-16."""
    raw = bytearray(draw(mutated(_sjn_corpus())))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(raw)))
        raw[at:at] = draw(st.sampled_from(SJN_EXTREMES))
    if draw(st.integers(0, 9)) == 0:
        return bytes(raw).decode("utf-8", "replace").encode(draw(st.sampled_from(
            ["utf-16", "utf-16-le", "utf-32"])))
    return bytes(raw)


def _bounded(run) -> None:  # type: ignore[no-untyped-def]
    """Run ``run()`` and assert it stays within 64 MB of Python allocations and 10 s."""
    import time
    import tracemalloc

    tracemalloc.start()
    start = time.process_time()
    try:
        run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, f"peak {peak:,} bytes"
    assert time.process_time() - start < 10


@FUZZ
@given(st.data())
def test_fuzz_notation_reader_and_validator(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fz") / "f.sjn"
    path.write_bytes(data.draw(hostile_sjn()))
    issues: list = []

    def run() -> None:
        for report in replay.validate(path, issues=issues):
            assert report.hand is not None

    _bounded(run)
    only_located(issues)


BOTZONE_EXTREMES = [-1, 2**63, "9" * 5000, [[[[[]]]]], {"x": 1}, "<script>", None, True, 1e308,
                    "\ud800"]


def _botzone_corpus() -> dict:
    from gamelog.botzone import write_log

    for hand in gamelog.read_hands(Path(__file__).resolve().parents[1] / "samples" /
                                   "matches" / "tractor-2deck.jsonl"):
        if hand.start is not None and (hand.start.first_draw or 0) == 0:
            return write_log(hand)
    raise AssertionError("no hand dealt from seat 0 in the sample")


@st.composite
def hostile_botzone(draw: st.DrawFn) -> bytes:
    """A Botzone log of a sample hand with values swapped for hostile ones (in initdata,
    keys, responses, histories), deep nesting, damage to its bytes, or another encoding."""
    import json as _json

    log = _botzone_corpus()
    nest = False
    for _ in range(draw(st.integers(0, 4))):
        where = draw(st.sampled_from(["level", "allocation", "publiccard", "key", "response",
                                      "history", "nest"]))
        value = draw(st.sampled_from(BOTZONE_EXTREMES))
        entries = log["log"]
        if where in ("level", "allocation", "publiccard"):
            log["initdata"][where] = value
        elif where == "nest":
            nest = True
        else:
            entry = entries[draw(st.integers(0, len(entries) - 1))]
            if "output" in entry:
                content = entry["output"]["content"]
                key = next(iter(content))
                if where == "key":
                    content[str(value)] = content.pop(key)
                else:
                    content[key]["history"] = value
            else:
                key = next(iter(entry))
                if where == "key":
                    entry[str(value)] = entry.pop(key)
                else:
                    entry[key]["response"] = value
    raw = _json.dumps(log, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if nest:  # an entry nested past any parser's recursion limit
        raw = raw.replace(b'"log": [', b'"log": [' + b"[" * 50_000 + b"]" * 50_000 + b", ", 1)
    if draw(st.booleans()):
        raw = draw(mutated(raw))
    if draw(st.integers(0, 9)) == 0:
        raw = raw.decode("utf-8", "replace").encode("utf-16")
    return raw


@pytest.mark.slow
@FUZZ
@given(st.data())
def test_fuzz_botzone_import(tmp_path_factory, data):
    from click.testing import CliRunner

    from shengji.cli import cli

    folder = tmp_path_factory.mktemp("fz")
    bad = folder / "bad.json"
    bad.write_bytes(data.draw(hostile_botzone()))
    good = folder / "good.json"
    import json as _json

    good.write_text(_json.dumps(_botzone_corpus()))
    out = folder / "out.jsonl"
    result = None

    def run() -> None:
        nonlocal result
        result = CliRunner().invoke(cli, ["import", "--from", "botzone", str(bad), str(good),
                                          "-o", str(out)], catch_exceptions=False)

    _bounded(run)
    assert result is not None and result.exit_code in (0, 2), result.output
    assert "internal error" not in result.output, result.output
    assert "botzone-good" in {h.match for h in gamelog.read_hands(out)}
