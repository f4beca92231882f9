"""Commands on records themselves: ``convert``, ``import``, ``schema``, ``show``, ``select``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import click

from gamelog import files
from gamelog.errors import GamelogIOError, RecordError
from gamelog.model import Event, Hand, MatchStart
from gamelog.safetext import visible
from shengji.cli.common import (
    EXIT_INPUT,
    ascii_option,
    handle_errors,
    nothing_matched,
    prepare_record_output,
    report_issues,
    selection,
    selection_options,
    strict_option,
)


@click.command()
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.argument("target", type=click.Path(path_type=Path))
@click.option("--to", "to_format", type=click.Choice(["jsonl", "parquet", "sjn"]),
              help="Target format when converting a directory (default: the other format).")
@strict_option
@handle_errors
def convert(source: Path, target: Path, to_format: str | None, strict: bool) -> None:
    """Convert game records between JSON Lines and Parquet.

    The format of each side follows its name (.jsonl, .jsonl.gz, .parquet). A directory
    SOURCE converts every record file in it into the directory TARGET, keeping names. A
    TARGET without a suffix is written as a Parquet dataset directory. Bad lines are reported
    and skipped (exit 2); every good hand is still written.
    """
    jobs: list[tuple[Path | list[Path], Path]] = []
    if source.is_dir():
        for f in files.record_files([source]):
            fmt = to_format or ("parquet" if files.record_format(f) == "jsonl" else "jsonl")
            rel = f.relative_to(source)
            stem = rel.name.split(".")[0]
            jobs.append((f, target / rel.parent / f"{stem}.{fmt}"))
    else:
        if target.is_dir() and target.suffix == "":
            fmt = to_format or ("parquet" if files.record_format(source) == "jsonl" else "jsonl")
            target = target / f"{source.name.split('.')[0]}.{fmt}"
        jobs.append((source, target))
    inputs = {os.path.realpath(src) for src, _ in jobs}
    for _, dst in jobs:  # refuse before anything is written
        if os.path.realpath(dst) in inputs:
            raise GamelogIOError(f"{dst}: is also an input; converting would overwrite it "
                                 "(choose another target)")
        prepare_record_output(dst, [src for src, _ in jobs])
    issues: list[RecordError] = []
    for src, dst in jobs:
        found: list[RecordError] = []
        events = files.events_of(files.read(src, strict=strict, issues=found, with_headers=True))
        count = files.dump(events, dst)
        click.echo(f"{src} -> {dst}: {count} events", err=True)
        issues.extend(found)
    if report_issues(issues):
        sys.exit(EXIT_INPUT)


@click.command(name="import")
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--from", "source_format", type=click.Choice(["botzone"]), required=True,
              help="The system the logs come from (botzone: a Botzone Tractor match log).")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="The record to write (.jsonl, .jsonl.gz or .parquet).")
@handle_errors
def import_(logs: tuple[Path, ...], source_format: str, output: Path) -> None:
    """Import records made elsewhere into one game record.

    --from botzone reads Botzone "Tractor" match logs (JSON: initdata and the judge's and bots'
    log), one hand each; a log that stops mid-hand gives an incomplete hand. Botzone's own
    fields that the record does not model (verdicts, times, memory) are kept in the header's
    tags. The card ids are mapped as the platform's judge maps them (docs/import.md).
    """
    from gamelog.botzone import read_log

    prepare_record_output(output, logs)
    events: list[Event] = []
    problems = 0
    ids = _match_ids(logs)
    for log in logs:
        try:
            data = log.read_bytes()
            events.extend(read_log(data, match=ids[log]))
        except RecordError as err:
            click.echo(f"error: {visible(log)}: {visible(err)}", err=True)
            problems += 1
        except OSError as exc:
            click.echo(f"error: {visible(log)}: cannot read: {exc.strerror or exc}", err=True)
            problems += 1
    if not events:  # nothing imported: write nothing (never an empty record)
        click.echo(f"{visible(output)}: not written: no log could be imported", err=True)
        sys.exit(EXIT_INPUT)
    count = files.dump(events, output)
    click.echo(f"{output}: {count} events from {len(logs) - problems} log(s)", err=True)
    if problems:
        sys.exit(EXIT_INPUT)


def _match_ids(logs: Iterable[Path]) -> dict[Path, str]:
    """A match id for each imported log, from its name (``botzone-1`` for ``1.json``); logs
    of the same name in different folders take their folders' names too
    (``botzone-a-1``, ``botzone-b-1``), so no two logs become one match."""
    logs = list(dict.fromkeys(logs))
    depth = {log: 0 for log in logs}

    def name(log: Path) -> str:
        parts = log.resolve().parts[:-1][-depth[log]:] if depth[log] else ()
        return "botzone-" + "-".join([*parts, log.stem])

    for _ in range(64):
        by_name: dict[str, list[Path]] = {}
        for log in logs:
            by_name.setdefault(name(log), []).append(log)
        clashes = [group for group in by_name.values() if len(group) > 1]
        if not clashes:
            break
        for group in clashes:
            for log in group:
                depth[log] += 1
    out: dict[Path, str] = {}
    taken: set[str] = set()
    for log in logs:
        base = candidate = name(log)
        k = 2
        while candidate in taken:  # the same file named twice over links, say
            candidate, k = f"{base}-{k}", k + 1
        taken.add(candidate)
        out[log] = candidate
    return out


@click.command()
@click.option("-o", "--output", type=click.Path(path_type=Path),
              help="Write the schema to this file instead of standard output.")
@handle_errors
def schema(output: Path | None) -> None:
    """Print the JSON Schema of one line of a game record (JSON Lines)."""
    from gamelog.schema import schema_text

    text = schema_text()
    if output is None:
        click.echo(text, nl=False)
    else:
        from gamelog.outputs import atomic_output

        with atomic_output(output, "json") as out:
            out.write(text.encode())


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@selection_options
@ascii_option
@click.option("--full", is_flag=True,
              help="Show long tag values whole (by default cut at 200 characters).")
@click.option("--color/--no-color", default=None,
              help="Red suits in colour (default: when writing to a terminal).")
@strict_option
@handle_errors
def show(paths: tuple[Path, ...], matches: tuple[str, ...],
         hand_range: tuple[int, int] | None, player: str | None, ascii_cards: bool,
         full: bool, color: bool | None, strict: bool) -> None:
    """Show hands readably: the header, each seat's cards sorted by suit, then the events.

    What it prints is the notation (docs/import.md), read back by every command; a tag value
    longer than 200 characters is cut unless --full (``shengji convert x.jsonl x.sjn`` keeps
    everything)."""
    from gamelog import notation

    if color is None:
        color = sys.stdout.isatty()
    style = "ascii" if ascii_cards else "ansi" if color else "symbol"
    chosen = selection(matches, hand_range, player)
    issues: list[RecordError] = []
    shown = read = 0
    for item in files.read(list(paths), strict=strict, issues=issues, with_headers=True):
        if isinstance(item, MatchStart):
            if not chosen.matches or item.match in chosen.matches:
                click.echo(notation.header_text(item, max_tag=None if full else 200))
            continue
        read += 1
        if not chosen(item):
            continue
        click.echo(notation.hand_text(item, style))
        shown += 1
    if report_issues(issues):
        sys.exit(EXIT_INPUT)
    if shown == 0:
        nothing_matched(chosen, read)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="The record to write (.jsonl, .jsonl.gz, .parquet or .sjn; no suffix: a "
                   "Parquet data set).")
@selection_options
@strict_option
@handle_errors
def select(paths: tuple[Path, ...], output: Path, matches: tuple[str, ...],
           hand_range: tuple[int, int] | None, player: str | None, strict: bool) -> None:
    """Write the chosen hands, with their match headers, to a new record.

    --match, --hand and --player choose as on every command (none: every hand). Several
    inputs are merged into one record; a hand read twice (the same match and number) is
    written once, with a warning. Bad lines are reported and skipped (exit 2). Nothing is
    written when no hand is chosen."""
    import itertools

    prepare_record_output(output, paths)
    chosen = selection(matches, hand_range, player)
    issues: list[RecordError] = []
    read = [0]
    written: set[str] = set()

    seen: set[tuple[str, int]] = set()
    twice: dict[str, int] = {}

    def chosen_hands() -> Iterator[Hand]:
        for hand in files.read_hands(list(paths), strict=strict, issues=issues):
            read[0] += 1
            if not chosen(hand):
                continue
            if (hand.match, hand.number) in seen:
                twice[hand.match] = twice.get(hand.match, 0) + 1
                continue
            seen.add((hand.match, hand.number))
            yield hand

    def events(hands: Iterable[Hand]) -> Iterator[Event]:
        for hand in hands:
            if hand.header is not None and hand.match not in written:
                written.add(hand.match)
                yield hand.header
            yield from hand.events

    hands = chosen_hands()
    first = next(hands, None)
    if first is None:
        report_issues(issues)
        nothing_matched(chosen, read[0])
        return
    count = files.dump(events(itertools.chain([first], hands)), output)
    for match, n in twice.items():
        click.echo(f"warning: match {visible(match)}: {n} hand(s) read more than once, "
                   "written once", err=True)
    click.echo(f"{visible(output)}: {count} events, {len(seen)} hand(s) of {len(written)} "
               f"match(es), from {read[0]} hand(s) read", err=True)
    if report_issues(issues):
        sys.exit(EXIT_INPUT)
