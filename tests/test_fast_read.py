"""Issue 27: the reader's block fast path (a canonical block of lines decoded and checked at
once, each hand's events as one run) reads exactly what the line-by-line path reads, and
``shengji validate`` imports only what it needs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gamelog import files, jsonl

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "samples").rglob("*.jsonl")
                 if not p.name.endswith(".labels.jsonl"))


def read_both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list, list]:
    """What the reader yields (hands and headers, and the problems) with the block path and
    with every block read line by line."""

    def collect() -> tuple[list, list]:
        issues: list = []
        items = list(files.read(path, strict=False, issues=issues, with_headers=True))
        return ([(type(i).__name__, getattr(i, "match", None), getattr(i, "number", None),
                  getattr(i, "first_line", None), list(getattr(i, "events", [])),
                  [str(x) for x in getattr(i, "issues", [])]) for i in items],
                [(str(x), getattr(x, "line", None)) for x in issues])

    fast = collect()
    with monkeypatch.context() as m:
        m.setattr(jsonl, "canonical_block", lambda *args: None)
        slow = collect()
    return fast, slow


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_reads_the_same_by_blocks_and_by_lines(path, monkeypatch):
    fast, slow = read_both(path, monkeypatch)
    assert fast == slow
    assert fast[0]


def big_file(tmp_path: Path) -> tuple[Path, list[str]]:
    """The two-deck sample match repeated under new match ids: a file of several 1 MiB blocks
    (past 2 MiB whatever the sample's length), whose hands cross block boundaries."""
    sample = ROOT / "samples" / "matches" / "tractor-2deck.jsonl"
    copies = 1 + (5 << 19) // sample.stat().st_size
    lines = sample.read_text().splitlines()
    first = json.loads(lines[0])["match"]
    out = [line.replace(f'"match":"{first}"', f'"match":"{first}-{k}"')
           for k in range(copies) for line in lines]
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(out) + "\n")
    assert path.stat().st_size > 2 << 20
    return path, out


def test_a_file_of_many_blocks_reads_the_same_and_finds_what_lines_find(tmp_path, monkeypatch):
    path, lines = big_file(tmp_path)
    fast, slow = read_both(path, monkeypatch)
    assert fast == slow and not fast[1]
    # three faults deep inside canonical blocks: a key twice, a sequence number repeated, a
    # line whose spacing is not canonical (not a fault: read line by line, no problem)
    at = len(lines) // 2
    while json.loads(lines[at])["type"] != "play":
        at += 1
    lines[at] = lines[at].replace('"seat":', '"seat":3,"seat":', 1)
    again = at + 700
    while not all(json.loads(lines[i])["type"] == "play" for i in (again - 1, again)):
        again += 1
    lines[again] = lines[again - 1]
    lines[at + 1500] = lines[at + 1500].replace(",", ", ", 1)
    path.write_text("\n".join(lines) + "\n")
    fast, slow = read_both(path, monkeypatch)
    assert fast == slow
    problems = fast[1]
    assert any("a key appears twice" in text and line == at + 1 for text, line in problems)
    assert any("duplicate sequence number" in text and line == again + 1
               for text, line in problems)
    assert not any(line == at + 1501 for _, line in problems)


def test_validate_imports_only_what_it_needs():
    """Start-up (issue 27): no polars, pyarrow, jinja2 or plotly, none of the writers'
    modules, no other command's module, and neither json nor hashlib (OpenSSL), for
    ``shengji validate`` of a JSON Lines file."""
    code = ("import sys, shengji.cli\n"
            "sys.argv = ['shengji', 'validate', sys.argv[1], '-q']\n"
            "try:\n    shengji.cli.main()\nexcept SystemExit:\n    pass\n"
            "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code,
                           str(ROOT / "samples" / "matches" / "tractor-1deck.jsonl")],
                          capture_output=True, text=True, cwd=ROOT)
    loaded = set(done.stderr.split()[-1000:])
    assert "replay.engine" in loaded  # it did validate
    for heavy in ("polars", "pyarrow", "jinja2", "plotly", "analyze", "gamelog.outputs",
                  "gamelog.notation", "gamelog.parquet", "tempfile", "shutil",
                  "shengji.cli.commands.report", "shengji.cli.commands.review",
                  "shengji.cli.commands.simulate", "shengji.cli.commands.records", "json",
                  "hashlib"):
        assert heavy not in loaded, heavy


def test_a_file_from_another_writer_is_tried_on_the_fast_path_once(tmp_path, monkeypatch):
    """Lines that decode but are spelled otherwise (here a space after each comma) mean
    another writer: the rest of the file goes line by line without decoding every block
    twice, and reads the same."""
    path, lines = big_file(tmp_path)
    path.write_text("\n".join(line.replace(",", ", ") for line in lines) + "\n")
    tried = []
    real = jsonl.canonical_block
    monkeypatch.setattr(jsonl, "canonical_block",
                        lambda *args: tried.append(1) or real(*args))
    issues: list = []
    hands = list(files.read_hands(path, strict=False, issues=issues))
    assert len(tried) == 1 and not issues
    assert len(hands) == len({(json.loads(x)["match"], json.loads(x)["hand"])
                              for x in lines if json.loads(x)["type"] != "match"})


def _runs_and_lines(path: Path, heads: tuple[bytes, ...]) -> tuple[list, list]:
    with path.open("rb") as stream:
        runs = list(jsonl.numbered_runs(stream, str(path), heads))
    with path.open("rb") as stream:
        lines = list(jsonl.numbered_lines(stream, str(path)))
    return runs, lines


def test_runs_of_lines_are_the_lines_with_each_head_alone(tmp_path):
    """``numbered_runs`` (what ``validate -j`` hands its workers): its runs split back into
    the lines ``numbered_lines`` reads, numbered alike, every line that begins with a head
    (a hand's or a match's first event) alone, and every run made of lines our writer wrote;
    in a file of many blocks, with a blank line, a line spelled otherwise and a truncated
    last line among them."""
    path, lines = big_file(tmp_path)
    heads = (b'{"type":"hand"', b'{"type":"match"')
    for faults in (False, True):
        if faults:
            lines[len(lines) // 3] = lines[len(lines) // 3].replace(",", ", ", 1)
            lines[len(lines) // 2] += "\n"  # a blank line after it
            path.write_text("\n".join(lines) + '\n{"type":"play","match":"x"')
        runs, read = _runs_and_lines(path, heads)
        if not faults:  # a block with a line spelled otherwise goes line by line
            assert len(runs) < len(read) / 20  # most lines come in runs
        again = [(n, line) for number, data, count in runs
                 for n, line in enumerate(data.split(b"\n"), number)]
        assert again == read
        assert [count for _, data, count in runs] == [data.count(b"\n") + 1 for _, data, _ in runs]
        for _, data, count in runs:
            if count > 1 or not data.startswith(heads):
                assert all(line.startswith(jsonl.CANONICAL_START) and not line.startswith(heads)
                           for line in data.split(b"\n")) or count == 1
        starts = [n for n, line in read if line.startswith(heads)]
        assert starts == [n for n, data, count in runs if data.startswith(heads) and count == 1]


def test_validate_on_two_cores_reads_a_file_of_many_blocks_as_one_process(tmp_path, monkeypatch):
    """``validate -j 2`` on a file of several 1 MiB blocks cut into small batches, with faults
    deep inside its blocks (a key twice, a line spelled otherwise, a bad line, a hand's first
    line spelled otherwise): the output and exit code of one process."""
    import functools

    from click.testing import CliRunner

    import shengji.cli.commands.validate as cli_module
    from shengji.cli import cli

    path, lines = big_file(tmp_path)
    at = len(lines) // 2
    while json.loads(lines[at])["type"] != "play":
        at += 1
    lines[at] = lines[at].replace('"seat":', '"seat":3,"seat":', 1)
    lines[at + 900] = lines[at + 900].replace(",", ", ", 1)
    lines[at + 1700] = '{"type":"play" BROKEN'
    hand = next(i for i in range(at + 2500, len(lines)) if json.loads(lines[i])["type"] == "hand")
    lines[hand] = lines[hand].replace(",", ", ")
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(cli_module, "_validate_lines_parallel",
                        functools.partial(cli_module._validate_lines_parallel, batch_lines=700))
    outputs = [CliRunner().invoke(cli, ["validate", str(path), "--format", "json", "-j", jobs])
               for jobs in ("1", "2")]
    assert outputs[0].exit_code == outputs[1].exit_code == 2
    assert outputs[0].output == outputs[1].output
    assert "a key appears twice" in outputs[0].output
