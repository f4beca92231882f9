"""The mypyc-compiled engine (setup.py): it is used where it can be built, it gives exactly the
results of the Python sources, and its objects pickle and copy like the sources' objects."""

from __future__ import annotations

import copy
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import replay
from replay.engine import HandReplay, Trick, TrickPlay
from replay.units import Unit

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ["samples/violations/tractor.jsonl", "samples/matches", "samples/examples"]


def _validate(env_extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **env_extra}
    return subprocess.run([sys.executable, "-m", "shengji.cli", "validate", "--format", "json",
                           *SAMPLES], capture_output=True, text=True, cwd=ROOT, env=env)


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                    reason="no C compiler: the engine runs as Python")
@pytest.mark.skipif(os.environ.get("SHENGJI_PURE", "") not in ("", "0"),
                    reason="SHENGJI_PURE asks for the Python sources")
def test_the_engine_is_compiled_where_a_compiler_is_present():
    """CI builds with a compiler, so the compiled engine is what the suite (and users) run."""
    assert replay.NATIVE, "pip install -e . should have compiled replay/{order,units,engine}.py"


def test_the_build_and_the_stale_check_name_the_same_modules():
    """Every module setup.py compiles is one the stale check guards (an edited source of a
    module it did not know would be shadowed by its old compiled code)."""
    import ast

    from replay import _native

    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    built = next(ast.literal_eval(node.value) for node in ast.walk(tree)
                 if isinstance(node, ast.Assign)
                 and any(getattr(t, "id", None) == "COMPILED" for t in node.targets))
    assert sorted(p[:-3].replace("/", ".") for p in built) == sorted(_native.COMPILED)


def test_compiled_and_python_engines_report_the_same():
    compiled, pure = _validate({}), _validate({"SHENGJI_PURE": "1"})
    assert compiled.returncode == pure.returncode != 0  # the samples hold violations
    assert compiled.stdout == pure.stdout
    assert compiled.stdout.count('"rule"') > 30


def test_pure_switch_runs_the_sources():
    out = subprocess.run([sys.executable, "-c", "import replay, replay.engine as e; "
                          "print(replay.NATIVE, e.__file__.endswith('.py'))"],
                         capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "SHENGJI_PURE": "1"})
    assert out.stdout.split() == ["False", "True"]


def test_reports_and_states_pickle_and_copy():
    hand = next(iter(replay.validate(ROOT / "samples" / "examples" / "tractor-2deck.jsonl")))
    back = pickle.loads(pickle.dumps(hand))
    assert [(t.number, t.winner, t.points, [(p.seat, p.cards) for p in t.plays])
            for t in back.tricks] == \
        [(t.number, t.winner, t.points, [(p.seat, p.cards) for p in t.plays]) for t in hand.tricks]
    assert back.outcome == hand.outcome and back.violations == hand.violations
    trick = Trick(3, 1)
    trick.plays.append(TrickPlay(1, [2, 2], 7))
    trick.lead_units = [Unit(2, 1, 5, (2,))]
    again = copy.deepcopy(trick)
    assert again.plays == trick.plays and again.plays is not trick.plays
    assert again.lead_units == trick.lead_units and again.number == 3
    state = HandReplay(replay.get_ruleset("tractor"), hand.record)
    for event in hand.record.events:
        state.apply(event)
        if state.trick is not None and len(state.trick.plays) == 2 and state.tricks:
            break
    clone = copy.deepcopy(state)
    assert clone.held == state.held and clone.held is not state.held
    assert clone.trick is not None and clone.trick.plays == state.trick.plays
    # the C core's checks are not copied (a C object): a copy's are the Python checks
    assert clone.judge is None
    again = pickle.loads(pickle.dumps(state))
    assert again.judge is None and again.held == state.held


@pytest.mark.skipif(not replay.NATIVE, reason="the engine is not compiled here")
def test_a_compiled_module_older_than_its_source_is_not_used(tmp_path):
    """The build records each compiled source's hash; when a source no longer matches (it was
    edited after the build), replay warns and runs all three sources."""
    stale = tmp_path / "build.json"
    stale.write_text('{"replay.engine": "0", "replay.order": "0", "replay.units": "0"}')
    out = subprocess.run([sys.executable, "-W", "always", "-c",
                          "import replay, replay.engine as e, replay.units as u; "
                          "print(replay.NATIVE, e.__file__.endswith('.py'), "
                          "u.__file__.endswith('.py'))"],
                         capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "SHENGJI_NATIVE_STAMP": str(stale)})
    assert out.stdout.split() == ["False", "True", "True"]
    assert "older than its sources" in out.stderr


def test_version_says_which_engine_runs():
    from replay._native import greedy_core

    player = "C" if greedy_core() is not None else "Python"
    for env, engine, rollouts in (({}, "compiled" if replay.NATIVE else "Python", player),
                                  ({"SHENGJI_PURE": "1"}, "Python (not compiled)", "Python")):
        out = subprocess.run([sys.executable, "-m", "shengji.cli", "--version"],
                             capture_output=True, text=True, cwd=ROOT, env={**os.environ, **env})
        assert out.returncode == 0
        assert out.stdout.startswith("shengji, version ") and f"replay engine: {engine}" in out.stdout
        assert f"review's rollout player: {rollouts})" in out.stdout


@pytest.mark.skipif(not replay.NATIVE, reason="the engine is not compiled here")
def test_compiled_and_python_engines_agree_on_random_positions():
    """Issue 27: on random positions of every ruleset (bench/native_agreement.py, 40 per
    ruleset here, 100,000 in the benchmark) the compiled modules and the sources give the same
    verdicts, trick winners, legal-play counts and exact search values."""
    done = subprocess.run([sys.executable, "bench/native_agreement.py", "--positions", "40"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "native=True" in done.stdout and "native=False" in done.stdout
    assert "240 identical, 0 different" in done.stdout



def test_an_install_without_the_engine_sources_runs_what_it_has(tmp_path, monkeypatch):
    """A wheel (``pip install .``) may ship the compiled modules without their sources:
    nothing can then be stale, and the check must not fail looking for them."""
    import importlib.util
    import warnings

    from replay import _native

    compiled = all(not (importlib.util.find_spec(n).origin or "").endswith(".py")
                   for n in _native.COMPILED)
    monkeypatch.setattr(_native, "HERE", tmp_path)  # no sources there
    loaded = {n: sys.modules.get(n) for n in _native.COMPILED}
    monkeypatch.delenv("SHENGJI_PURE", raising=False)
    assert _native.select() == compiled
    monkeypatch.setenv("SHENGJI_PURE", "1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _native.select() == compiled
    assert bool(caught) == compiled  # asked for sources it does not have: said so
    assert {n: sys.modules.get(n) for n in _native.COMPILED} == loaded
