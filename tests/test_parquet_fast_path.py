"""The Parquet reader's bulk path must agree with its per-row path, and fall back on doubt."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings

from gamelog import dump, read_hands
from gamelog.parquet import SCHEMA, _clean_codes, _convert, _materialize, _rows
from gamelog.reader import EventDecoder
from tests.helpers import small_match
from tests.strategies import record

ROOT = Path(__file__).resolve().parents[1]


def both_paths(path: Path):
    table = pq.read_table(path)
    batch = table.combine_chunks().to_batches()[0]
    fast = _convert(batch, 0, EventDecoder())
    slow = list(_rows(_materialize(batch), batch.num_rows, 0, EventDecoder()))
    return batch, fast, slow


@pytest.mark.parametrize("sample", sorted((ROOT / "samples").rglob("*.parquet")),
                         ids=lambda p: p.name)
def test_samples_take_the_fast_path_and_agree(sample):
    batch, fast, slow = both_paths(sample)
    assert _clean_codes(batch) is not None
    assert fast == slow


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record())
def test_random_records_agree(tmp_path_factory, events):
    path = tmp_path_factory.mktemp("fp") / "r.parquet"
    dump(events, path)
    _, fast, slow = both_paths(path)
    assert fast == slow
    assert [e for _, e in fast] == events


def rewrite(tmp_path, column, change):
    dump(small_match(), tmp_path / "a.parquet")
    table = pq.read_table(tmp_path / "a.parquet")
    values = table.column(column).to_pylist()
    change(values)
    idx = table.schema.get_field_index(column)
    table = table.set_column(idx, column, pa.array(values, type=SCHEMA.field(column).type))
    pq.write_table(table, tmp_path / "b.parquet")
    issues = []
    hands = list(read_hands(tmp_path / "b.parquet", issues=issues))
    return hands, issues


def test_a_column_its_event_type_lacks_is_an_error(tmp_path):
    def set_seat(values):
        values[7] = 3  # a 'trick' row given a seat

    hands, issues = rewrite(tmp_path, "seat", set_seat)
    assert len(issues) == 1 and issues[0].row == 7 and issues[0].field == "$.seat"
    assert "'trick' event has no such field" in str(issues[0])
    assert len(hands) == 2


def test_a_missing_required_value_is_an_error(tmp_path):
    def drop(values):
        values[3] = None  # a play without a seat

    _, issues = rewrite(tmp_path, "seat", drop)
    assert len(issues) == 1 and issues[0].row == 3 and "missing required field 'seat'" in \
        str(issues[0])


def test_a_null_card_inside_a_list_is_an_error(tmp_path):
    def null_card(values):
        values[3] = [None]

    _, issues = rewrite(tmp_path, "cards", null_card)
    assert len(issues) == 1 and issues[0].row == 3 and issues[0].field == "$.cards[0]"


def test_a_hidden_card_in_a_play_is_an_error(tmp_path):
    def hidden(values):
        values[3] = ["?"]

    _, issues = rewrite(tmp_path, "cards", hidden)
    assert len(issues) == 1 and "unknown card '?'" in str(issues[0])


def test_runs_give_the_same_hands_and_problems_as_single_events():
    """Runs of events (what the Parquet reader hands the assembler) must read exactly as the
    same events fed one by one, also where a run does not continue the current hand."""
    from gamelog.reader import EventRun, HandAssembler

    hands = list(read_hands(ROOT / "samples" / "matches" / "tractor-2deck.jsonl"))[:3]
    events = [hands[0].header] + [e for h in hands for e in h.events]
    damaged = events[:10] + events[12:]  # two events missing inside a hand: a sequence gap

    def read(items):
        asm = HandAssembler("x", "row", strict=False, decoder=EventDecoder())
        hands = list(asm.feed(items))
        return [(h.match, h.number, h.events, [str(i) for i in h.issues]) for h in hands], \
            [str(i) for i in asm.issues]

    def continues(a, b) -> bool:  # the reader's vectorised rule (_run_starts)
        return (a.match, a.hand, a.seq + 1) == (b.match, b.hand, b.seq) and \
            type(b).__name__ not in ("MatchStart", "HandStart")

    second = next(i for i in range(2, len(damaged)) if type(damaged[i]).__name__ == "HandStart")
    # The first hand: a run up to the gap, then a run after it, which does not continue the hand.
    runs: list = [(0, damaged[0]), (1, damaged[1]), (2, EventRun(damaged[2:10])),
                  (10, EventRun(damaged[10:second]))]
    starts = [second] + [i for i in range(second + 1, len(damaged))
                         if not continues(damaged[i - 1], damaged[i])]
    for s, e in zip(starts, [*starts[1:], len(damaged)], strict=True):
        runs.append((s, damaged[s]))
        if e - s > 1:
            runs.append((s + 1, EventRun(damaged[s + 1:e])))
    singles = list(enumerate(damaged))
    assert any(place == 10 and isinstance(item, EventRun) for place, item in runs)
    assert read(runs) == read(singles)
    assert read(singles)[1]  # the gap is reported


def played_matches(matches: int, hands: int) -> list:
    """Real-looking two-deck hands (about 118 events each) under ``matches`` match ids."""
    import sys

    sys.path.insert(0, str(ROOT / "samples"))
    import make_examples

    events: list = []
    for m in range(matches):
        for h in range(1, hands + 1):
            played = make_examples.tractor_example(2, f"m{m}", 100 * m + h)
            if h == 1:
                events.append(played[0])
            events += [msgspec.structs.replace(e, hand=h) for e in played[1:]]
    return events


@pytest.mark.parametrize("rows_per_group", [700, 100_000])
def test_many_hands_read_back_in_pieces(tmp_path, rows_per_group):
    """Row groups larger than a piece (512 rows), hands across piece and group boundaries,
    the rare event types put back in their places, match ids shared per match."""
    from gamelog import parquet

    events = played_matches(3, 6)
    assert len(events) > 4 * parquet._PIECE_ROWS
    path = tmp_path / "many.parquet"
    parquet.write(events, path, rows_per_group=rows_per_group)
    issues: list = []
    hands = list(read_hands(path, issues=issues))
    assert not issues
    assert [e for h in hands for e in h.events] == [e for e in events if e.hand != 0]
    ids = {id(e.match) for h in hands for e in h.events
           if e.match == "m1" and type(e).__name__ in ("Play", "TrickEnd")}
    assert len(ids) <= 2  # plays and trick claims: one string per match and row group
    _, fast, slow = both_paths(path) if rows_per_group > len(events) else (None, [], [])
    assert fast == slow


def test_an_optional_int_left_null_among_set_ones_reads_as_null(tmp_path):
    """An int column is read from its buffer only where no null can be read: trick claims
    with and without points must not get the value under a null."""
    from gamelog import parquet

    events = played_matches(1, 2)
    stripped = [msgspec.structs.replace(e, points=None)
                if type(e).__name__ == "TrickEnd" and e.seq % 3 == 0 else e for e in events]
    assert any(type(e).__name__ == "TrickEnd" and e.points is None for e in stripped)
    assert any(type(e).__name__ == "TrickEnd" and e.points for e in stripped)
    path = tmp_path / "points.parquet"
    parquet.write(stripped, path)
    _, fast, slow = both_paths(path)
    assert fast == slow
    assert [e for _, e in fast] == stripped
