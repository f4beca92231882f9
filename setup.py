"""Build hook: compile the replay engine's hot modules with mypyc when a C compiler is at hand,
and the rollout player written in C (``replay/_greedy.c``).

The compiled modules are optional: without mypy or a compiler, or with ``SHENGJI_PURE=1`` set at
install time, the same modules run as plain Python (about 2x slower, identical results). Once
every module has compiled, the hashes of the sources go to ``replay/_native_build.json``; an
edited source, or a failed rebuild, is then never shadowed by a stale compiled module (see
``replay/_native.py``).

``replay/_greedy.c`` is built with gcc's profile (``-fprofile-use``) from
``replay/_greedy.gcda`` when its stamp, ``replay/_greedy_profile.json``, names these sources
and this compiler (``bench/greedy_profile.py`` makes both; about a tenth off a review's time,
the same results); otherwise, or if that build fails, it is built without.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
COMPILED = ["replay/order.py", "replay/units.py", "replay/trick.py", "replay/state.py",
            "replay/phases/deal.py", "replay/phases/auction.py", "replay/phases/kitty.py",
            "replay/phases/follow.py", "replay/phases/throws.py", "replay/phases/tricks.py",
            "replay/phases/outcome.py", "replay/engine.py", "replay/legal.py",
            "replay/playout.py", "replay/search.py", "replay/deals.py"]
STAMP = "replay/_native_build.json"
GREEDY = "replay/_greedy.c"
# _greedy.c and the parts it includes, as replay._native.greedy_core hashes them
GREEDY_SOURCES = [GREEDY, *sorted(p.relative_to(ROOT).as_posix()
                                  for p in (ROOT / "replay").glob("_core_*.h"))]
# the lead's scores are compared as Python compares its floats
GREEDY_ARGS = ["-O2", "-ffp-contract=off"]
PROFILE = "replay/_greedy.gcda"
PROFILE_STAMP = "replay/_greedy_profile.json"
# the profile's name and the functions' identities in it come from this base name, not from
# the object's path (pip builds in a fresh temporary directory each time): the profile is
# read from replay/_greedy.gcda, the build running in this directory
DUMPBASE = ["-dumpbase", GREEDY, "-dumpbase-ext", ".c"]
PROFILE_ARGS = ["-fprofile-use", "-fprofile-partial-training", "-Wno-missing-profile", *DUMPBASE]


def greedy_digest() -> str:
    """The sha256 of the C core's sources, as ``replay._native.greedy_core`` checks it."""
    return hashlib.sha256(b"".join((ROOT / p).read_bytes() for p in GREEDY_SOURCES)).hexdigest()


def compiler_version(command: str) -> str | None:
    """The first line of ``command --version`` (``None`` when it cannot say)."""
    try:
        out = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.splitlines()[0].strip() if out.returncode == 0 and out.stdout else None


def profile_problems(command: str | None) -> list[str]:
    """Why the committed profile does not fit these sources and the compiler ``command``
    (the build's; ``None``: none known); empty when it fits."""
    try:
        stamp = json.loads((ROOT / PROFILE_STAMP).read_text())
    except (OSError, ValueError) as err:
        return [f"no usable stamp ({err})"]
    if not isinstance(stamp, dict):
        return [f"{PROFILE_STAMP} is not a JSON object"]
    problems = []
    if not (ROOT / PROFILE).is_file():
        problems.append(f"{PROFILE} is missing")
    if stamp.get("sources") != greedy_digest():
        problems.append("the C sources changed since the profile was made")
    version = compiler_version(command) if command else None
    if stamp.get("compiler") != version:
        problems.append(f"made with {stamp.get('compiler')!r}, this compiler is {version!r}")
    return problems


def compiled_extensions() -> list:
    if os.environ.get("SHENGJI_PURE", "") not in ("", "0"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("shengji-toolkit: mypy is not installed; the replay engine stays pure Python")
        return []
    here = os.getcwd()
    os.chdir(ROOT)  # mypy reads its settings from pyproject.toml here
    try:
        extensions = mypycify(COMPILED, opt_level="3")
    except (Exception, SystemExit) as exc:  # mypyc reports type errors by exiting
        print(f"shengji-toolkit: mypyc could not compile the engine ({exc!r}); it stays pure "
              "Python")
        return []
    finally:
        os.chdir(here)
    for ext in extensions:
        ext.optional = True  # a failed compile leaves the pure Python modules in charge
    return extensions


def greedy_extension() -> list:
    """The rollout player in C (``replay/_greedy.c``): optional like the rest; its source's
    hash is compiled in, so that an edited source is never shadowed by an old build
    (``replay._native.greedy_core``)."""
    if os.environ.get("SHENGJI_PURE", "") not in ("", "0"):
        return []
    return [Extension("replay._greedy", [GREEDY], optional=True, depends=GREEDY_SOURCES[1:],
                      define_macros=[("GREEDY_SOURCE_HASH", f'"{greedy_digest()}"')],
                      extra_compile_args=list(GREEDY_ARGS))]


class BuildCompiled(build_ext):
    """build_ext that records the compiled sources' hashes only when every module built, and
    builds the C core with its profile when the profile fits (see the module's docstring)."""

    def build_extension(self, ext: Extension) -> None:
        if ext.name != "replay._greedy" or not self._profile_fits():
            super().build_extension(ext)
            return
        plain, macros = list(ext.extra_compile_args), list(ext.define_macros)
        ext.extra_compile_args = plain + PROFILE_ARGS
        ext.define_macros = [*macros, ("GREEDY_PROFILED", "1")]  # its PROFILED: 1
        try:
            super().build_extension(ext)
            print("shengji-toolkit: replay._greedy built with its profile")
        except Exception as exc:  # any failure: the plain build instead
            print(f"shengji-toolkit: replay._greedy did not build with its profile ({exc}); "
                  "building it without")
            ext.extra_compile_args, ext.define_macros = plain, macros
            super().build_extension(ext)

    def _profile_fits(self) -> bool:
        """Whether the committed profile fits these sources and this compiler, the build
        running in the tree (where gcc looks for it)."""
        command = self.compiler.compiler_so[0] if getattr(self.compiler, "compiler_so", None) \
            else None
        return Path.cwd().resolve() == ROOT and not profile_problems(command)

    def run(self) -> None:
        (ROOT / STAMP).unlink(missing_ok=True)
        hashes = {p[:-3].replace("/", "."): hashlib.sha256((ROOT / p).read_bytes()).hexdigest()
                  for p in COMPILED}
        super().run()
        engine = [e for e in self.extensions if e.name != "replay._greedy"]
        if not engine or not all(os.path.exists(self.get_ext_fullpath(e.name)) for e in engine):
            return
        text = json.dumps(hashes, indent=1, sort_keys=True) + "\n"
        targets = {ROOT / STAMP}
        if not self.inplace:
            targets.add(Path(self.build_lib) / STAMP)
        for target in targets:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)


if __name__ == "__main__":  # as pip's build runs it; bench/greedy_profile.py reads the above
    setup(ext_modules=compiled_extensions() + greedy_extension(),
          cmdclass={"build_ext": BuildCompiled})
