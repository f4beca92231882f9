"""The plan of a run on Ray, without Ray: which record files share a match (a group, read by
one task as the local reader reads them), and how the groups are joined or cut into the
tasks' *shares* (steps 1 and 2 of :mod:`analyze.distributed`). Pure functions of file names,
sizes and match-id hashes, tested without a cluster."""

from __future__ import annotations

import hashlib
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from gamelog import files
from gamelog.errors import GamelogIOError
from gamelog.jsonl import CANONICAL_START

BUCKETS = 16
"""Match-id buckets per ruleset in a partitioned export (``bucket=0..15``)."""


@dataclass(frozen=True)
class Share:
    """One task's part of the input: the record files of one group (indices into the run's
    file list, in input order), and which share of them this task replays or reviews."""

    files: tuple[int, ...]
    share: int = 0
    shares: int = 1


_MATCH_KEY = re.compile(rb'"match"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"')
_STARTS = (b'\n{"type":"hand","match":"', b'\n{"type":"match","match":"')
"""A hand's first line and a header as this toolkit writes them: in a block whose every line
starts ``{"type":"``, these name every match the block reads (the other lines continue a
hand)."""


def _hash(match: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(match, digest_size=8).digest(), "little")


def _ids_in(block: bytes) -> set[bytes]:
    """The match ids of a block of whole lines: from the headers and hands' first lines when
    every line is spelled as this toolkit writes (found by a plain byte search), else from
    every ``"match"`` key."""
    lines = block.count(b"\n") + (not block.endswith(b"\n") and bool(block))
    if block.count(b"\n" + CANONICAL_START) + block.startswith(CANONICAL_START) != lines:
        return set(_MATCH_KEY.findall(block))
    ids: set[bytes] = set()
    for start in _STARTS:
        at = 0 if block.startswith(start[1:]) else block.find(start)
        while at >= 0:
            at += len(start) - (at == 0)  # the first line has no newline before it
            end = block.find(b'"', at)
            if block.find(b"\\", at, end) >= 0:  # an escape: the careful pattern
                return set(_MATCH_KEY.findall(block))
            ids.add(block[at:end])
            at = block.find(start, end)
    return ids


def match_hashes(path: str) -> list[int]:
    """The 64-bit hashes of the match ids a record file holds (what the plan groups files by):
    a scan of JSON Lines for their ``"match"`` keys, the ``match`` column of Parquet, the
    reader for the hand notation. A file that cannot be read gives none (the task that reads
    it reports why)."""
    found: set[int] = set()
    try:
        kind = files.record_format(path)
        if kind == "jsonl":
            ids: set[bytes] = set()
            with files.jsonl.open_binary(Path(path)) as stream:
                tail = b""
                while block := stream.read(1 << 22):
                    chunk = tail + block
                    cut = chunk.rfind(b"\n") + 1
                    ids.update(_ids_in(chunk[:cut]))
                    tail = chunk[cut:]
                ids.update(_MATCH_KEY.findall(tail))
            found.update(map(_hash, ids))
        elif kind == "parquet":
            import pyarrow.compute as pc
            import pyarrow.parquet as pq

            column = pq.ParquetFile(path).read(columns=["match"]).column("match")
            found.update(_hash(m.encode("utf-8", "surrogatepass"))
                         for m in pc.unique(column).to_pylist() if m is not None)
        else:
            for item in files.read(path, with_headers=True):
                found.add(_hash(item.match.encode("utf-8", "surrogatepass")))
    except (OSError, ValueError, GamelogIOError):  # the task that reads the file says why
        return []
    return sorted(found)


def group_files(hashes: list[list[int]]) -> list[tuple[int, ...]]:
    """Files (by index) that share a match id, as groups in the order of their first file."""
    parent = list(range(len(hashes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[int, int] = {}
    for i, found in enumerate(hashes):
        for h in found:
            j = owner.setdefault(h, i)
            if j != i:
                a, b = root(i), root(j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for i in range(len(hashes)):
        groups.setdefault(root(i), []).append(i)
    return [tuple(g) for _, g in sorted(groups.items())]


def plan_shares(groups: list[tuple[int, ...]], sizes: list[int], workers: int, *,
                per_hand: bool = False, min_bytes: int = 8 << 20, max_bytes: int = 64 << 20
                ) -> list[Share]:
    """The tasks of a run, about four a worker. Validation and export: consecutive small groups
    are read by one task (up to a quarter of a worker's share of the input, at most
    ``max_bytes``: fewer tasks, fewer and larger Parquet parts); a group that is a large part of
    the input, and at least ``min_bytes``, is cut into shares by match bucket (each share reads
    the whole group). A review (``per_hand``: reviewing costs a thousand times reading) cuts
    any group by hand."""
    total = max(1, sum(sizes))
    out: list[Share] = []
    if per_hand:
        for group in groups:
            shares = max(1, round(4 * workers * sum(sizes[i] for i in group) / total))
            out.extend(Share(group, s, shares) for s in range(shares))
        return out
    target = max(1, min(max_bytes, total // (4 * workers)))
    batch: list[int] = []
    batch_size = 0

    def flush() -> None:
        nonlocal batch, batch_size
        if batch:
            out.append(Share(tuple(sorted(batch))))
        batch, batch_size = [], 0

    for group in groups:
        size = sum(sizes[i] for i in group)
        shares = max(1, min(round(workers * size / total), size // min_bytes))
        if shares > 1:
            flush()
            out.extend(Share(group, s, shares) for s in range(shares))
            continue
        if batch and batch_size + size > target:
            flush()
        batch.extend(group)
        batch_size += size
    flush()
    return out


def bucket_of(match: str) -> int:
    """The match-id bucket of a partitioned export: stable across runs and machines."""
    return zlib.crc32(match.encode("utf-8", "surrogatepass")) % BUCKETS
