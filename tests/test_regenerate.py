"""samples/ is exactly what samples/regenerate.py makes (JSONL and text byte for byte, Parquet
event for event)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gamelog.files import events_of, read

ROOT = Path(__file__).resolve().parents[1]


def test_samples_regenerate_identically(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "samples" / "regenerate.py"), "--out",
                    str(tmp_path)], check=True, capture_output=True, cwd=ROOT)
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(ROOT / "samples") for p in (ROOT / "samples").rglob("*")
                       if p.is_file() and p.suffix in (".jsonl", ".parquet", ".txt"))
    assert made == committed
    for rel in made:
        new, old = tmp_path / rel, ROOT / "samples" / rel
        if rel.suffix == ".parquet":
            assert list(events_of(read(new, with_headers=True))) == \
                list(events_of(read(old, with_headers=True))), rel
        else:
            assert new.read_bytes() == old.read_bytes(), rel
