"""docs/api.md's examples run as doctests: the page shows what the code does."""

from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def test_api_page_examples():
    failures, tried = doctest.testfile(str(DOC), module_relative=False,
                                       optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 20 and failures == 0
