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
