"""Build hook: compile the replay engine's hot modules with mypyc when a C compiler is at hand.

The compiled modules are optional: without mypy or a compiler, or with ``SHENGJI_PURE=1`` set at
install time, the same modules run as plain Python (about 2x slower, identical results). The
hashes of the compiled sources go to ``replay/_native_build.json``, so that an edited source is
never shadowed by a stale compiled module (see ``replay/_native.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
COMPILED = ["replay/order.py", "replay/units.py", "replay/engine.py"]
STAMP = ROOT / "replay" / "_native_build.json"


def compiled_extensions() -> list:
    STAMP.unlink(missing_ok=True)
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
    hashes = {p[:-3].replace("/", "."): hashlib.sha256((ROOT / p).read_bytes()).hexdigest()
              for p in COMPILED}
    STAMP.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    return extensions


setup(ext_modules=compiled_extensions())
