"""A benchmark's JSON output (``--out``, ``--dump``): checked before the work, written
atomically, and never over a file that is not JSON (the toolkit's own rule for outputs:
:mod:`gamelog.outputs`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gamelog.errors import GamelogIOError
from gamelog.outputs import atomic_output, check_replaceable_file


def check_json_out(path: Path | None) -> None:
    """Exit 2, naming ``path``, if it exists and is not a JSON file (before any work)."""
    if path is not None:
        _or_exit(lambda: check_replaceable_file(path, "json"))


def write_json(path: Path, value: Any, text: str | None = None) -> None:
    """``value`` as JSON (or ``text`` as given) written to ``path`` atomically; exit 2, naming
    it, where it may not be written."""
    def write() -> None:
        with atomic_output(path, "json") as f:
            f.write((json.dumps(value) if text is None else text).encode())
    _or_exit(write)


def _or_exit(step: Any) -> None:
    try:
        step()
    except GamelogIOError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
