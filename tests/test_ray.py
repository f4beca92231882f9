"""Issue 28 (and 15): on Ray the workers read the records and write the tables themselves, and
give the local engine's results. The planner is tested without Ray; the engine on a local Ray
started for the run and on a two-node cluster (a head and a second raylet on this machine's
loopback, one CPU each, started and stopped by the tests), with a worker killed mid-export."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from analyze.distributed import in_file_order
from analyze.shares import Share, group_files, match_hashes, plan_shares
from shengji.cli import cli
from tests.raycluster import ENV, two_nodes

pytestmark = pytest.mark.xdist_group("ray")  # one Ray at a time when the suite runs on -n cores

ROOT = Path(__file__).resolve().parents[1]
MATCHES = ROOT / "samples" / "matches"
INPUTS = [str(MATCHES / f"{stem}.jsonl") for stem in (
    "tractor-2deck-injected", "four-deck", "biaofen-4p-injected", "wanfen-injected")]


def shengji(*args: str) -> subprocess.CompletedProcess:
    """The command line in its own process, as a user runs it (Ray is started and stopped
    once per process: a second ``ray.init`` in one process is not reliable)."""
    env = {**os.environ, **ENV}
    return subprocess.run([sys.executable, "-m", "shengji.cli", *args], capture_output=True,
                          text=True, env=env, timeout=600)


def rows(frame: pl.DataFrame) -> list[str]:
    return sorted(repr(sorted(r.items())) for r in frame.to_dicts())


def renamed_copies(source: Path, copies: int, target: Path) -> Path:
    """``copies`` copies of every match of a JSON Lines file, each under its own match id."""
    text = source.read_bytes()
    pattern = re.compile(rb'("match":")([^"]*)(")')
    target.write_bytes(b"".join(pattern.sub(rb"\g<1>\g<2>~%d\g<3>" % k, text)
                                for k in range(copies)))
    return target


def split_match(source: Path, folder: Path) -> tuple[Path, Path]:
    """A one-match file cut in two at a hand boundary: the header and first hands in one file,
    the rest in another (a match split across files)."""
    lines = source.read_bytes().splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith(b'{"type":"hand"')]
    cut = starts[len(starts) // 2]
    first, second = folder / "a-first.jsonl", folder / "c-second.jsonl"
    first.write_bytes(b"".join(lines[:cut]))
    second.write_bytes(b"".join(lines[cut:]))
    return first, second


# -- the planner, without Ray ----------------------------------------------------------------------

def test_files_that_share_a_match_are_one_group_in_input_order(tmp_path):
    first, second = split_match(MATCHES / "tractor-2deck.jsonl", tmp_path)
    other = MATCHES / "four-deck.jsonl"
    hashes = [match_hashes(str(p)) for p in (first, other, second, MATCHES / "wanfen.jsonl")]
    assert hashes[0] == hashes[2] and len(hashes[0]) == 1 and hashes[1] != hashes[0]
    assert group_files(hashes) == [(0, 2), (1,), (3,)]
    assert group_files([[1, 2], [3], [4, 2], [5, 3]]) == [(0, 2), (1, 3)]
    # Parquet: the match column, the same hashes as the JSON Lines of the same records
    assert match_hashes(str(MATCHES / "four-deck.parquet")) == hashes[1]
    assert match_hashes(str(tmp_path / "missing.jsonl")) == []


def test_the_quick_match_scan_finds_what_the_careful_one_finds():
    from analyze.shares import _MATCH_KEY, _ids_in

    for path in sorted(MATCHES.glob("*.jsonl")):
        data = path.read_bytes()
        careful = set(_MATCH_KEY.findall(data))
        assert _ids_in(data) == careful, path.name
        for cut in (1, len(data) // 3):  # blocks that start or end mid-file
            start = data.index(b"\n", cut) + 1
            assert _ids_in(data[start:]) == set(_MATCH_KEY.findall(data[start:])), path.name
    odd = (b'{"type":"match","match":"a\\"b"}\n{"type":"hand","match":"c"}\n'
           b'{"type":"play","match":"d"}\n{ "type": "hand", "match" : "e"}\n')
    assert _ids_in(odd) == {b'a\\"b', b"c", b"d", b"e"}  # spelled otherwise: every key
    canonical = odd.rsplit(b"\n", 2)[0] + b"\n"  # every line as we write it, an escape in one
    assert _ids_in(canonical) == {b'a\\"b', b"c", b"d"}


def test_shares_join_small_groups_cut_large_ones_and_reviews_by_hand():
    groups = [(0,), (1, 2), (3,), (4,)]
    sizes = [1 << 20, 1 << 20, 1 << 20, 64 << 20, 3 << 20]
    shares = plan_shares(groups, sizes, workers=4)
    assert shares[0] == Share((0, 1, 2))  # small groups in order, read by one task
    assert [(s.files, s.share, s.shares) for s in shares[1:5]] == [((3,), k, 4) for k in range(4)]
    assert shares[5:] == [Share((4,))]
    small = plan_shares([(0,)], [1 << 20], workers=2)
    assert small == [Share((0,))]  # reading a small file twice costs more than it gives
    apart = plan_shares([(0, 2), (1,), (3,), (4,), (5,), (6,), (7,)], [1 << 10] * 8, workers=1)
    assert [s.files for s in apart] == [(0, 2), (1, 3), (4, 5), (6, 7)]  # a quarter each
    assert len(plan_shares([(0,)], [1 << 10], workers=2, per_hand=True)) == 8


def test_results_come_back_in_file_order_once_a_group_is_complete():
    shares = [Share((0, 2), 0, 2), Share((1,)), Share((0, 2), 1, 2)]
    results = [[(2, 0, "c0"), (0, 1, "a1")], [(1, 0, "b0")], [(0, 0, "a0"), (2, 1, "c1")]]
    out = list(in_file_order(shares, results, lambda r: r))
    assert [values for _, values in out] == [[], [], ["a0", "a1", "b0", "c0", "c1"]]
    # groups joined into tasks whose files interleave: still file by file
    shares = [Share((0, 2)), Share((1, 3))]
    results = [[(0, 0, "a"), (2, 0, "c")], [(1, 0, "b"), (3, 0, "d")]]
    out = list(in_file_order(shares, results, lambda r: r))
    assert [values for _, values in out] == [["a"], ["b", "c", "d"]]


# -- a local Ray started for the run ---------------------------------------------------------------

def test_a_local_ray_gives_the_local_engines_verdicts():
    pytest.importorskip("ray")
    one = shengji("validate", *INPUTS, "--format", "json")
    ray_out = shengji("validate", *INPUTS, "--format", "json", "--engine", "ray")
    assert ray_out.returncode == one.returncode == 1
    assert (ray_out.stdout, ray_out.stderr) == (one.stdout, one.stderr)


def test_an_unreachable_cluster_is_a_clean_error_not_a_wait(tmp_path, monkeypatch):
    from analyze import distributed

    monkeypatch.setattr(distributed, "CONNECT_TIMEOUT", 2.0)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    result = CliRunner().invoke(cli, ["validate", INPUTS[0], "--engine", "ray",
                                      "--ray-address", f"127.0.0.1:{port}"])
    assert result.exit_code == 2 and "cannot reach the Ray cluster" in result.output
    assert "Traceback" not in result.output and time.monotonic() - started < 30
    result = CliRunner().invoke(cli, ["export", INPUTS[0], "-o", str(tmp_path / "t"),
                                      "--engine", "ray", "--ray-address",
                                      f"ray://127.0.0.1:{port}"])
    assert result.exit_code == 2 and "cannot reach" in result.output
    assert not (tmp_path / "t").exists()


# -- a two-node cluster on this machine ------------------------------------------------------------

@pytest.fixture(scope="module")
def cluster():
    """A head and a second raylet on 127.0.0.1, one CPU each; yields the head's address."""
    pytest.importorskip("ray")
    with two_nodes() as address:
        yield address


def _tables(folder: Path) -> dict[str, pl.DataFrame]:
    """An export's tables (a file each, or partitioned folders) without partition keys."""
    out = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            parts = list(entry.glob("**/*.parquet"))
            if not parts:
                continue
            frame = pl.read_parquet(entry / "**" / "*.parquet", hive_partitioning=True)
            out[entry.name] = frame.drop("bucket")
        elif entry.suffix == ".parquet":
            out[entry.stem] = pl.read_parquet(entry)
    return out


def _same_tables(local: Path, on_ray: Path) -> None:
    expected, got = _tables(local), _tables(on_ray)
    for name, frame in expected.items():
        if frame.is_empty():
            continue
        theirs = got[name]
        if "ruleset" not in frame.columns:
            theirs = theirs.drop("ruleset")
        assert rows(theirs.select(frame.columns).cast(frame.schema)) == rows(frame), name
    assert set(got) <= set(expected)


def test_two_nodes_give_the_local_results_for_validate_export_and_review(cluster, tmp_path,
                                                                        monkeypatch):
    # the reports' generation stamp (minutes) must not part the two runs across a minute
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    split = tmp_path / "split"
    split.mkdir()
    split_match(MATCHES / "tractor-1deck-injected.jsonl", split)
    (split / "b-between.jsonl").write_bytes((MATCHES / "wanfen-injected.jsonl").read_bytes())
    inputs = [*INPUTS, str(split), str(MATCHES / "tractor-3deck.parquet")]
    on = ["--engine", "ray", "--ray-address", cluster]

    for fmt in ("json", "text"):
        one = shengji("validate", *inputs, "--format", fmt, "-j", "1")
        two = shengji("validate", *inputs, "--format", fmt, *on)
        assert two.returncode == one.returncode == 1, two.stderr
        assert (two.stdout, two.stderr) == (one.stdout, one.stderr)

    local = CliRunner().invoke(cli, ["export", *inputs, "-o", str(tmp_path / "local"),
                                     "-j", "1"])
    assert local.exit_code == 0, local.output
    on_ray = shengji("export", *inputs, "-o", str(tmp_path / "ray"), *on)
    assert on_ray.returncode == 0, on_ray.stderr
    _same_tables(tmp_path / "local", tmp_path / "ray")
    assert any(p.parent.name.startswith("bucket=") for p in (tmp_path / "ray").rglob("*.parquet"))
    assert not list((tmp_path / "ray").rglob(".parts"))  # every attempt moved in or removed
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no build left

    review = ["review", str(split / "a-first.jsonl"), str(split / "c-second.jsonl"),
              "--hand", "16-18", "--samples", "2", "--confirm", "2", "--seed", "3",
              "--level", "quick", "--format", "json"]
    one = shengji(*review, "-j", "1")
    two = shengji(*review, *on)
    assert one.returncode == two.returncode == 0, two.stderr
    assert two.stdout == one.stdout and len(one.stdout.splitlines()) == 3
    reviewed = [json.loads(line) for line in two.stdout.splitlines()]
    assert any(r["decisions"] for r in reviewed)

    # the quick level: the same machinery as the default, a twentieth of the time
    report = ["report", str(split / "a-first.jsonl"), "--review", "--review-samples", "1",
              "--review-level", "quick", "--hand", "2-3"]
    local = CliRunner().invoke(cli, [*report, "-o", str(tmp_path / "local.html"), "-j", "1"])
    on_ray = shengji(*report, "-o", str(tmp_path / "ray.html"), *on)
    assert local.exit_code == on_ray.returncode == 0, on_ray.stderr
    page = (tmp_path / "ray.html").read_text(encoding="utf-8")
    assert page == (tmp_path / "local.html").read_text(encoding="utf-8")
    assert '"alts"' in page  # the reviews are in the hands' viewers

    export_review = ["export", str(split / "a-first.jsonl"), "--review", "--review-samples",
                     "1", "--review-level", "quick"]
    local = CliRunner().invoke(cli, [*export_review, "-o", str(tmp_path / "lr"), "-j", "1"])
    on_ray = shengji(*export_review, "-o", str(tmp_path / "rr"), *on)
    assert local.exit_code == on_ray.returncode == 0, on_ray.stderr
    _same_tables(tmp_path / "lr", tmp_path / "rr")
    assert len(_tables(tmp_path / "rr")["decisions"]) > 100
    assert _tables(tmp_path / "rr")["decisions"]["ruleset"].unique().to_list() == ["tractor"]


def _workers(name: str) -> list[int]:
    """Processes running a Ray task of that function (Ray names them ``ray::NAME``)."""
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return [int(line.split(None, 1)[0]) for line in out.splitlines()
            if line.split(None, 1)[-1].startswith(f"ray::{name}")]


def test_a_worker_killed_mid_export_leaves_the_whole_new_export(cluster, tmp_path):
    for k, stem in enumerate(("tractor-2deck", "tractor-1deck", "four-deck", "wanfen")):
        renamed_copies(MATCHES / f"{stem}.jsonl", 12, tmp_path / f"in-{k}.jsonl")
    inputs = sorted(str(p) for p in tmp_path.glob("in-*.jsonl"))
    expected = CliRunner().invoke(cli, ["export", *inputs, "-o", str(tmp_path / "local"),
                                        "-j", "2"])
    assert expected.exit_code == 0, expected.output
    out = tmp_path / "tables"
    old = shengji("export", inputs[0], "-o", str(out), "--engine", "ray", "--ray-address",
                  cluster)
    assert old.returncode == 0, old.stderr

    command = [sys.executable, "-m", "shengji.cli", "export", *inputs, "-o", str(out),
               "--engine", "ray", "--ray-address", cluster]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env={**os.environ, **ENV})
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and run.poll() is None and time.monotonic() < deadline:
        busy = _workers("export_task")
        if busy:
            time.sleep(0.5)  # let it write a part or two first
            os.kill(busy[0], signal.SIGKILL)
            killed = busy[0]
        time.sleep(0.05)
    _, err = run.communicate(timeout=300)
    assert killed is not None, "no export task was seen running"
    assert run.returncode == 0, err.decode()
    _same_tables(tmp_path / "local", out)  # Ray ran the lost task again: the whole new export
    assert not list(out.rglob(".parts"))


def test_a_killed_export_leaves_the_old_output(cluster, tmp_path):
    for k in range(2):
        renamed_copies(MATCHES / "tractor-3deck.jsonl", 24, tmp_path / f"in-{k}.jsonl")
    inputs = sorted(str(p) for p in tmp_path.glob("in-*.jsonl"))
    out = tmp_path / "tables"
    old = shengji("export", str(MATCHES / "wanfen.jsonl"), "-o", str(out), "--engine", "ray",
                  "--ray-address", cluster)
    assert old.returncode == 0, old.stderr
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    run = subprocess.Popen([sys.executable, "-m", "shengji.cli", "export", *inputs, "-o",
                            str(out), "--engine", "ray", "--ray-address", cluster],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env={**os.environ, **ENV})
    deadline = time.monotonic() + 120
    while not _workers("export_task") and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.1)  # a task has started; the run takes seconds more
    run.send_signal(signal.SIGKILL)  # the driver itself, mid-run
    assert run.wait(timeout=60) == -signal.SIGKILL  # it had not finished
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_an_error_a_task_raises_reaches_the_command_as_itself(monkeypatch):
    """Ray wraps a task's exception in its task error, whose text carries the remote
    traceback; the engine gives the command the task's own exception (its one-line message)."""
    ray = pytest.importorskip("ray")
    from analyze import distributed
    from gamelog.errors import GamelogIOError

    original = GamelogIOError("/data: the driver's working directory is not on this node")
    wrapped = ray.exceptions.RayTaskError("validate_task", "Traceback (most recent call last):\n"
                                          "  File ...", original)
    assert distributed.unwrap_task_error(wrapped) is original

    def failing_get(ref):
        raise wrapped

    monkeypatch.setattr(ray, "get", failing_get)
    with pytest.raises(GamelogIOError) as caught:
        distributed._result(object())
    assert caught.value is original and "Traceback" not in str(caught.value)
