"""Benchmark: how fast a single-file report opens in a browser, and how big it is.

    python bench/report_load.py                     # the README's sample hands and 2,000 hands
    python bench/report_load.py --hands 2000 10000  # 2,000 and 10,000 hands in one file

Writes each report with ``shengji report`` (one file), opens it in headless Chromium (Debian's,
driven by playwright) and prints its size, the time from navigation to the first idle moment
after every dashboard chart drew (``requestIdleCallback``: the time to interactive), the
first contentful paint (when the title and, past 200 hands, the loading notice show), the
filter's latency (the hand table filtered by a match id typed in, until the next frame; the
median of five) and the page's JS heap. Goals
(issue 16): the sample report (the README's first command) idle in under 3 s and under 6 MB;
2,000 hands in one file under 5 s. The simulated hands are bench/data/sim-2deck-N.jsonl
(made if missing).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from validate_speed import build  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SAMPLES = ["tractor-1deck", "tractor-2deck", "tractor-3deck", "four-deck", "biaofen-3p",
           "biaofen-4p", "wanfen"]
IDLE = """() => new Promise(resolve => {
  const charts = () => [...document.querySelectorAll('#dashboard div.chart')]
      .every(d => d.querySelector('svg.main-svg'));
  const wait = () => charts() ? requestIdleCallback(() => resolve(performance.now()),
                                                    {timeout: 120000})
                              : setTimeout(wait, 20);
  wait();
})"""


def sample_inputs() -> list[str]:
    out = []
    for name in SAMPLES:
        for suffix in ("", "-injected"):
            path = ROOT / "samples" / "matches" / f"{name}{suffix}.jsonl"
            if path.exists():
                out.append(str(path))
    return out


FILTER = """async (text) => {
  const box = document.getElementById('f-match');
  const t0 = performance.now();
  box.value = text;
  box.dispatchEvent(new Event('input'));
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}"""


def write_report(inputs: list[str], out: Path) -> tuple[float, int]:
    """Seconds to write the report, and the hands in it (from the command's own count). Runs
    the command line of this checkout (``python -m shengji.cli`` here), so that a copy of this
    file in another checkout measures that one."""
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "shengji.cli", "report", *inputs,
                           "-o", str(out), "--no-progress"], check=True, capture_output=True,
                          text=True, cwd=ROOT)
    hands = int(re.search(r": (\d+) hand", done.stderr).group(1))
    return time.perf_counter() - t, hands


def load(browser, path: Path) -> tuple[float, float, float, float]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(path.as_uri(), wait_until="load", timeout=300_000)
    idle = page.evaluate(IDLE)
    paint = page.evaluate("() => (performance.getEntriesByName('first-contentful-paint')[0] "
                          "|| {startTime: 0}).startTime")
    heap = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize : 0")
    times = sorted(page.evaluate(FILTER, text) for text in ("bench-1-000", "bench-1-0001", "x",
                                                            "bench", ""))
    page.close()
    return idle / 1000, heap / 2**20, times[len(times) // 2] / 1000, paint / 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, nargs="*", default=[2000],
                    help="simulated two-deck hands per extra report (default 2000)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    data = ROOT / "bench" / "data"
    data.mkdir(parents=True, exist_ok=True)
    cases = [("README samples", sample_inputs())]
    for n in args.hands:
        src = data / f"sim-2deck-{n}.jsonl"
        if not src.exists():
            build(src, n)
        cases.append(("simulated 2-deck", [str(src)]))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        print(f"{'report':<18} {'hands':>6} {'write s':>8} {'size MB':>8} {'paint s':>8} "
              f"{'idle s':>8} {'filter s':>8} {'heap MB':>8}")
        for label, inputs in cases:
            out = data / "load-report.html"  # shengji report replaces its own earlier report
            wrote, hands = write_report(inputs, out)
            idle, heap, filtering, paint = load(browser, out)
            size = out.stat().st_size / 1e6
            print(f"{label:<18} {hands:6,} {wrote:8.1f} {size:8.1f} {paint:8.2f} {idle:8.2f} "
                  f"{filtering:8.3f} {heap:8.0f}", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
