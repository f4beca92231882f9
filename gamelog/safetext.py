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


def visible_json(value: object) -> str:
    """``value`` as JSON text with the same characters escaped as :func:`visible` escapes, but
    in JSON's own escape form (``\\u001b``), so that the text still reads back as the same value."""
    import json

    text = json.dumps(value, ensure_ascii=False)
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
