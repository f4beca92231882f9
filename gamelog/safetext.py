"""Text from records made safe to print on a terminal."""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(text: object) -> str:
    """``text`` with control characters (escape sequences, carriage returns, NULs, newlines
    inside a field, bidirectional overrides) shown escaped (``\\x1b``), never acted on."""
    s = str(text)
    if _CONTROL.search(s) is None:
        return s
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), s)
