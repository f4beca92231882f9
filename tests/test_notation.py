"""Issue 18 (in part): the typed text notation (what `shengji show` prints) read back.

show -> parse -> show is byte-identical (a property over random records and every sample), every
mistake is located by line and column, and a hand typed by a person validates.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

import gamelog
import replay
from gamelog import notation
from shengji.cli import cli
from tests.strategies import record

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "samples").rglob("*.jsonl")
                 if not p.name.endswith(".labels.jsonl"))


def text_of(events) -> str:
    return notation.dumps(events)


def parsed(text: str) -> list:
    issues: list = []
    events = list(gamelog.files.events_of(gamelog.files._read_text(text, issues)))
    return events, issues


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_every_sample_reads_back_from_its_text_with_the_same_verdicts(sample, tmp_path):
    text = tmp_path / "s.sjn"
    assert CliRunner().invoke(cli, ["convert", str(sample), str(text)]).exit_code == 0
    again = tmp_path / "again.sjn"
    assert CliRunner().invoke(cli, ["convert", str(text), str(again)]).exit_code == 0
    assert again.read_bytes() == text.read_bytes()
    shown = CliRunner().invoke(cli, ["show", str(sample), "--no-color"]).output
    assert CliRunner().invoke(cli, ["show", str(text), "--no-color"]).output == shown

    def verdicts(path):
        return [(r.match, r.hand, [v.rule for v in r.violations]) for r in replay.validate(path)]

    assert verdicts(text) == verdicts(sample)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(record(max_hands=2))
def test_show_parse_show_is_byte_identical(events):
    first = text_of(events)
    back, issues = parsed(first)
    assert issues == []
    assert text_of(back) == first


def test_mistakes_are_located_by_line_and_column(tmp_path):
    good = text_of(gamelog.load(ROOT / "samples" / "examples" / "tractor-1deck.jsonl"))
    lines = good.splitlines()
    k = next(i for i, line in enumerate(lines) if " play seat " in line)
    broken = list(lines)
    broken[k] = broken[k].replace("play seat", "play seat").rstrip() + " XX"
    broken[k + 1] = broken[k + 1].replace(" play ", " plya ")
    path = tmp_path / "bad.sjn"
    path.write_text("\n".join(broken) + "\n")
    issues: list = []
    hands = list(gamelog.read_hands(path, issues=issues))
    assert len(hands) == 1
    assert [i.line for i in issues[:2]] == [k + 1, k + 2]
    assert "column" in str(issues[0]) and "not a card" in str(issues[0])
    assert "unknown event type 'plya'" in str(issues[1])
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert result.exit_code == 2 and f"line {k + 1}" in result.output


TYPED = """\
# A hand typed by the club secretary: any card spelling will do.
Match club-2026-11  ruleset tractor  4 players  1 deck(s)  format 1.2
  seat 0: Ann team 0
  seat 1: Bo team 1
  seat 2: Chen team 0
  seat 3: Dee team 1
  starting levels: 2 / 2

Hand 1 of match club-2026-11
  seat 0 holds AS KS
  seat 1 holds QS JS
  seat 2 holds 10S 9S
  seat 3 holds 8S 7S
  events:
      0 hand dealer=0 declarer=0 level="2" first_draw=0
      1 setup trump="H" level="2" declarer=0 leader=0
      # the lead
      2 play seat 0 黑桃A
      3 play seat 1 ♠Q
      4 play seat 2 s10
      5 play seat 3 7s
      6 trick trick=1 winner=0 points=10
"""


def test_a_hand_typed_by_hand_reads_and_validates(tmp_path):
    path = tmp_path / "typed.sjn"
    path.write_text(TYPED)
    issues: list = []
    hands = list(gamelog.read_hands(path, issues=issues))
    assert issues == [] and len(hands) == 1
    lead = next(e for e in hands[0].events if isinstance(e, gamelog.Play))
    assert lead.cards == ["AS"] and lead.note == "the lead"
    reports = list(replay.validate(path))
    assert [v.rule for v in reports[0].violations] == []
    assert hands[0].header.seats[1].name == "Bo"
