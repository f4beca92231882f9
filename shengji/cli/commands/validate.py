"""``shengji validate``: every hand replayed against its ruleset, serially, on ``-j`` cores
(whole lines cut into batches at hand boundaries and decoded in the workers) or on Ray."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import click
import msgspec

from gamelog import files
from gamelog.errors import FileReadError, GamelogError, RecordError
from gamelog.jsonl import CANONICAL_START
from gamelog.model import Hand
from gamelog.reader import HandsSeen, RecordWarning, duplicate_message
from gamelog.safetext import visible
from replay import RulesetProblem
from replay.report import hand_json, hand_text, totals_text
from shengji.cli.common import (
    EXIT_INPUT,
    EXIT_VIOLATIONS,
    Progress,
    check_ruleset,
    cores,
    engine_options,
    handle_errors,
    issue_kind,
    jobs_option,
    need_ray,
    nothing_matched,
    parse_options,
    progress_option,
    ruleset_name,
    selection,
    selection_options,
    show_progress,
    unique_problems,
)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              help="text: a summary per hand and totals; json: one JSON object per hand.")
@click.option("--ruleset", callback=ruleset_name,
              help="Use this ruleset instead of the one each header names.")
@click.option("-O", "--option", "option_values", multiple=True, metavar="NAME=VALUE",
              help="Override a ruleset option (repeatable), e.g. -O decks=3.")
@click.option("--strict", is_flag=True,
              help="Stop at the first violation or bad line (exit 1 or 2).")
@click.option("-q", "--quiet", is_flag=True, help="Text format: print only hands with violations.")
@click.option("--allow-incomplete", is_flag=True,
              help="A hand whose record stops before its end is not a failure (exit 0 when "
                   "nothing else is wrong); by default it gives exit 1.")
@selection_options
@jobs_option
@progress_option
@engine_options
@handle_errors
def validate(paths: tuple[Path, ...], fmt: str, ruleset: str | None,
             option_values: tuple[str, ...], strict: bool, quiet: bool, allow_incomplete: bool,
             matches: tuple[str, ...], hand_range: tuple[int, int] | None, player: str | None,
             jobs: int, progress: bool | None, engine: str, ray_address: str | None) -> None:
    """Check that every recorded hand was played by the rules.

    Replays each hand against its ruleset and reports every violation with its place, the
    rule it breaks and why; bad lines are reported and skipped. Exit 0 when every hand is
    clean, 1 when violations were found (or a hand stops before its end, unless
    --allow-incomplete), 2 on usage or input errors.
    """
    options = parse_options(option_values)
    check_ruleset(ruleset, options)
    chosen = (selection(matches, hand_range, player) or None
              if matches or hand_range is not None or player is not None else None)
    issues: list[RecordError] = []
    hands = files.read_hands(list(paths), strict=strict, issues=issues)
    counts = _new_counts()
    jobs = cores(jobs)
    bar = show_progress(progress)
    found: list[tuple[str, str]] = []  # (kind, message) of every record problem
    if engine == "ray":
        need_ray()
        from functools import partial

        from analyze.distributed import validate_on_ray

        read_problems: list[tuple[str, str]] = []
        with Progress(bar, "validating", list(paths)) as tick:
            for lines, batch_counts, batch_found, batch_read in validate_on_ray(
                    list(paths), partial(_tally_into, fmt=fmt, quiet=quiet, chosen=chosen),
                    address=ray_address, jobs=max(jobs, 2), ruleset=ruleset,
                    options=options):
                _add_batch(lines, batch_counts, batch_found, counts, found)
                read_problems.extend(batch_read)
                tick(batch_counts.get("read", 0))
        found.extend(read_problems)  # after the hands' own, as the local reader reports them
    elif jobs > 1 and not strict:
        inputs = files.record_files(list(paths))
        from replay.parallel import terminate_on_sigterm

        if inputs and all(files.record_format(f) == "jsonl" for f in inputs):
            with terminate_on_sigterm(), Progress(bar, "validating", inputs) as tick:
                for lines, batch_counts, batch_found in _validate_lines_parallel(
                        inputs, jobs, ruleset, options, fmt, quiet, issues,
                        chosen=chosen):
                    _add_batch(lines, batch_counts, batch_found, counts, found)
                    tick(batch_counts["hands"])
        else:  # the parent reads (Parquet), the workers replay
            from replay.parallel import replay_in_processes

            with Progress(bar, "validating", list(paths)) as tick:
                for report in replay_in_processes(hands, jobs, ruleset=ruleset,
                                                  options=options):
                    line = _tally(report, counts, fmt, quiet, found, chosen)
                    if line is not None:
                        click.echo(line)
                    tick(1)
    else:
        import replay

        with Progress(bar, "validating", list(paths)) as tick:
            for report in replay.validate_hands(hands, ruleset=ruleset, options=options,
                                                strict=strict):
                line = _tally(report, counts, fmt, quiet, found, chosen)
                if line is not None:
                    click.echo(line)
                tick(1)
                if strict and (report.violations or report.record_issues):
                    break
    found += [(issue_kind(issue), str(issue)) for issue in issues]
    found = unique_problems(found)
    for kind, message in found:
        click.echo(f"{kind}: {visible(message)}", err=True)
    errors = sum(kind == "error" for kind, _ in found)
    if counts["hands"] == 0 and not errors:
        nothing_matched(chosen, counts.get("read", 0))
    if fmt == "text":
        click.echo(totals_text(counts, errors))
    if errors or counts["bad"]:
        sys.exit(EXIT_INPUT)
    if counts["violations"] or (counts["incomplete"] and not allow_incomplete):
        sys.exit(EXIT_VIOLATIONS)


def _add_batch(lines: list[str], batch_counts: dict[str, int],
               batch_found: list[tuple[str, str]], counts: dict[str, int],
               found: list[tuple[str, str]]) -> None:
    """A worker's batch (or Ray task's share) printed and added to the run's counts."""
    for line in lines:
        click.echo(line)
    for key, value in batch_counts.items():
        counts[key] += value
    found.extend(batch_found)


def _new_counts() -> dict[str, int]:
    return {"hands": 0, "clean": 0, "incomplete": 0, "violations": 0, "bad": 0, "read": 0}


def _tally(report: Any, counts: dict[str, int], fmt: str, quiet: bool,
           found: list[tuple[str, str]], chosen: Any = None) -> str | None:
    """Count a hand's report and render it (``None`` when quiet and clean, or not among the
    hands ``chosen``: those are replayed, since a verdict depends on the hands before it,
    but neither counted nor shown); a match that cannot be replayed (bad ruleset settings)
    goes to ``found``."""
    counts["read"] += 1
    if chosen and not chosen.keeps(report.match, report.hand, report.record.header
                                   if report.record is not None else None):
        return None

    counts["hands"] += 1
    counts["violations"] += len(report.violations)
    errors = [i for i in report.record_issues if not isinstance(i, RecordWarning)]
    counts["bad"] += bool(errors)
    for issue in errors:
        if isinstance(issue, RulesetProblem):
            found.append(("error", str(issue)))
    clean = not report.violations and not errors
    counts["clean"] += clean and report.complete
    counts["incomplete"] += clean and not report.complete
    if fmt == "json":
        return hand_json(report)
    if quiet and clean and report.complete:
        return None
    return hand_text(report)


def _tally_into(report: Any, counts: dict[str, int], found: list[tuple[str, str]], *,
                fmt: str, quiet: bool, chosen: Any = None) -> str | None:
    """:func:`_tally` as a Ray worker calls it (``analyze.distributed.validate_task``)."""
    return _tally(report, counts, fmt, quiet, found, chosen)


def _validated(hands: Iterable[Hand], ruleset: str | None, options: dict[str, Any], fmt: str,
               quiet: bool, chosen: Any = None) -> tuple[list[str], dict[str, int], list[tuple[str, str]]]:
    """Replay hands in a worker: (output lines, counts, problems of unplayable matches)."""
    import replay

    lines: list[str] = []
    counts = _new_counts()
    found: list[tuple[str, str]] = []
    for report in replay.validate_hands(hands, ruleset=ruleset, options=options):
        line = _tally(report, counts, fmt, quiet, found, chosen)
        if line is not None:
            lines.append(line)
    return lines, counts, unique_problems(found)


class _LineKey(msgspec.Struct):
    """What the parent needs of a JSON line to cut a file into batches at hand boundaries."""

    match: str | None = None
    type: str | None = None
    hand: int | None = None


_Lines = list[tuple[int, bytes]]
_STARTS = (b'{"type":"hand"', b'{"type":"match"')
_Context = tuple[tuple[str | None, str], Any]  # ((source, match), MatchContext)


def _validate_lines(source: str, lines: _Lines, first: int, ruleset: str | None,
                    options: dict[str, Any], fmt: str, quiet: bool, chosen: Any = None,
                    start: _Context | None = None
                    ) -> tuple[list[str], dict[str, int], list[tuple[str, str]],
                               _Context | None, _Context | None]:
    """A worker: read raw JSON lines and runs of lines (with their first line numbers:
    :func:`gamelog.jsonl.numbered_runs`) and validate the hands from
    line ``first`` on. Lines before ``first`` are context sent again from earlier in the file
    (header lines, and the last hands of a match that this batch continues): read and
    replayed, not reported (:func:`replay.parallel.replay_after_warmup`). Returns the output
    lines, counts and problems, and the contexts at the batch's start and end."""
    from gamelog.jsonl import items_of_runs
    from gamelog.reader import EventDecoder, HandAssembler
    from replay.parallel import replay_after_warmup

    decoder = EventDecoder()
    assembler = HandAssembler(source, "line", strict=False, decoder=decoder)
    out: list[str] = []
    counts = _new_counts()
    found: list[tuple[str, str]] = []

    def tally(report: Any) -> None:  # as each hand is replayed: no report is kept
        line = _tally(report, counts, fmt, quiet, found, chosen)
        if line is not None:
            out.append(line)

    _, at_start, end = replay_after_warmup(
        assembler.feed(items_of_runs(lines, decoder)),
        lambda _i, hand: (hand.first_line or 0) >= first, ruleset, options, start,
        on_report=tally)
    found += [(issue_kind(i), str(i)) for i in assembler.issues
              if i.line is None or i.line >= first]
    return out, counts, unique_problems(found), at_start, end


def _validate_lines_parallel(paths: list[Path], jobs: int, ruleset: str | None,
                             options: dict[str, Any], fmt: str, quiet: bool,
                             issues: list[RecordError], batch_lines: int = 20_000,
                             warm_hands: int = 8, chosen: Any = None
                             ) -> Iterator[tuple[list[str], dict[str, int], list[tuple[str, str]]]]:
    """JSON Lines in batches to ``jobs`` processes as raw lines: the parent only reads each
    line's match id, hand number and type, so that decoding, too, runs in the workers.

    Batches end at hand boundaries, inside a match too, so memory stays flat however long a
    match is. A hand depends on the hands before it (levels, dealer), so a batch that
    continues a match carries that match's header and its last ``warm_hands`` hands, which the
    worker replays unreported; the parent then checks that the context the batch started from
    equals the one the previous batch ended with, and replays the batch again from the right
    context when it does not (rare: only when a hand records neither levels nor dealer for
    more than that many hands). Results are identical to one process, in file order. A file
    that cannot be read to its end is reported in ``issues``; its lines up to there count."""
    from collections import deque

    key_of = msgspec.json.Decoder(_LineKey).decode
    seen = HandsSeen()

    def batches() -> Iterator[tuple[str, _Lines, int]]:
        for file in files.record_files(paths):
            source = str(file)
            headers: dict[str, tuple[int, bytes]] = {}
            batch: _Lines = []  # the warm-up lines, then the lines to report (and runs)
            size = 0  # the lines in the batch
            first = 0  # the line number of the first line to report
            matches: set[str] = set()
            starts: deque[int] = deque(maxlen=warm_hands)  # where this match's last hands start
            current: tuple[str, int] | None = None
            skipping: tuple[str, int] | None = None
            dups: dict[str, list[Any]] = {}
            try:
                stream = files.jsonl.open_binary(file)
            except GamelogError as exc:
                issues.append(FileReadError.of(exc, source))
                continue
            try:
                with stream:
                    for number, line, count in files.jsonl.numbered_runs(stream, source,
                                                                         _STARTS):
                        if count > 1 or (line.startswith(CANONICAL_START)
                                         and not line.startswith(_STARTS)):
                            # the next events of the hand in progress, as our writer writes
                            # them: no need to decode their keys (most lines, which come as
                            # runs; the worker checks them)
                            if current is not None and current == skipping:
                                continue
                            if not first:
                                first = number
                            batch.append((number, line))
                            size += count
                            continue
                        try:
                            key = key_of(line)
                        except (msgspec.MsgspecError, RecursionError):
                            key = _LineKey()  # a bad line: its batch's worker reports it
                        if key.match is not None and key.hand is not None \
                                and key.type != "match":
                            hand = (key.match, key.hand)
                            if hand == skipping:
                                continue
                            if hand != current:
                                earlier = seen.first_source(key.match, key.hand, source)
                                if earlier is not None:  # the same hand in an earlier file
                                    skipping = hand
                                    dups.setdefault(key.match, [number, 0, earlier])[1] += 1
                                    continue
                                skipping = None
                                continuing = current is not None and key.match == current[0]
                                if size >= batch_lines and first:
                                    yield _batch(source, batch, first, headers, matches)
                                    if continuing and starts:  # the match's last hands again
                                        cut = starts[0]
                                        batch = batch[cut:]
                                        starts = deque((i - cut for i in starts),
                                                       maxlen=warm_hands)
                                    else:
                                        batch = []
                                    size = sum(data.count(b"\n") + 1 for _, data in batch)
                                    matches = {key.match}
                                    first = 0
                                if not continuing:
                                    starts.clear()
                                current = hand
                                starts.append(len(batch))
                        if key.match is not None:
                            matches.add(key.match)
                            if key.type == "match" and key.match not in headers:
                                headers[key.match] = (number, line)
                        if not first:
                            first = number
                        batch.append((number, line))
                        size += 1
            except GamelogError as exc:
                issues.append(FileReadError.of(exc, source))
            if first:
                yield _batch(source, batch, first, headers, matches)
            issues.extend(RecordWarning(duplicate_message(m, n, earlier), source=source,
                                        line=line_no, field="$.hand")
                          for m, (line_no, n, earlier) in dups.items())

    tasks = ((source, lines, first, ruleset, options, fmt, quiet, chosen)
             for source, lines, first in batches())
    from replay.parallel import checked_in_order, in_order

    return checked_in_order(in_order(jobs, _validate_lines, tasks, keep_tasks=True),
                            _validate_lines)


def _batch(source: str, batch: _Lines, first: int, headers: dict[str, tuple[int, bytes]],
           matches: set[str]) -> tuple[str, _Lines, int]:
    """A batch of lines, preceded by the header lines of its matches that came before it."""
    start = batch[0][0]
    earlier = sorted(headers[m] for m in matches if m in headers and headers[m][0] < start)
    return source, [*earlier, *batch], first
