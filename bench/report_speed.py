"""Benchmark: an HTML report (dashboard plus a page per hand) over 10,000 hands, one core.

    python bench/report_speed.py --hands 10000

Uses the simulated hands of bench/validate_speed.py (bench/data/sim-2deck-2000.jsonl, made if
missing), replicated under new match ids up to ``--hands``, then times ``shengji report`` into
a directory (one page per hand) and into one self-contained file with the dashboard only.
Target (issue 5): under a minute for 10,000 hands on one core.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from validate_speed import build, replicate  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=10_000)
    args = ap.parse_args()
    data = ROOT / "bench" / "data"
    data.mkdir(parents=True, exist_ok=True)
    base = data / "sim-2deck-2000.jsonl"
    if not base.exists():
        build(base, 2000)
    times = max(1, args.hands // 2000)
    src = data / f"sim-2deck-2000-x{times}.jsonl"
    if not src.exists():
        replicate(base, src, times)
    for label, out, extra in (("directory, a page per hand", data / "report-site/", []),
                              ("one file, dashboard only", data / "report.html",
                               ["--max-hands", "0"])):
        shutil.rmtree(out, ignore_errors=True)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "shengji.cli", "report", str(src), "-o",
                        f"{out}/" if str(out).endswith("site") else str(out), *extra],
                       check=True, cwd=ROOT, capture_output=True)
        took = time.perf_counter() - t0
        print(f"{2000 * times:,} hands, {label}: {took:.1f} s")


if __name__ == "__main__":
    main()
