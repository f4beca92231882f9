"""Pausing the garbage collector while many short-lived objects are made."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The garbage collector paused for the block (and left as it was after): it would
    otherwise rescan the heap again and again while thousands of small objects are made that
    form no lasting cycles, such as a batch of events or the states of a replayed hand."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
