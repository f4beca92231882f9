"""setup.py's profile-guided build of the C core (``replay/_greedy.c``): the profile is used only
when its stamp names these sources and this compiler, and a build that fails with it falls back
to the plain build (never a missing core)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.greedy_profile import setup_module as _setup_module

ROOT = Path(__file__).resolve().parents[1]
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc: no profile build")


def _command(s, build_lib: Path, build_temp: Path):  # type: ignore[no-untyped-def]
    from setuptools import Distribution

    dist = Distribution({"ext_modules": s.greedy_extension()})
    cmd = s.BuildCompiled(dist)
    cmd.build_lib, cmd.build_temp = str(build_lib), str(build_temp)
    cmd.ensure_finalized()
    return cmd


def test_the_stamp_names_the_sources_it_was_made_from():
    """The committed stamp is a profile of today's sources (``bench/greedy_profile.py`` remakes
    it after an edit of the C core; a stale one is only skipped by the build, silently slower)."""
    s = _setup_module()
    stamp = json.loads((ROOT / s.PROFILE_STAMP).read_text())
    assert stamp["sources"] == s.greedy_digest(), \
        "the C core changed since its profile was made: run python bench/greedy_profile.py"
    assert (ROOT / s.PROFILE).is_file()


@needs_gcc
def test_a_stale_profile_is_not_used(monkeypatch, tmp_path):
    s = _setup_module()
    monkeypatch.chdir(ROOT)
    cmd = _command(s, tmp_path / "lib", tmp_path / "temp")
    cmd.compiler = type("C", (), {"compiler_so": ["gcc"]})()
    fits = cmd._profile_fits()
    stamp = json.loads((ROOT / s.PROFILE_STAMP).read_text())
    # the committed profile fits the sources (the test above): it fits wherever gcc is the one
    # that made it
    assert fits == (s.compiler_version("gcc") == stamp["compiler"])
    monkeypatch.setattr(s, "greedy_digest", lambda: "0" * 64)
    assert not cmd._profile_fits()
    monkeypatch.setattr(s, "compiler_version", lambda command: "another compiler 1.0")
    assert not cmd._profile_fits()


@needs_gcc
def test_a_build_failing_with_the_profile_falls_back_to_the_plain_build(monkeypatch, tmp_path,
                                                                        capsys):
    s = _setup_module()
    stamp_before = (ROOT / "replay" / "_native_build.json").is_file()
    monkeypatch.chdir(ROOT)
    # the build's record of the compiled engine goes to the test's directory, not the tree's
    monkeypatch.setattr(s, "STAMP", str(tmp_path / "native_build.json"))
    monkeypatch.setattr(s.BuildCompiled, "_profile_fits", lambda self: True)
    monkeypatch.setattr(s, "PROFILE_ARGS", ["-fno-such-option-for-this-test"])
    cmd = _command(s, tmp_path / "lib", tmp_path / "temp")
    cmd.run()
    built = list((tmp_path / "lib" / "replay").glob("_greedy*"))
    assert built, "the plain build should have made the C core"
    assert "did not build with its profile" in capsys.readouterr().out
    assert (ROOT / "replay" / "_native_build.json").is_file() or not stamp_before


def test_the_installed_core_was_built_with_its_profile_where_it_fits():
    """Where the committed profile fits this compiler (CI's machine), the build used it: the
    speed figures in docs/ are the profiled build's."""
    from replay._native import greedy_build

    s = _setup_module()
    if greedy_build() == "none":
        pytest.skip("the C core is not built here")
    if shutil.which("gcc") is None or s.profile_problems("gcc"):
        pytest.skip("the profile does not fit this compiler or these sources")
    assert greedy_build() == "profiled"
