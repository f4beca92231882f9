"""Benchmark: validate, export and report on one core, on two, and on Ray; and a 1,000,000-hand
validate and export with their peak memory.

    python bench/scale_speed.py                      # 20,000 hands: the -j 1 / -j 2 / Ray table
    python bench/scale_speed.py --million            # ... and validate + export of 1,000,000
    python bench/scale_speed.py --only-million       # the 1,000,000-hand runs alone
    python bench/scale_speed.py --report-memory      # report's peak memory at 5,000 to 320,000
    python bench/scale_speed.py --cluster            # -j 2 against Ray on two one-CPU nodes

Inputs are the simulated two-deck hands of bench/validate_speed.py (bench/data/sim-2deck-5000.jsonl,
made on first use), replicated under new match ids. Each run is `shengji ...` in a fresh
process, timed wall-clock, its peak resident memory read with `/usr/bin/time -f %M`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "bench" / "data" / "sim-2deck-5000.jsonl"


def replicate(hands: int) -> Path:
    """A file of ``hands`` distinct hands: the 5,000-hand simulation repeated under new ids."""
    if not BASE.exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "validate_speed.py"), "--hands",
                        "5000", "--no-memory", "--repeat", "1"], check=True,
                       stdout=subprocess.DEVNULL)
    out = ROOT / "bench" / "data" / f"sim-2deck-x{hands}.jsonl"
    if out.exists():
        return out
    src = BASE.read_bytes()
    copies = max(1, hands // 5000)
    with open(out, "wb") as f:
        for k in range(copies):
            f.write(src.replace(b'"match":"bench-', b'"match":"r%d-bench-' % k))
    return out


def timed(args: list[str], env: dict[str, str] | None = None) -> tuple[float, int]:
    """Seconds and peak RSS (MB) of `shengji ARGS` in a fresh process."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "shengji.cli",
                           *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True,
                          env=env or {"PYTHONWARNINGS": "ignore", "PATH": "/usr/bin:/bin"})
    elapsed = time.perf_counter() - start
    rss = int(proc.stderr.strip().splitlines()[-1]) // 1024
    return elapsed, rss


def small(hands: int, tmp: Path, *, ray: bool) -> None:
    """The table: validate, export and report of ``hands`` hands with -j 1, -j 2 and Ray."""
    data = replicate(hands)
    print(f"{hands:,} hands: {data.name}, {data.stat().st_size / 1e6:.0f} MB")
    engines = [("-j 1", ["-j", "1"]), ("-j 2", ["-j", "2"])]
    if ray:
        engines.append(("ray (local, 2 workers)", ["--engine", "ray", "-j", "2"]))
    for command in ("validate", "export", "report"):
        for label, flags in engines:
            if command == "report" and "ray" in label:
                continue
            name = f"{command}-{len(flags)}" + (".html" if command == "report" else "")
            out = [] if command == "validate" else ["-o", str(tmp / name)]
            extra = ["-q"] if command == "validate" else (
                ["--max-hands", "20"] if command == "report" else [])
            seconds, rss = timed([command, str(data), *out, *extra, *flags])
            print(f"{command:<9} {label:<24} {seconds:8.1f} s {hands / seconds:10,.0f} "
                  f"hands/s {rss:7,} MB peak", flush=True)


def million(tmp: Path) -> None:
    """Validate and export of 1,000,000 hands with -j 2, and their peak memory."""
    big = replicate(1_000_000)
    print(f"1,000,000 hands: {big.name}, {big.stat().st_size / 1e9:.1f} GB", flush=True)
    for command, out in (("validate", ["-q"]), ("export", ["-o", str(tmp / "million")])):
        seconds, rss = timed([command, str(big), *out, "-j", "2"])
        print(f"{command:<9} -j 2 {seconds:8.1f} s {1_000_000 / seconds:10,.0f} hands/s "
              f"{rss:7,} MB peak", flush=True)


def report_memory(tmp: Path, sizes: list[int]) -> None:
    """`shengji report` (one file, 20 hand pages, -j 1 and -j 2) on ever larger inputs: its
    peak memory should not grow with the hands (the dashboard keeps sums, not rows)."""
    for hands in sizes:
        path = BASE if hands == 5000 else replicate(hands)
        for jobs in ("1", "2"):
            seconds, rss = timed(["report", str(path), "-o", str(tmp / f"r{hands}-{jobs}.html"),
                                  "--max-hands", "20", "-j", jobs])
            size = (tmp / f"r{hands}-{jobs}.html").stat().st_size / 1e6
            print(f"report {hands:>8,} hands -j {jobs} {seconds:8.1f} s "
                  f"{hands / seconds:8,.0f} hands/s {rss:6,} MB peak {size:5.1f} MB file",
                  flush=True)


def archive(hands: int) -> Path:
    """A partitioned archive: a folder of files of 1,000 distinct hands each (the 1,000-hand
    simulation of bench/validate_speed.py under new match ids per file)."""
    base = ROOT / "bench" / "data" / "sim-2deck-1000.jsonl"
    if not base.exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "validate_speed.py"), "--hands",
                        "1000", "--no-memory", "--repeat", "1"], check=True,
                       stdout=subprocess.DEVNULL)
    folder = ROOT / "bench" / "data" / f"archive-{hands}"
    files = hands // 1000
    if len(list(folder.glob("part-*.jsonl"))) != files:
        folder.mkdir(parents=True, exist_ok=True)
        src = base.read_bytes()
        for k in range(files):
            (folder / f"part-{k:05d}.jsonl").write_bytes(
                src.replace(b'"match":"bench-', b'"match":"p%d-bench-' % k))
    return folder


def cluster(sizes: list[int], tmp: Path) -> None:
    """Issue 28's measure: validate and export of the same archive with -j 2 on this machine
    and on Ray with two one-CPU nodes (a head and a second raylet on loopback, already running:
    the driver connects), wall-clock rates; then the driver's peak memory as the archive
    grows (Ray's driver holds names, sizes and summaries, not records)."""
    sys.path.insert(0, str(ROOT))
    from tests.raycluster import ENV, two_nodes

    env = {"PYTHONWARNINGS": "ignore", "PATH": os.environ.get("PATH", "/usr/bin:/bin"), **ENV}
    with two_nodes() as address:
        print(f"cluster: two nodes of one CPU at {address}", flush=True)
        for hands in sizes:
            data = archive(hands)
            size = sum(p.stat().st_size for p in data.glob("*.jsonl")) / 1e6
            print(f"{hands:,} hands: {data.name}/ ({hands // 1000} files, {size:,.0f} MB)",
                  flush=True)
            engines = [("ray (2 nodes x 1 CPU)", ["--engine", "ray", "--ray-address", address])]
            if hands == sizes[0]:
                engines.insert(0, ("-j 2", ["-j", "2"]))
            for command in ("validate", "export"):
                rates = {}
                for label, flags in engines:
                    out = ["-q"] if command == "validate" else [
                        "-o", str(tmp / f"{command}-{hands}-{len(flags)}")]
                    seconds, rss = timed([command, str(data), *out, *flags], env)
                    rates[label] = hands / seconds
                    print(f"{command:<9} {label:<24} {seconds:8.1f} s {hands / seconds:10,.0f} "
                          f"hands/s {rss:7,} MB peak (driver)", flush=True)
                if len(rates) == 2:
                    a, b = rates.values()
                    print(f"{command:<9} Ray's rate is {100 * b / a:.0f}% of -j 2's", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--million", action="store_true")
    ap.add_argument("--only-million", action="store_true",
                    help="skip the small table; implies --million")
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--report-memory", action="store_true",
                    help="only the report's peak memory at 5,000 to 320,000 hands")
    ap.add_argument("--cluster", action="store_true",
                    help="only -j 2 against Ray on two one-CPU nodes, 20,000 and 200,000 hands")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="scale-"))
    if args.cluster:
        cluster([args.hands, 10 * args.hands], tmp)
        return
    if args.report_memory:
        report_memory(tmp, [5_000, 20_000, 80_000, 320_000])
        return
    if not args.only_million:
        small(args.hands, tmp, ray=not args.no_ray)
    if args.million or args.only_million:
        million(tmp)


if __name__ == "__main__":
    main()
