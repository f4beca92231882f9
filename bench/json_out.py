"""A benchmark's JSON output (``--out``, ``--dump``): checked before the work, written
atomically, and never over a file that is not JSON (the toolkit's own rule for outputs:
:mod:`gamelog.outputs`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

from gamelog.errors import GamelogIOError
from gamelog.outputs import atomic_output, check_replaceable_file


def check_json_out(path: Path | None) -> None:
    """Exit 2, naming ``path``, if it exists and is not a JSON file (before any work)."""
    if path is None:
        return
    try:
        check_replaceable_file(path, "json")
    except GamelogIOError as err:
        _refuse(err)


def write_json(path: Path, value: Any, *, sort_keys: bool = False, end: str = "") -> None:
    """``value`` as JSON (then ``end``) written to ``path`` atomically; exit 2, naming it,
    where it may not be written."""
    try:
        with atomic_output(path, "json") as f:
            f.write((json.dumps(value, sort_keys=sort_keys) + end).encode())
    except GamelogIOError as err:
        _refuse(err)


def _refuse(err: GamelogIOError) -> NoReturn:
    print(f"error: {err}", file=sys.stderr)
    sys.exit(2)
