"""Use the mypyc-compiled engine modules only where they match their sources.

``setup.py`` compiles :data:`COMPILED` and records the hash of each source it compiled. An
extension module shadows its ``.py`` file on import, so an edited source (an editable install
after a change) would silently run the old code: this check, run by ``replay/__init__`` before
any of these modules is imported, loads the source instead and warns. ``SHENGJI_PURE=1`` in the
environment always runs the sources; ``SHENGJI_NATIVE_STAMP`` names another build record (for
the tests of this guard).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

try:  # the built-in SHA-256: hashlib would load OpenSSL, a few ms of every start-up
    from _sha256 import sha256 as _sha256  # Python 3.11
except ImportError:  # pragma: no cover - Python 3.12 renamed it; else OpenSSL's
    try:
        from _sha2 import sha256 as _sha256  # type: ignore[import-not-found,no-redef]
    except ImportError:
        from hashlib import sha256 as _sha256  # type: ignore[assignment]

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

COMPILED = ("replay.order", "replay.units", "replay.trick", "replay.state", "replay.phases.deal",
            "replay.phases.auction", "replay.phases.kitty", "replay.phases.follow",
            "replay.phases.throws", "replay.phases.tricks", "replay.phases.outcome",
            "replay.engine", "replay.legal", "replay.playout", "replay.search", "replay.deals")
HERE = Path(__file__).resolve().parent


class _Sources:
    """A meta path finder: the engine's modules as their ``.py`` sources, ahead of the
    compiled extension modules that would shadow them, in whatever order they import one
    another. (Duck-typed: importing importlib.abc would cost every start-up.)"""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(self, name: str, path: object = None, target: object = None
                  ) -> ModuleSpec | None:
        source = self.sources.get(name)
        return None if source is None else importlib.util.spec_from_file_location(name, source)


def select() -> bool:
    """Load the sources of stale or unwanted compiled modules; ``True`` if every module of
    :data:`COMPILED` runs compiled."""
    pure = os.environ.get("SHENGJI_PURE", "") not in ("", "0")
    stamp = os.environ.get("SHENGJI_NATIVE_STAMP") or HERE / "_native_build.json"  # tests
    try:
        built = msgspec.json.decode(Path(stamp).read_bytes())
    except (OSError, msgspec.DecodeError):
        built = {}
    if not isinstance(built, dict):
        built = {}
    found = {}
    for name in COMPILED:
        spec = importlib.util.find_spec(name)
        found[name] = spec is not None and spec.origin is not None and \
            not spec.origin.endswith(".py")
    if not any(found.values()):
        return False
    sources = {name: HERE.joinpath(*name.split(".")[1:]).with_suffix(".py") for name in COMPILED}
    if not all(path.is_file() for path in sources.values()):  # installed without its sources
        if pure:
            warnings.warn("replay: SHENGJI_PURE is set, but the engine's sources are not "
                          "installed; running it compiled", RuntimeWarning, stacklevel=3)
        return all(found.values())
    fresh = all(found.values()) and all(
        built.get(name) == _sha256(path.read_bytes()).hexdigest()
        for name, path in sources.items())
    if fresh and not pure:
        return True
    if not pure:
        warnings.warn("replay: the compiled engine is older than its sources; running the "
                      "sources (reinstall to recompile)", RuntimeWarning, stacklevel=3)
    # All or none: compiled modules call each other directly, not through sys.modules.
    sys.meta_path.insert(0, _Sources(sources))  # type: ignore[arg-type]
    for name in COMPILED:
        importlib.import_module(name)
    return False


_GREEDY: list[object] = []  # the C rollout player once looked for: [module or None]


def greedy_core() -> object | None:
    """The C rollout player (``replay/_greedy.c``, built by setup.py) when it is built from
    the source beside it and the engine is not asked to run pure (``SHENGJI_PURE=1``, or
    ``SHENGJI_NATIVE_PLAYOUT=0`` for this part alone); else ``None``, and the rollout player
    of ``replay/playout.py`` plays (the same plays, slower)."""
    if _GREEDY:
        return _GREEDY[0]
    core = None
    off = os.environ.get("SHENGJI_NATIVE_PLAYOUT", "") in ("0",)
    if not off and os.environ.get("SHENGJI_PURE", "") in ("", "0"):
        try:
            from replay import _greedy  # type: ignore[attr-defined]
        except ImportError:
            _greedy = None
        sources = [HERE / "_greedy.c", *sorted(HERE.glob("_core_*.h"))]  # it includes them
        if _greedy is not None and all(p.is_file() for p in sources) and \
                getattr(_greedy, "SOURCE_HASH", None) != \
                _sha256(b"".join(p.read_bytes() for p in sources)).hexdigest():
            warnings.warn("replay: the compiled rollout player is older than replay/_greedy.c; "
                          "running the Python one (reinstall to recompile)", RuntimeWarning,
                          stacklevel=2)
            _greedy = None
        core = _greedy
    _GREEDY.append(core)
    return core


def greedy_build() -> str:
    """How the C core in use was built, for benchmarks to print: ``profiled`` (with gcc's
    profile, setup.py), ``plain``, or ``none`` (the Python player runs)."""
    core = greedy_core()
    if core is None:
        return "none"
    return "profiled" if getattr(core, "PROFILED", 0) else "plain"
