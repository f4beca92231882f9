"""Every snippet in README.md and docs/ runs as written (issue 25).

The convention: a fenced block tagged ``bash`` or ``python`` is a snippet a reader may paste,
and is run here; ``sjn`` is a record in the typed notation, and must validate clean. Untagged
blocks are synopses and sample output; ``>>>`` blocks are doctests (tests/test_api_doc.py).
The blocks of one page run in order in one scratch folder that sees the repository's
``samples/``, so a page's later snippet may read what an earlier one wrote, and nothing is
written into the repository. The setup-and-test block at the top of the README is what CI
itself runs, so only its ``shengji`` commands are run here.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(bash|python|sjn)\n(.*?)^```", re.S | re.M)
SETUP = ("python3 -m venv", ".venv/bin/pip", "pip install", "bash .ci/run", "python -m pip")


def _blocks(page: Path) -> list[tuple[int, str, str]]:
    text = page.read_text(encoding="utf-8")
    return [(text[:m.start()].count("\n") + 1, m.group(1), m.group(2))
            for m in BLOCK.finditer(text) if not m.group(2).lstrip().startswith(">>>")]


def _commands(body: str) -> list[str]:
    """The commands of a bash block: comments dropped, ``&&`` chains split, set-up steps
    (virtualenv, pip, CI) left to CI, ``.venv/bin/shengji`` as the installed ``shengji``."""
    out = []
    for line in body.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        for part in line.split(" && "):
            part = part.strip()
            if part.startswith(SETUP):
                continue
            out.append(part.replace(".venv/bin/shengji", "shengji"))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if _blocks(p)], ids=lambda p: p.name)
def test_every_snippet_runs_as_written(page, tmp_path):
    (tmp_path / "samples").symlink_to(ROOT / "samples", target_is_directory=True)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(ROOT)}
    for line, kind, body in _blocks(page):
        where = f"{page.name}:{line}"
        if kind == "python":
            result = subprocess.run([sys.executable, "-c", body], cwd=tmp_path, env=env,
                                    capture_output=True, text=True, timeout=600)
            assert result.returncode == 0, f"{where}\n{body}\n{result.stderr[-2000:]}"
        elif kind == "sjn":
            record = tmp_path / f"snippet-{line}.sjn"
            record.write_text(body, encoding="utf-8")
            result = subprocess.run(["shengji", "validate", str(record)], cwd=tmp_path,
                                    env=env, capture_output=True, text=True, timeout=600)
            assert result.returncode == 0, f"{where}\n{result.stdout}{result.stderr}"
        else:
            for command in _commands(body):
                result = subprocess.run(command, shell=True, executable="/bin/bash", cwd=tmp_path,
                                        env=env,
                                        capture_output=True, text=True, timeout=600)
                # exit 1 is validate's "violations found" on samples made to have them
                ok = (0, 1) if shlex.split(command)[:2] == ["shengji", "validate"] else (0,)
                assert result.returncode in ok, f"{where}: {command}\n{result.stderr[-2000:]}"
    assert not [p for p in ROOT.iterdir() if p.name in ("report.html", "site", "tables",
                                                        "out.jsonl", "games.parquet")]


def test_the_convention_finds_the_readme_commands():
    kinds = [kind for _, kind, _ in _blocks(ROOT / "README.md")]
    assert kinds.count("bash") >= 3 and kinds.count("python") >= 3
    first = _commands(_blocks(ROOT / "README.md")[0][2])
    assert first[0].startswith("shengji validate") and first[1].startswith("shengji report")
