"""The published JSON Schema of one line of a game record.

``schema_text()`` is what ``shengji schema`` prints; the same text is committed as
``gamelog/schema.json`` and a test keeps the two equal.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from gamelog.model import FORMAT_VERSION, AnyEvent

SCHEMA_PATH = Path(__file__).with_name("schema.json")


def schema() -> dict:
    """The JSON Schema (draft 2020-12) of one event line."""
    body = msgspec.json.schema(AnyEvent)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://shengji-toolkit.invalid/gamelog/{FORMAT_VERSION}/event.schema.json",
        "title": f"Shengji game record event, format {FORMAT_VERSION}",
        "description": "One line of a game record in JSON Lines; see docs/format.md.",
        **body,
    }


def schema_text() -> str:
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"
