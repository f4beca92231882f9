"""Property: any record survives JSONL and Parquet both ways, byte for byte."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

from gamelog import dump, dumps, loads
from gamelog.files import events_of, read
from tests.strategies import record

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@settings(max_examples=1000, **SETTINGS)
@given(record())
def test_jsonl_round_trip(events):
    text = dumps(events)
    back = [e for match in loads(text) for e in match.events()]
    assert back == events
    assert dumps(back) == text


@pytest.mark.slow
@settings(max_examples=250, **SETTINGS)
@given(record())
def test_parquet_round_trip(events):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.parquet"
        dump(events, path)
        back = list(events_of(read(path, strict=True, with_headers=True)))
    assert back == events
    assert dumps(back) == dumps(events)


@settings(max_examples=100, **SETTINGS)
@given(record(max_hands=2), record(max_hands=2))
def test_concatenated_files_read_as_both_matches(a, b):
    assume(a[0].match != b[0].match)
    text = dumps(a) + dumps(b)
    back = [e for match in loads(text) for e in match.events()]
    assert back == a + b
