"""Issue 15 (in part): every long command on all cores, identical to one process, with a
progress bar on a terminal and nothing extra in a pipe."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from shengji.cli import cli

ROOT = Path(__file__).resolve().parents[1]
MATCHES = ROOT / "samples" / "matches"
INPUTS = [MATCHES / f"{stem}.jsonl" for stem in ("tractor-2deck", "tractor-3deck-injected",
                                                 "biaofen-3p-injected", "wanfen")]


def run(*args: object, env: dict[str, str] | None = None):
    return CliRunner(env=env).invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.mark.parametrize("source", ["jsonl", "parquet"])
def test_validate_with_two_processes_is_byte_identical(tmp_path, source):
    inputs = INPUTS
    if source == "parquet":
        inputs = []
        for f in INPUTS:
            out = tmp_path / f"{f.stem}.parquet"
            assert run("convert", f, out).exit_code in (0, 2)
            inputs.append(out)
    one = run("validate", *inputs, "--format", "json", "-j", "1")
    two = run("validate", *inputs, "--format", "json", "-j", "2")
    assert one.exit_code == two.exit_code == 1
    assert one.output == two.output and one.output.count("\n") > 50


def test_export_and_report_with_two_processes_are_byte_identical(tmp_path):
    env = {"SOURCE_DATE_EPOCH": "1700000000"}
    for jobs in ("1", "2"):
        assert run("export", *INPUTS, "-o", tmp_path / f"t{jobs}", "-j", jobs,
                   env=env).exit_code == 0
        assert run("report", *INPUTS, "-o", tmp_path / f"r{jobs}.html", "-j", jobs,
                   env=env).exit_code == 0
    for table in sorted((tmp_path / "t1").glob("*.parquet")):
        assert table.read_bytes() == (tmp_path / "t2" / table.name).read_bytes(), table.name
    assert (tmp_path / "r1.html").read_bytes() == (tmp_path / "r2.html").read_bytes()


def test_anonymized_export_in_workers_is_that_of_one_process(tmp_path):
    for jobs in ("1", "2"):
        assert run("export", *INPUTS, "-o", tmp_path / f"t{jobs}", "-j", jobs,
                   "--anonymize").exit_code == 0
    tables = sorted((tmp_path / "t1").glob("*.parquet"))
    assert len(tables) >= 5
    for table in tables:
        assert table.read_bytes() == (tmp_path / "t2" / table.name).read_bytes(), table.name
    import polars as pl

    players = pl.read_parquet(tmp_path / "t2" / "plays.parquet")["player"].unique().to_list()
    assert players and all(p.startswith("Player ") for p in players)
    assert pl.read_parquet(tmp_path / "t2" / "matches.parquet")["tags"].null_count() > 0


@pytest.mark.parametrize("options", [["--anonymize"], ["--player", "Bo", "--hand", "2-40"],
                                     ["--violations-only", "--lang", "zh"], ["--dir"],
                                     ["--max-hands", "3", "--anonymize"]])
def test_report_rows_and_pages_made_in_workers_are_those_of_one_process(tmp_path, options):
    """With -j the workers make the report's rows and pages and the parent gives the players
    their labels, in input order: a name two ids share, anonymized aliases and the focus
    options come out as in one process."""
    import json

    lines = (MATCHES / "tractor-1deck.jsonl").read_text().splitlines()
    head = json.loads(lines[0])
    renamed = dict(head, match="other", seats=[dict(s, player=f"x-{s['player']}")
                                               for s in head["seats"]])
    twin = [json.dumps(renamed)] + [line.replace(f'"match":"{head["match"]}"', '"match":"other"')
                                    for line in lines[1:]]
    (tmp_path / "twins.jsonl").write_text("\n".join(twin) + "\n")
    inputs = [*INPUTS, tmp_path / "twins.jsonl", MATCHES / "tractor-1deck.jsonl"]
    env = {"SOURCE_DATE_EPOCH": "1700000000"}
    directory = options == ["--dir"]
    options = [] if directory else options
    outs = []
    for jobs in ("1", "2"):
        out = f"{tmp_path}/r{jobs}/" if directory else tmp_path / f"r{jobs}.html"
        result = run("report", *inputs, "-o", out, "-j", jobs, *options, env=env)
        assert result.exit_code == 0, result.output
        outs.append(Path(out))
    if directory:
        names = sorted(p.name for p in outs[0].iterdir())
        assert names == sorted(p.name for p in outs[1].iterdir()) and len(names) > 100
        for name in names:
            if name != ".shengji-output.json":
                assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    else:
        assert outs[0].read_bytes() == outs[1].read_bytes()
        text = outs[0].read_text()
        if not options:
            assert "(x-bot-1)" in text


def _stderr_on_a_terminal(args: list[str]) -> str:
    """Run the command with standard error on a pseudo-terminal; what it wrote there."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "shengji.cli", *args], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONWARNINGS": "ignore", "COLUMNS": "120"})
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize("command", ["validate", "export", "report"])
def test_a_progress_bar_on_a_terminal_and_none_in_a_pipe(tmp_path, command):
    args = [command, *map(str, INPUTS)]
    if command != "validate":
        args += ["-o", str(tmp_path / ("t" if command == "export" else "r.html"))]
    shown = _stderr_on_a_terminal(args)
    assert "hands/s" in shown and "100%" in shown, shown[-500:]
    if command != "validate":
        args[-1] += "2"
    piped = subprocess.run([sys.executable, "-m", "shengji.cli", *args], cwd=ROOT,
                           capture_output=True, text=True,
                           env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert "hands/s" not in piped.stderr and "%" not in piped.stderr


def test_a_partitioned_export_reads_as_one_data_set_with_the_same_rows(tmp_path):
    import duckdb
    import polars as pl

    assert run("export", *INPUTS, "-o", tmp_path / "flat").exit_code == 0
    assert run("export", *INPUTS, "-o", tmp_path / "parts", "--partitioned").exit_code == 0
    for table in sorted((tmp_path / "flat").glob("*.parquet")):
        expected = pl.read_parquet(table)
        if expected.is_empty():
            continue
        pattern = str(tmp_path / "parts" / table.stem / "**" / "*.parquet")
        got = pl.scan_parquet(pattern, hive_partitioning=True).collect().drop("bucket")
        if "ruleset" not in expected.columns:
            got = got.drop("ruleset")
        got = got.select(expected.columns).cast(expected.schema)
        assert sorted(map(repr, got.rows())) == sorted(map(repr, expected.rows())), table.stem
        count = duckdb.sql(f"select count(*) from read_parquet('{pattern}', "
                           "hive_partitioning=true)").fetchall()[0][0]
        assert count == expected.height


def _worker_that_dies(_: int) -> None:
    os._exit(3)


def test_a_worker_that_dies_is_reported_not_masked():
    """A worker process killed mid-task ends the pool with BrokenProcessPool (which the CLI
    reports), not an AttributeError from cleaning up a pool that is already gone."""
    from concurrent.futures.process import BrokenProcessPool

    from replay.parallel import in_order

    with pytest.raises(BrokenProcessPool):
        list(in_order(2, _worker_that_dies, [(1,), (2,), (3,)]))


@pytest.mark.parametrize("command", ["export", "report"])
def test_a_review_pass_shows_on_the_progress_bar(tmp_path, command):
    """--review adds a pass that takes seconds a hand: the bar counts it and ends at 100%."""
    sample = ROOT / "samples" / "examples" / "tractor-1deck.jsonl"
    out = tmp_path / ("t" if command == "export" else "r.html")
    shown = _stderr_on_a_terminal([command, str(sample), "-o", str(out), "--review",
                                   "--review-samples", "1"])
    assert "reviewing" in shown and "100%" in shown, shown[-500:]
