"""Benchmark: read N two-deck hands from JSON Lines and from Parquet.

    python bench/read_speed.py --hands 100000

Writes bench/data/hands-N.jsonl and .parquet once (two-deck tractor hands of about 110 events
each, from the example player in samples/make_examples.py, each hand under its own match and
hand number), then times, best of ``--repeat`` runs:

- ``orjson``: bare ``orjson.loads`` of every line into dicts (the baseline);
- ``msgspec (decode only)``: typed decoding of every line into event Structs;
- ``jsonl``: the full reader (typed decoding, structure checks, grouping into hands);
- ``parquet``: the full reader over the Parquet file (timed in turns with ``jsonl``).

It prints events per second for each and the ratio of the typed JSONL reader to the bare decode.
Targets (issue 2): typed decoding costs no more than 2x the bare decode; Parquet reads faster
than JSONL.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "samples"))

import msgspec  # noqa: E402
import orjson  # noqa: E402

import gamelog  # noqa: E402
from gamelog import jsonl, parquet  # noqa: E402
from gamelog.model import AnyEvent  # noqa: E402


def template_hands(count: int) -> list[list[gamelog.Event]]:
    """``count`` distinct played two-deck hands (without their header)."""
    import make_examples

    hands = []
    for seed in range(count):
        events = make_examples.tractor_example(2, "t", 1000 + seed)
        hands.append(events[1:])
    return hands


def build(n: int, path_jsonl: Path, path_parquet: Path) -> int:
    templates = template_hands(50)
    rng = random.Random(1)

    def events():
        per_match = 20
        for h in range(n):
            match = f"bench-{h // per_match:06d}"
            number = h % per_match + 1
            if number == 1:
                yield gamelog.MatchStart(match=match, hand=0, seq=0,
                                         version=gamelog.FORMAT_VERSION, ruleset="tractor",
                                         players=4, decks=2, levels=["2", "2"])
            for ev in rng.choice(templates):
                yield msgspec.structs.replace(ev, match=match, hand=number)

    count = jsonl.write(events(), path_jsonl)
    parquet.write(gamelog.files.events_of(gamelog.files.read(path_jsonl, with_headers=True)),
                  path_parquet)
    return count


def timed(label: str, fn, events: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    print(f"{label:<28} {best:8.2f} s  {events / best:>12,.0f} events/s")
    return best


def timed_in_turns(runs: dict, events: int, repeat: int) -> list[float]:
    """Best of ``repeat`` for each of ``runs``, run in turns."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for label, fn in runs.items():
            gc.collect()
            t0 = time.perf_counter()
            fn()
            best[label] = min(best[label], time.perf_counter() - t0)
    for label, seconds in best.items():
        print(f"{label:<28} {seconds:8.2f} s  {events / seconds:>12,.0f} events/s")
    return list(best.values())


def bare_orjson(path: Path) -> None:
    loads = orjson.loads
    with open(path, "rb") as f:
        for line in f:
            loads(line)


def typed_decode(path: Path) -> None:
    dec = msgspec.json.Decoder(AnyEvent)
    with open(path, "rb") as f:
        for line in f:
            dec.decode(line)


def full_reader(path: Path) -> None:
    issues: list = []
    for _ in gamelog.read_hands(path, issues=issues):
        pass
    assert not issues, issues[:3]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data = ROOT / "bench" / "data"
    data.mkdir(parents=True, exist_ok=True)
    pj, pp = data / f"hands-{args.hands}.jsonl", data / f"hands-{args.hands}.parquet"
    if not (pj.exists() and pp.exists()):
        t0 = time.perf_counter()
        build(args.hands, pj, pp)
        print(f"built {pj.name} and {pp.name} in {time.perf_counter() - t0:.1f} s")
    with open(pj, "rb") as f:
        events = sum(1 for _ in f)
    print(f"{args.hands:,} hands, {events:,} events; JSONL {pj.stat().st_size / 1e6:,.0f} MB, "
          f"Parquet {pp.stat().st_size / 1e6:,.0f} MB")
    base = timed("orjson.loads per line", lambda: bare_orjson(pj), events, args.repeat)
    typed = timed("msgspec typed decode", lambda: typed_decode(pj), events, args.repeat)
    # The two readers are timed in turns, so that the machine's drift falls on both alike.
    reader, pq_reader = timed_in_turns(
        {"gamelog JSONL reader": lambda: full_reader(pj),
         "gamelog Parquet reader": lambda: full_reader(pp)}, events, args.repeat)
    import polars as pl

    cols_pq = timed("polars.read_parquet (columns)", lambda: pl.read_parquet(pp), events,
                    args.repeat)
    cols_js = timed("polars.read_ndjson (columns)",
                    lambda: pl.read_ndjson(pj, infer_schema_length=None), events, args.repeat)
    print(f"typed decode / bare decode:   {typed / base:.2f}x")
    print(f"JSONL reader / bare decode:   {reader / base:.2f}x  (target <= 2x)")
    print(f"Parquet reader / JSONL reader: {pq_reader / reader:.2f}x  (target < 1x)")
    print(f"columnar: Parquet / JSONL:     {cols_pq / cols_js:.2f}x")


if __name__ == "__main__":
    main()
