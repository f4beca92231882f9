"""The command line: exit codes, messages without tracebacks, byte-identical conversion."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from gamelog import dump, dumps
from gamelog.schema import SCHEMA_PATH, schema_text
from shengji.cli import cli
from tests.helpers import jsonl_lines, small_match

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "samples").rglob("*.jsonl") if not p.name.endswith(".labels.jsonl"))


def run(*args: str):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_samples_exist_for_every_ruleset():
    rulesets = {json.loads(p.read_text().splitlines()[0])["ruleset"] for p in SAMPLES}
    assert {"tractor", "four-deck", "biaofen", "wanfen"} <= rulesets


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_convert_round_trips_every_sample_byte_identically(sample, tmp_path):
    assert dumps([]) == b""
    pq_path, back = tmp_path / "s.parquet", tmp_path / "s.jsonl"
    assert run("convert", sample, pq_path).exit_code == 0
    assert run("convert", pq_path, back).exit_code == 0
    assert back.read_bytes() == sample.read_bytes()


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_samples_are_canonical_and_their_parquet_twin_matches(sample):
    from gamelog.files import events_of, read

    events = list(events_of(read(sample, strict=True, with_headers=True)))
    assert dumps(events) == sample.read_bytes()
    twin = sample.with_suffix(".parquet")
    if twin.exists():
        assert list(events_of(read(twin, strict=True, with_headers=True))) == events


def test_convert_directories(tmp_path):
    src = tmp_path / "in"
    dump(small_match("a"), src / "a.jsonl")
    dump(small_match("b"), src / "sub" / "b.jsonl.gz")
    result = run("convert", src, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "a.parquet").exists()
    assert (tmp_path / "out" / "sub" / "b.parquet").exists()
    result = run("convert", tmp_path / "out", tmp_path / "again", "--to", "jsonl")
    assert result.exit_code == 0
    assert (tmp_path / "again" / "a.jsonl").read_bytes() == dumps(small_match("a"))


def test_convert_reports_bad_lines_keeps_good_hands_and_exits_2(tmp_path):
    lines = jsonl_lines(small_match(hands=3))
    lines[12] = lines[12].replace('"cards":["KS"]', '"cards":["K♠"]')
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    result = run("convert", tmp_path / "bad.jsonl", tmp_path / "out.jsonl")
    assert result.exit_code == 2
    assert "bad.jsonl, line 13, field $.cards[0]: unknown card 'K♠'; write it as 'KS'" in \
        result.output
    assert "Traceback" not in result.output
    out = (tmp_path / "out.jsonl").read_text().splitlines()
    assert len(out) == len(lines) - 1
    result = run("convert", "--strict", tmp_path / "bad.jsonl", tmp_path / "strict.jsonl")
    assert result.exit_code == 2 and not (tmp_path / "strict.jsonl").exists()


def test_usage_and_io_errors_exit_2_without_traceback(tmp_path):
    assert run("convert", tmp_path / "missing.jsonl", tmp_path / "x.jsonl").exit_code == 2
    (tmp_path / "a.csv").write_text("hello")
    result = run("convert", tmp_path / "a.csv", tmp_path / "x.jsonl")
    assert result.exit_code == 2 and "cannot tell the format" in result.output
    assert "Traceback" not in result.output
    assert run("no-such-command").exit_code == 2


def test_schema_command_prints_the_committed_schema(tmp_path):
    result = run("schema")
    assert result.exit_code == 0
    assert result.output == schema_text() == SCHEMA_PATH.read_text()
    assert run("schema", "-o", tmp_path / "s.json").exit_code == 0
    assert (tmp_path / "s.json").read_text() == SCHEMA_PATH.read_text()
    tags = {d["properties"]["type"]["enum"][0] for d in json.loads(result.output)["$defs"].values()
            if "type" in d.get("properties", {})}
    assert {"match", "hand", "deal", "setup", "play", "throw_fail", "result"} <= tags


def test_schema_validates_the_samples():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    checked = 0
    for sample in SAMPLES:
        for k, line in enumerate(sample.read_text().splitlines()):
            # every line but plays and tricks, and every fifth of those (four in five lines
            # are plays and tricks, and the Python validator takes 2 ms a line)
            if k % 5 and line.startswith(('{"type":"play"', '{"type":"trick"')):
                continue
            errors = list(validator.iter_errors(json.loads(line)))
            assert errors == [], (sample.name, line[:80], errors[:1])
            checked += 1
    assert checked > 1000


def test_show_prints_holdings_and_events():
    sample = ROOT / "samples" / "examples" / "tractor-2deck.jsonl"
    result = run("show", sample, "--no-color")
    assert result.exit_code == 0
    assert "Match ex-tractor-2" in result.output
    # dealt order: this hand's declarations say how many cards had been dealt (see
    # gamelog.notation); a hand without them is shown sorted by suit
    assert re.search(r"seat 0 holds ♦9 ♠2 ♥10 ♦7 BJ ♠A", result.output)
    assert "throw_fail seat 2" in result.output
    ascii_out = run("show", sample, "--ascii").output
    assert "seat 0 holds 9D 2S TH 7D BJ AS" in ascii_out
    typed = run("show", ROOT / "samples" / "examples" / "biaofen-3p.jsonl", "--ascii").output
    assert "seat 0 holds LJ LJ AS JS JS 9S" in typed  # no declaration: sorted by suit
    assert run("show", sample, "--hand", "9").exit_code == 2


def test_every_command_is_documented():
    doc = (ROOT / "docs" / "cli.md").read_text()
    ctx = click.Context(cli)
    names = cli.list_commands(ctx)
    assert len(names) >= 11
    for name in names:
        command = cli.get_command(ctx, name)
        assert command is not None and command.name == name, name
        assert command.help and command.help.strip(), name
        assert f"## shengji {name}" in doc, f"docs/cli.md lacks a section for {name}"
        section = doc.split(f"## shengji {name}", 1)[1].split("\n## ", 1)[0]
        for param in command.params:
            spellings = [o for o in getattr(param, "opts", []) if o.startswith("-")]
            if spellings:  # an option: documented under one of its spellings
                assert any(o in section for o in spellings), f"{name} {spellings}"


def test_validate_exit_codes_and_json(tmp_path):
    clean = ROOT / "samples" / "examples" / "tractor-1deck.jsonl"
    result = run("validate", clean)
    assert result.exit_code == 0 and "OK" in result.output and "1 clean" in result.output
    result = run("validate", ROOT / "samples" / "violations" / "tractor.jsonl", "--format", "json")
    assert result.exit_code == 1
    objects = [json.loads(line) for line in result.output.splitlines()]
    assert len(objects) == 33
    pair = next(o for o in objects if o["match"] == "v-pair")
    assert pair["violations"][0]["rule"] == "follow.pair-required"
    assert pair["violations"][0]["required"] == "seat 1 held ♥3 ♥3"
    strict = run("validate", "--strict", ROOT / "samples" / "violations" / "tractor.jsonl")
    assert strict.exit_code == 1 and strict.output.count("violation(s)") <= 2


def test_validate_reports_a_bad_line_and_checks_the_rest(tmp_path):
    lines = (ROOT / "samples" / "examples" / "tractor-1deck.jsonl").read_text().splitlines()
    k = next(i for i, line in enumerate(lines) if '"type":"play"' in line and i > 15)
    lines[k] = lines[k].replace('"seat":', '"seat":"x","s":')
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    result = run("validate", tmp_path / "bad.jsonl")
    assert result.exit_code == 2
    assert f"bad.jsonl, line {k + 1}, field $.seat: wrong type" in result.output
    assert "match ex-tractor-1 hand 1 (tractor)" in result.output
    assert "Traceback" not in result.output


def test_validate_ruleset_override_and_unknown_ruleset():
    clean = ROOT / "samples" / "examples" / "tractor-1deck.jsonl"
    result = run("validate", clean, "-O", "decks=2")
    assert result.exit_code == 1 and "deal.card-count" in result.output
    result = run("validate", clean, "--ruleset", "nonesuch")
    assert result.exit_code == 2 and "unknown ruleset 'nonesuch'" in result.output
    result = run("validate", clean, "-O", "decks=7")
    assert result.exit_code == 2 and "decks must be one of" in result.output


def test_rules_lists_rulesets_and_options():
    result = run("rules")
    assert result.exit_code == 0
    assert "tractor" in result.output and "decks (int, default 2) one of [1, 2, 3]" in result.output


def test_validate_in_parallel_prints_the_same_in_the_same_order():
    target = ROOT / "samples" / "matches"
    one = run("validate", target, "--format", "json")
    two = run("validate", target, "--format", "json", "-j", "2")
    assert one.exit_code == two.exit_code == 1
    assert one.output == two.output


def test_the_annotated_hand_in_the_format_spec_is_the_current_sample():
    doc = (ROOT / "docs" / "format.md").read_text()
    sample = (ROOT / "samples" / "examples" / "tractor-1deck.jsonl").read_text()
    assert sample in doc


def test_validate_in_parallel_from_raw_lines_matches_one_process(tmp_path, monkeypatch):
    """JSON Lines go to the workers as raw lines cut at match boundaries: the output, the
    record problems and the exit code are those of one process, also with a bad line, a
    truncated last line and a match whose hands are apart (its header sent again, unreported)."""
    import functools

    import shengji.cli.commands.validate as cli_module

    lines = (ROOT / "samples" / "violations" / "tractor.jsonl").read_bytes().splitlines(True)
    lines += (ROOT / "samples" / "matches" / "tractor-2deck.jsonl").read_bytes().splitlines(True)
    first_match = json.loads(lines[0])["match"]
    apart = [ln for ln in lines if json.loads(ln)["match"] == first_match and
             json.loads(ln)["type"] != "match"]
    lines = [ln for ln in lines if ln not in apart or json.loads(ln)["type"] == "match"]
    assert b'"seq":0' in lines[0]
    lines[0] = lines[0].replace(b'"seq":0', b'"seq":3', 1)  # a header problem, reported once
    lines[40:40] = [b'{"type":"play","match":"x" BROKEN\n']
    lines += apart  # the first match's hands after all the others
    lines += [b'{"type":"play","match":"tail","hand":1,']  # truncated
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"".join(lines))
    monkeypatch.setattr(cli_module, "_validate_lines_parallel",
                        functools.partial(cli_module._validate_lines_parallel, batch_lines=50))
    for fmt in ("text", "json"):
        one = CliRunner().invoke(cli, ["validate", str(path), "--format", fmt])
        two = CliRunner().invoke(cli, ["validate", str(path), "--format", fmt, "-j", "2"])
        assert one.exit_code == two.exit_code == 2
        assert one.output == two.output
    assert "truncated last line" in one.output and "line 41" in one.output


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_truncated_gzip_file_is_an_input_error_with_or_without_workers(tmp_path, jobs):
    import gzip

    whole = gzip.compress((ROOT / "samples" / "violations" / "tractor.jsonl").read_bytes())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[:3000])
    result = run("validate", path, "-q", "-j", jobs)
    assert result.exit_code == 2
    assert f"{path}: read failed after line" in result.output
    assert "Traceback" not in result.output
