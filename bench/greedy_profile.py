"""Make the C core's build profile (gcc's profile-guided optimisation), and measure what it buys.

    python bench/greedy_profile.py             # write replay/_greedy.gcda and its stamp
    python bench/greedy_profile.py --check     # does the committed profile fit the sources?
    python bench/greedy_profile.py --compare   # a review timed side by side, with and without

setup.py builds ``replay/_greedy.c`` with ``-fprofile-use`` from ``replay/_greedy.gcda`` when
the stamp ``replay/_greedy_profile.json`` names the sources' hash and the compiler
(``gcc --version``) of the build; else it builds as before. After an edit of the C sources
the profile no longer fits (the build says so and builds without it): run this script, then
``pip install -e .``, and commit both files.

The profile is made as setup.py builds (distutils' compiler, the same flags) with
``-fprofile-generate``, in a copy of the tree, by a training run there: one hand of every
sample match reviewed at the standard budget (the review's rollouts and searches) and every
sample file validated (the judge of recorded tricks). ``--compare`` builds the C core both
ways in two copies and reviews the same hands in both at once (``--sample``, ``--hands``),
CPU seconds each, and checks that the two reviews are the same.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.json_out import write_json  # noqa: E402

SAMPLES = ("tractor-1deck", "tractor-2deck", "tractor-3deck", "four-deck", "wanfen",
           "biaofen-3p", "biaofen-4p")
TRAINING = f"""
import glob, subprocess, sys
import gamelog
from replay.marks import budget_at
from replay.review import review_hands
for name in {SAMPLES!r}:
    hands = [h for h in gamelog.read_hands(f"samples/matches/{{name}}.jsonl") if h.number == 1]
    for _ in review_hands(hands, budget=budget_at("standard")):
        pass
    if sys.stderr.isatty():  # progress on a terminal, quiet in a pipe
        print("  reviewed", name, file=sys.stderr, flush=True)
files = sorted(f for f in glob.glob("samples/matches/*.jsonl") + glob.glob("samples/examples/*.jsonl")
               if not f.endswith(".labels.jsonl"))
subprocess.run([sys.executable, "-m", "shengji.cli", "validate", "-q", *files],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if sys.stderr.isatty():
    print("  validated", len(files), "files", file=sys.stderr, flush=True)
"""


def setup_module():  # type: ignore[no-untyped-def]
    """setup.py's constants and helpers (its ``setup()`` runs only as a script)."""
    spec = importlib.util.spec_from_file_location("shengji_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy_tree(dest: Path) -> Path:
    """The working tree (its built modules included) copied to ``dest``."""
    shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "__pycache__", "*.egg-info", ".pytest_cache",
        ".ruff_cache", ".hypothesis", "report.html"))
    return dest


def distutils_compiler():  # type: ignore[no-untyped-def]
    """The C compiler as setup.py's build gets it (distutils', with Python's flags)."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler

    compiler = new_compiler()
    customize_compiler(compiler)
    return compiler


def build_core(tree: Path, temp: Path, extra: list[str]) -> None:
    """``replay/_greedy.c`` of ``tree`` built into ``tree``'s package as setup.py builds it
    (its object in ``temp``), with ``extra`` flags."""
    s = setup_module()
    compiler = distutils_compiler()
    here = Path.cwd()
    os.chdir(tree)  # the sources by their relative names, as setup.py compiles them
    try:
        objects = compiler.compile([s.GREEDY], output_dir=str(temp),
                                   macros=[("GREEDY_SOURCE_HASH", f'"{s.greedy_digest()}"'),
                                           *([("GREEDY_PROFILED", "1")] if extra else [])],
                                   include_dirs=[sysconfig.get_paths()["include"]],
                                   extra_postargs=[*s.GREEDY_ARGS, *extra])
        target = tree / "replay" / f"_greedy{sysconfig.get_config_var('EXT_SUFFIX')}"
        compiler.link_shared_object(objects, str(target), extra_postargs=extra)
    finally:
        os.chdir(here)


def make_profile() -> None:
    """The profile made in a copy of the tree and written with its stamp to ``replay/``."""
    s = setup_module()
    with tempfile.TemporaryDirectory(prefix="greedy-profile-") as tmp:
        tree = copy_tree(Path(tmp) / "tree")
        (tree / s.PROFILE).unlink(missing_ok=True)
        build_core(tree, Path(tmp) / "obj", ["-fprofile-generate", *s.DUMPBASE])
        print("training (one hand of each sample reviewed, every sample validated) ...",
              flush=True)
        subprocess.run([sys.executable, "-c", TRAINING], cwd=tree, check=True,
                       env=_env(tree))
        gcda = tree / s.PROFILE  # where -dumpbase puts it
        if not gcda.is_file():
            sys.exit(f"no profile written ({gcda}): was the C core loaded by the training run?")
        # beside its place first, then moved there: never a half-written profile
        shutil.copyfile(gcda, ROOT / f"{s.PROFILE}.new")
        os.replace(ROOT / f"{s.PROFILE}.new", ROOT / s.PROFILE)
    write_json(ROOT / s.PROFILE_STAMP,
               {"sources": s.greedy_digest(), "compiler": s.compiler_version(_cc())},
               sort_keys=True, end="\n")
    print(f"wrote {s.PROFILE} and {s.PROFILE_STAMP}: now pip install -e . and commit both")


def _cc() -> str:
    """The compiler command setup.py's build uses."""
    return distutils_compiler().compiler_so[0]


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def check() -> int:
    """0 when the committed profile fits the sources and the compiler, else 1 (said why)."""
    problems = setup_module().profile_problems(_cc())
    print("the profile fits" if not problems else "the profile does not fit: " + "; ".join(problems))
    return 1 if problems else 0


def compare(sample: str, hands: str) -> None:
    """The same review timed with and without the profile, side by side (two processes)."""
    s = setup_module()
    with tempfile.TemporaryDirectory(prefix="greedy-compare-") as tmp:
        runs = []
        for name, extra in (("plain", []), ("profiled", s.PROFILE_ARGS)):
            if sys.stderr.isatty():  # progress on a terminal (the reviews show their own)
                print(f"  building the {name} core", file=sys.stderr, flush=True)
            tree = copy_tree(Path(tmp) / name)
            build_core(tree, Path(tmp) / f"obj-{name}", extra)
            out = Path(tmp) / f"{name}.json"
            runs.append((name, out, subprocess.Popen(
                [sys.executable, "bench/review_cpu.py", "--sample", sample, "--hands", hands,
                 "--out", str(out)], cwd=tree, env=_env(tree), stdout=subprocess.PIPE,
                text=True)))
        for name, _, proc in runs:
            text, _ = proc.communicate()
            print(f"{name:>9}: {text.strip().splitlines()[-1]}")
        same = runs[0][1].read_bytes() == runs[1][1].read_bytes()
        print("the two reviews are the same" if same else "THE TWO REVIEWS DIFFER")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only say whether the profile fits")
    ap.add_argument("--compare", action="store_true",
                    help="time a review with and without the profile, side by side")
    ap.add_argument("--sample", default="tractor-2deck", help="with --compare (default tractor-2deck)")
    ap.add_argument("--hands", default="1-2", help="with --compare: N-M (default 1-2)")
    args = ap.parse_args()
    if args.check:
        sys.exit(check())
    if args.compare:
        compare(args.sample, args.hands)
        return
    make_profile()


if __name__ == "__main__":
    main()
