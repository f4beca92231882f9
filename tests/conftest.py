"""Test-suite hooks: the slowest tests (marked ``slow``) and the Ray group are collected first,
so that on several cores (pytest-xdist, as ``.ci/run`` runs the suite) they start at once and
the short ones fill in around them, instead of one long test running alone at the end."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def first(item: pytest.Item) -> int:
        if item.get_closest_marker("xdist_group") is not None:
            return 0
        return 1 if item.get_closest_marker("slow") is not None else 2

    items.sort(key=first)  # stable: each file's own order is kept within a rank
