"""Issue 15 (in part): --engine ray gives the local engine's results, row for row, on the samples
(a local Ray started for the test)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from shengji.cli import cli

pytest.importorskip("ray.data")

ROOT = Path(__file__).resolve().parents[1]
MATCHES = ROOT / "samples" / "matches"
INPUTS = [str(MATCHES / f"{stem}.jsonl") for stem in (
    "tractor-2deck-injected", "four-deck", "biaofen-4p-injected", "wanfen-injected")]


def rows(frame: pl.DataFrame) -> list[str]:
    return sorted(repr(sorted(r.items())) for r in frame.to_dicts())


def test_the_ray_engine_matches_the_local_engine_row_for_row(tmp_path):
    local = CliRunner().invoke(cli, ["export", *INPUTS, "-o", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    on_ray = CliRunner().invoke(cli, ["export", *INPUTS, "-o", str(tmp_path / "ray"),
                                      "--engine", "ray", "-j", "2"])
    assert on_ray.exit_code == 0, on_ray.output
    for table in sorted((tmp_path / "local").glob("*.parquet")):
        expected = pl.read_parquet(table)
        parts = sorted((tmp_path / "ray" / table.stem).glob("**/*.parquet"))
        if expected.is_empty():
            continue
        assert parts, table.stem
        got = pl.read_parquet(tmp_path / "ray" / table.stem / "**" / "*.parquet",
                              hive_partitioning=True)
        got = got.drop("bucket")
        if "ruleset" not in expected.columns:
            got = got.drop("ruleset")
        got = got.select(expected.columns).cast(expected.schema)
        assert rows(got) == rows(expected), table.stem
    assert any(p.parent.name.startswith("bucket=") for p in (tmp_path / "ray").rglob("*.parquet"))

    one = CliRunner().invoke(cli, ["validate", *INPUTS, "--format", "json"])
    ray_out = CliRunner().invoke(cli, ["validate", *INPUTS, "--format", "json", "--engine", "ray"])
    assert ray_out.exit_code == one.exit_code == 1
    assert ray_out.output == one.output


def test_an_unreachable_cluster_is_a_clean_error_not_a_wait(tmp_path, monkeypatch):
    import socket
    import time

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
