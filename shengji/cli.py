"""The ``shengji`` command line: a thin click layer over gamelog, replay and analyze.

Every command turns library errors into a one-line message on stderr and a conventional exit
code: 0 ok, 1 violations found (validate), 2 usage or input errors. Nothing imports this module.

Why one module of about 1,400 lines, for now: the shared pieces (``handle_errors``,
``prepare_output``, ``selection_options``, ``check_ruleset``, the progress bar) and eleven
commands; issue 26 splits it into one module per command on those shared pieces, and is the
next change this file should get.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click
import msgspec

import gamelog
from gamelog import files, notation
from gamelog.errors import FileReadError, GamelogError, GamelogIOError, RecordError
from gamelog.model import Event, Hand, MatchStart
from gamelog.outputs import (
    check_replaceable,
    check_replaceable_file,
    refuse_inputs,
    resolve_output,
    stale_temporaries,
)
from gamelog.reader import HandsSeen, RecordWarning, duplicate_message
from gamelog.safetext import visible

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

EXIT_OK, EXIT_VIOLATIONS, EXIT_INPUT = 0, 1, 2
MAX_SAMPLES, MAX_CONFIRM = 256, 1024
"""The review's budget bounds: 32 times the default, about ten minutes a two-deck hand on one
core; past that an estimate gains nothing a user would see (refused, exit 2)."""


def _fail(message: str) -> None:
    click.echo(f"shengji: {visible(message)}", err=True)
    sys.exit(EXIT_INPUT)


def handle_errors(func: F) -> F:
    """Turn the library's errors into a one-line message and exit code 2, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except BrokenPipeError:  # the reader went away (| head): stop quietly
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(EXIT_OK)
        except (GamelogError, OSError) as exc:
            _fail(str(exc))
        except KeyboardInterrupt:
            _fail("interrupted")
        except (click.ClickException, click.exceptions.Exit, SystemExit):
            raise
        except Exception as exc:  # the last resort: a message, never a traceback
            from replay.rulesets.base import RulesetError

            if isinstance(exc, RulesetError):
                _fail(str(exc))
            _fail(f"internal error ({type(exc).__name__}: {exc}); please report it with the "
                  "input that caused it")

    return wrapper  # type: ignore[return-value]


def prepare_output(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]],
                   kind: str | None = None, *, directory: bool = False) -> None:
    """Refuse, before any work, an output that is an input or would replace a file (or a
    directory) the toolkit did not write; note temporaries a killed run left beside it."""
    refuse_inputs(output, inputs)
    if directory:
        check_replaceable(resolve_output(output), kind or "export")
    else:
        check_replaceable_file(output, kind)
    for left in stale_temporaries(output):
        click.echo(f"note: {visible(left)} looks like a temporary left by a run that was killed; "
                   "shengji never removes what it did not write this run (remove it yourself)",
                   err=True)


def _ruleset_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--ruleset``: a known name or alias, checked before any work (exit 2, with a "did you
    mean")."""
    if value is None:
        return None
    from replay.rulesets.base import RulesetError, ruleset_class

    try:
        ruleset_class(value)
    except RulesetError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    return value


def check_ruleset(ruleset: str | None, options: dict[str, Any]) -> None:
    """Refuse, before any work, a ruleset and ``-O`` options it does not accept (exit 2): an
    option no ruleset (or not the one named) has, with a "did you mean", or a value none
    accepts. Without ``--ruleset`` each header's ruleset takes the options it has."""
    import difflib

    from replay.rulesets.base import RulesetError, all_rulesets, ruleset_class

    classes = [ruleset_class(ruleset)] if ruleset is not None else all_rulesets()
    for key, value in options.items():
        having = [c for c in classes if any(o.name == key for o in c.options)]
        if not having:
            names = sorted({o.name for c in classes for o in c.options})
            near = difflib.get_close_matches(key, names, n=1)
            whose = (f"ruleset {classes[0].name} has no option {key!r}" if ruleset is not None
                     else f"no ruleset has an option {key!r}")
            raise click.UsageError(
                f"-O {key}: {whose}"
                + (" (did you mean " + repr(near[0]) + "?)" if near else "")
                + f"; options: {', '.join(names) or 'none'} (shengji rules lists them)")
        errors = []
        for cls in having:
            try:
                cls(**{key: value})
            except (RulesetError, TypeError, ValueError) as exc:
                errors.append(str(exc))
        if len(errors) == len(having):
            raise click.UsageError(errors[0])
    if ruleset is not None:
        try:
            classes[0](**options)
        except (RulesetError, TypeError, ValueError) as exc:
            raise click.UsageError(str(exc)) from None


def _hand_range(value: str | None) -> tuple[int, int] | None:
    """``3``, ``3-7``, ``3-`` or ``-7`` as an inclusive (low, high) range of hand numbers."""
    if value is None:
        return None
    low, sep, high = value.strip().partition("-")
    if not (low.strip() or high.strip()):
        raise click.BadParameter(f"{value!r} names no hand", param_hint="--hand")
    try:
        lo = int(low) if low.strip() else 0
        hi = (int(high) if high.strip() else 2**31) if sep else lo
    except ValueError:
        raise click.BadParameter(f"{value!r} is not N, N-M, N- or -M",
                                 param_hint="--hand") from None
    if lo < 0 or hi < lo:
        raise click.BadParameter(f"{value!r} is not a range of hand numbers",
                                 param_hint="--hand")
    return lo, hi


def selection_options(func: F) -> F:
    """``--match``, ``--hand`` and ``--player``: the same choice of hands on every command that
    reads records (:class:`gamelog.select.Selection`)."""
    func = click.option("--player", metavar="NAME",
                        help="Only hands where this player (id or name) sat.")(func)
    func = click.option("--hand", "hand_range", metavar="N|N-M",
                        callback=lambda c, p, v: _hand_range(v),
                        help="Only these hand numbers within each match: 3, 3-7, 3- or "
                             "-7.")(func)
    return click.option("--match", "matches", multiple=True, metavar="ID",
                        help="Only this match (repeat for several).")(func)


def _selection(matches: tuple[str, ...], hands: tuple[int, int] | None,
               player: str | None) -> Any:
    from gamelog.select import Selection

    return Selection(frozenset(matches), hands, player)


def nothing_matched(chosen: Any, read: int) -> None:
    """Exit 2 with a message when a command read no hand, or none that ``chosen`` keeps."""
    if read == 0:
        _fail("no hand found in the input (no game record was read)")
    if chosen:
        _fail(f"no hand matched {chosen.describe()} (of {read} hand(s) read)")


def _hand_filter(matches: tuple[str, ...], hands: tuple[int, int] | None, player: str | None,
                 violations_only: bool) -> Any:
    """The report's choice of hands (None: every hand)."""
    from analyze.metrics import HandFilter

    chosen = HandFilter(frozenset(matches), hands, player, violations_only)
    return chosen or None


def prepare_record_output(output: Path, inputs: Iterable[str | os.PathLike[str]]) -> None:
    """:func:`prepare_output` for a game record: a file by its suffix, or (no suffix, or an
    existing directory) a Parquet data set, as :func:`gamelog.files.dump` writes it."""
    if output.is_dir() or not output.suffix:
        prepare_output(output, inputs, "Parquet data set", directory=True)
    else:
        prepare_output(output, inputs)


def strict_option(func: F) -> F:
    return click.option(
        "--strict", is_flag=True,
        help="Stop at the first bad line or row instead of reporting it and going on.",
    )(func)


def jobs_option(func: F) -> F:
    return click.option(
        "-j", "--jobs", type=click.IntRange(min=0), default=1, show_default=True,
        help="Worker processes (0: one per core; at most the cores). Results stay in the "
             "input's order and are identical to -j 1.")(func)


def progress_option(func: F) -> F:
    return click.option(
        "--progress/--no-progress", default=None,
        help="A progress bar on standard error (default: when it is a terminal).")(func)


def review_budget(samples: int) -> Any:
    """The budget of ``--review`` (report, export): ``samples`` deals a decision, three times
    as many to confirm a suspected mistake."""
    from replay.review import Budget

    return Budget(samples=samples, confirm=3 * samples)


def review_options(func: F) -> F:
    func = click.option("--review-samples", type=click.IntRange(min=1, max=MAX_SAMPLES), default=8,
                        show_default=True,
                        help="With --review: random deals per decision (three times as "
                             "many confirm a suspected mistake).")(func)
    return click.option(
        "--review", is_flag=True,
        help="Also review every decision (the point swing of each play against the legal "
             "alternatives; shengji review, docs/review.md). Takes seconds a hand.")(func)


def engine_options(func: F) -> F:
    func = click.option("--ray-address", metavar="ADDRESS",
                        help="The Ray cluster to run on (default: RAY_ADDRESS, else a local Ray "
                             "started for the run).")(func)
    return click.option(
        "--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
        help="local: this machine (-j processes); ray: a Ray cluster (pip install "
             "'shengji-toolkit[ray]'; docs/scale.md).")(func)


def _need_ray() -> None:
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise click.UsageError("--engine ray needs Ray: pip install 'shengji-toolkit[ray]'") \
            from None


def _cores(jobs: int) -> int:
    cores = os.cpu_count() or 1
    return cores if jobs == 0 else min(jobs, cores)


def _show_progress(progress: bool | None) -> bool:
    return sys.stderr.isatty() if progress is None else progress


class _progress:
    """A progress bar of hands on standard error (click's), or nothing: ``tick(n)`` after
    each n hands. Its length is the hands in the inputs where they can be counted cheaply
    (uncompressed JSON Lines and Parquet), so it shows the time left; only counted when the
    bar is shown. ``passes``: how many times the run goes over the hands (a replay, then a
    review), each hand ticked once a pass."""

    def __init__(self, show: bool, label: str, paths: Iterable[str | os.PathLike[str]],
                 passes: int = 1, total: int | None = None) -> None:
        self.show = show
        self.label = label
        self.paths = list(paths)
        self.passes = passes
        self.total = total  # the work to be done, where the caller knows it

    def __enter__(self) -> Callable[[int], None]:
        if not self.show:
            self.bar = None
            return lambda n: None
        total = self.total if self.total is not None else \
            files.count_hands(self.paths) * self.passes
        self.bar = click.progressbar(length=max(total, 1), label=self.label, file=sys.stderr,
                                     show_pos=True, show_eta=True, show_percent=True,
                                     item_show_func=self._rate)
        self.started = time.monotonic()
        self.done = 0
        self.bar.__enter__()

        def tick(n: int) -> None:
            self.done += n
            self.bar.update(n, self.done)  # type: ignore[union-attr]

        return tick

    def _rate(self, done: int | None) -> str | None:
        if done is None:
            return None
        elapsed = max(1e-6, time.monotonic() - self.started)
        return f"{done / elapsed:,.0f} hands/s"

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


def _issue_kind(issue: RecordError) -> str:
    return "warning" if isinstance(issue, RecordWarning) else "error"


def report_issues(issues: Iterable[RecordError], quiet: bool = False) -> int:
    """Print record problems to stderr, one per line; return how many were errors."""
    errors = 0
    for issue in issues:
        kind = _issue_kind(issue)
        errors += kind == "error"
        if not quiet:
            click.echo(f"{kind}: {visible(str(issue))}", err=True)
    return errors


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    import replay

    engine = "compiled" if replay.NATIVE else "Python (not compiled)"
    click.echo(f"shengji, version {version('shengji-toolkit')} (record format "
               f"{gamelog.FORMAT_VERSION}; replay engine: {engine})")
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Show the version (and whether the engine is compiled).")
def cli() -> None:
    """Validate, review and convert recorded games of 升级 / 拖拉机 (Shengji)."""


@cli.command()
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


@cli.command(name="import")
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


@cli.command()
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


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@selection_options
@click.option("--ascii", "ascii_cards", is_flag=True, help="Cards as AS TH BJ instead of ♠A ♥10.")
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
    if color is None:
        color = sys.stdout.isatty()
    style = "ascii" if ascii_cards else "ansi" if color else "symbol"
    chosen = _selection(matches, hand_range, player)
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


@cli.command()
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
    chosen = _selection(matches, hand_range, player)
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


def _parse_options(values: tuple[str, ...]) -> dict[str, Any]:
    """``-O decks=3 -O x=true`` as typed values (int, float, bool or string)."""
    out: dict[str, Any] = {}
    for item in values:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise click.UsageError(f"option {item!r} is not NAME=VALUE")
        value: Any = raw
        if raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        else:
            for kind in (int, float):
                try:
                    value = kind(raw)
                    break
                except ValueError:
                    continue
        out[key] = value
    return out


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              help="text: a summary per hand and totals; json: one JSON object per hand.")
@click.option("--ruleset", callback=_ruleset_name,
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
    from replay.report import totals_text

    options = _parse_options(option_values)
    check_ruleset(ruleset, options)
    chosen = _selection(matches, hand_range, player) or None
    issues: list[RecordError] = []
    hands = files.read_hands(list(paths), strict=strict, issues=issues)
    counts = _new_counts()
    jobs = _cores(jobs)
    bar = _show_progress(progress)
    found: list[tuple[str, str]] = []  # (kind, message) of every record problem
    if engine == "ray":
        _need_ray()
        from analyze.distributed import replay_on_ray

        with _progress(bar, "validating", list(paths)) as tick:
            for reports, _ in replay_on_ray(list(paths), address=ray_address,
                                            jobs=max(jobs, 2), ruleset=ruleset,
                                            options=options, issues=issues):
                for report in reports:
                    line = _tally(report, counts, fmt, quiet, found, chosen)
                    if line is not None:
                        click.echo(line)
                    tick(1)
    elif jobs > 1 and not strict:
        inputs = files.record_files(list(paths))
        from replay.parallel import terminate_on_sigterm

        if inputs and all(files.record_format(f) == "jsonl" for f in inputs):
            with terminate_on_sigterm(), _progress(bar, "validating", inputs) as tick:
                for lines, batch_counts, batch_found in _validate_lines_parallel(
                        inputs, jobs, ruleset, options, fmt, quiet, issues,
                        chosen=chosen):
                    for line in lines:
                        click.echo(line)
                    for key, value in batch_counts.items():
                        counts[key] += value
                    found.extend(batch_found)
                    tick(batch_counts["hands"])
        else:  # the parent reads (Parquet), the workers replay
            from replay.parallel import replay_in_processes

            with _progress(bar, "validating", list(paths)) as tick:
                for report in replay_in_processes(hands, jobs, ruleset=ruleset,
                                                  options=options):
                    line = _tally(report, counts, fmt, quiet, found, chosen)
                    if line is not None:
                        click.echo(line)
                    tick(1)
    else:
        import replay

        with _progress(bar, "validating", list(paths)) as tick:
            for report in replay.validate_hands(hands, ruleset=ruleset, options=options,
                                                strict=strict):
                line = _tally(report, counts, fmt, quiet, found, chosen)
                if line is not None:
                    click.echo(line)
                tick(1)
                if strict and (report.violations or report.record_issues):
                    break
    found += [(_issue_kind(issue), str(issue)) for issue in issues]
    found = _unique(found)
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


def _new_counts() -> dict[str, int]:
    return {"hands": 0, "clean": 0, "incomplete": 0, "violations": 0, "bad": 0, "read": 0}


def _unique(found: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Problems in order, each once (a match's bad header is met by each of its hands)."""
    return list(dict.fromkeys(found))


@cli.command()
@click.option("--ruleset", default="tractor", show_default=True, callback=_ruleset_name,
              help="The ruleset to play (shengji rules lists them).")
@click.option("--decks", type=int, help="Decks (default: the ruleset's).")
@click.option("--players", type=int, help="Players (default: the ruleset's).")
@click.option("-O", "--option", "option_values", multiple=True, metavar="NAME=VALUE",
              help="Another ruleset option (repeatable).")
@click.option("--matches", type=int, default=1, show_default=True, help="Matches to play.")
@click.option("--hands", type=int, help="Hands per match (default: until a team passes A).")
@click.option("--seed", type=int, default=1, show_default=True, help="Random seed.")
@click.option("--inject", type=float, default=0.0, show_default=True,
              help="Fraction of hands given one labelled violation (see --labels).")
@click.option("--labels", type=click.Path(path_type=Path),
              help="Where to write the injected violations' labels (JSONL; default: OUTPUT "
                   "with .labels.jsonl).")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Output file (.jsonl, .jsonl.gz or .parquet).")
@click.option("--progress/--no-progress", default=None,
              help="A progress bar on standard error (default: when it is a terminal).")
@handle_errors
def simulate(ruleset: str, decks: int | None, players: int | None,
             option_values: tuple[str, ...], matches: int, hands: int | None, seed: int,
             inject: float, labels: Path | None, output: Path, progress: bool | None) -> None:
    """Play whole matches with heuristic agents and write them as a game record.

    Shuffles and deals in draw order, declares during the deal, buries the kitty, plays every
    trick (throws included, some failing on purpose), scores, advances levels and passes the
    deal. Deterministic for a seed. With --inject, a fraction of hands get one labelled rule
    violation each, for measuring the validator.
    """
    prepare_record_output(output, [])
    if inject > 0 and labels is not None:
        prepare_output(labels, [], "labels")
    from replay import get_ruleset
    from replay.inject import inject_violations
    from replay.simulate import simulate as run_simulation

    options = _parse_options(option_values)
    if decks is not None:
        options["decks"] = decks
    if players is not None:
        options["players"] = players
    check_ruleset(ruleset, options)
    rules = get_ruleset(ruleset, **options)
    show_bar = sys.stderr.isatty() if progress is None else progress
    with click.progressbar(length=matches, label="matches", file=sys.stderr,
                           hidden=not show_bar) as bar:
        events = run_simulation(rules, matches=matches, seed=seed, hands=hands,
                                progress=bar.update)
        if inject > 0:
            label_path = labels or output.with_name(output.name.split(".")[0] + ".labels.jsonl")
            events, found = inject_violations(events, rate=inject, seed=seed, rules=rules)
            count = files.dump(events, output)
            files.jsonl.write_objects(found, label_path)
            click.echo(f"{output}: {count} events; {label_path}: labels", err=True)
        else:
            count = files.dump(events, output)
            click.echo(f"{output}: {count} events", err=True)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(), required=True,
              help="report.html for one self-contained file, or DIR/ for a page per hand "
                   "plus index.html.")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True,
              help="Language of the labels.")
@click.option("--anonymize", is_flag=True, help="Replace player names and ids by Player 1, 2...")
@click.option("--title", help="The report's title.")
@click.option("--ruleset", callback=_ruleset_name,
              help="Use this ruleset instead of the one each header names.")
@click.option("--max-hands", type=click.IntRange(min=0),
              help="Write pages for at most this many hands (the dashboard counts them all).")
@selection_options
@click.option("--violations-only", is_flag=True, help="Only hands with violations.")
@review_options
@jobs_option
@progress_option
@handle_errors
def report(paths: tuple[Path, ...], output: str, lang: str, anonymize: bool,
           title: str | None, ruleset: str | None, max_hands: int | None,
           matches: tuple[str, ...], hand_range: tuple[int, int] | None, player: str | None,
           violations_only: bool, review: bool, review_samples: int, jobs: int,
           progress: bool | None) -> None:
    """Write an HTML review report: a dashboard over all hands and a page per hand.

    Each hand has a viewer that steps through it trick by trick and play by play (buttons and
    arrow keys; the URL keeps the place), showing every seat's holding in trump order as it
    stands, the current trick, the kitty and the points so far, with violations and failed
    throws marked where they happened, and a one-seat view; then the trick table and the
    defenders' points against the level thresholds. One file draws each hand only when it is
    opened or scrolled into view. Works offline; every string escaped. --match, --hand,
    --player and --violations-only choose the hands (the dashboard covers those chosen; every
    hand is still replayed, since a hand's verdict depends on the hands before it).
    """
    from analyze.metrics import collect
    from analyze.report import is_directory_output, render

    directory = is_directory_output(output)
    if not directory and not Path(output).suffix and not os.path.lexists(output):
        raise click.UsageError(
            f"-o {output}: say which is meant: {output}/ for a folder with a page per hand, or "
            f"{output}.html for one file")
    prepare_output(output, paths, "report", directory=directory)  # before the work
    issues: list[RecordError] = []
    chosen = _hand_filter(matches, hand_range, player, violations_only)
    read = [0]
    with _progress(_show_progress(progress), "replaying", list(paths)) as tick:

        def counted(n: int) -> None:
            read[0] += n
            tick(n)

        collector = collect(list(paths), anonymize=anonymize, keep_pages=True, issues=issues,
                            ruleset=ruleset, with_plays=False, jobs=_cores(jobs),
                            progress=counted, keep=chosen, focus_player=player,
                            players_by_id=True, max_pages=max_hands, summarize=True)
    if collector.hand_count == 0:
        report_issues(issues)
        if chosen and getattr(chosen, "violations_only", False) and read[0]:
            click.echo(f"no hand with violations among the {read[0]} hand(s) chosen; the "
                       "report has none to show", err=True)
        else:
            nothing_matched(chosen, read[0])
    reviews = None
    if review:  # the hands the report shows, each decision valued (docs/review.md)
        from analyze.handview import page_slug
        from replay.review import review_hands

        shown = {slug for slug, _, _ in collector.pages[:max_hands]}
        with _progress(_show_progress(progress), "reviewing", list(paths),
                       total=len(shown)) as tick:  # counts only the hands reviewed
            reviews = {}

            def keep(hand: Any) -> bool:
                return page_slug(hand.match, hand.number) in shown

            for r in review_hands(files.read_hands(list(paths)), ruleset=ruleset,
                                  budget=review_budget(review_samples),
                                  jobs=_cores(jobs), keep=keep):
                tick(1)
                reviews[page_slug(r.match, r.hand)] = r
    written = render(collector, output, lang=lang, title=title, max_hand_pages=max_hands,
                     reviews=reviews)
    click.echo(f"{written[0]}: {collector.hand_count} hand(s)"
               + (f", {len(written) - 1} hand page(s)" if len(written) > 1 else ""), err=True)
    if report_issues(issues):
        sys.exit(EXIT_INPUT)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Directory for the tables.")
@click.option("--csv", "as_csv", is_flag=True, help="Write CSV instead of Parquet.")
@click.option("--partitioned", is_flag=True,
              help="Each table a directory of Parquet files partitioned by ruleset and a "
                   "match-id bucket (hive style; what --engine ray writes).")
@click.option("--anonymize", is_flag=True, help="Replace player names and ids by Player 1, 2...")
@click.option("--ruleset", callback=_ruleset_name,
              help="Use this ruleset instead of the one each header names.")
@selection_options
@review_options
@jobs_option
@progress_option
@engine_options
@handle_errors
def export(paths: tuple[Path, ...], output: Path, as_csv: bool, partitioned: bool,
           anonymize: bool, ruleset: str | None, matches: tuple[str, ...],
           hand_range: tuple[int, int] | None, player: str | None, review: bool,
           review_samples: int, jobs: int, progress: bool | None, engine: str,
           ray_address: str | None) -> None:
    """Write analysis-ready tables: matches, hands, tricks, plays, violations, holdings.

    Parquet by default (CSV with --csv, list columns joined by spaces); schemas in
    docs/export.md. --review adds a decisions table (every decision's value, best
    alternative, swing and mark: docs/review.md) and, in 标分, a bids table.
    """
    from analyze.export import collector_slices, write_tables
    from analyze.metrics import playable_reports
    prepare_output(output, paths, "export", directory=True)  # before the work, not after
    issues: list[RecordError] = []
    chosen = _hand_filter(matches, hand_range, player, False)
    if engine == "ray":
        _need_ray()
        if chosen:
            raise click.UsageError("--match, --hand and --player run on the local engine; "
                                   "on Ray, shengji select the hands first")
        if review:
            raise click.UsageError("--review runs on the local engine (-j N), not on Ray")
        if as_csv or anonymize:
            raise click.UsageError("--engine ray writes Parquet tables, not anonymized "
                                   "(player aliases need the whole input in one place)")
        _export_on_ray(paths, output, ruleset, max(_cores(jobs), 2), ray_address, issues)
        return
    if partitioned and as_csv:
        raise click.UsageError("--partitioned writes Parquet")
    with _progress(_show_progress(progress), "replaying, then reviewing" if review
                   else "replaying", list(paths), passes=2 if review else 1) as tick:
        pieces: Iterable[dict[str, Any]]
        if _cores(jobs) > 1:  # rows made in the workers, labels given here in input order
            from analyze.export import table_slices_in_processes

            pieces = table_slices_in_processes(list(paths), _cores(jobs), ruleset=ruleset,
                                               issues=issues, progress=tick,
                                               anonymize=anonymize, keep=chosen)
        else:
            reports = playable_reports(list(paths), issues=issues, ruleset=ruleset,
                                       jobs=_cores(jobs), progress=tick)
            if chosen:
                reports = (r for r in reports if chosen(r))
            pieces = collector_slices(reports, anonymize=anonymize)  # flat memory
        if review:  # then the decisions table, hand by hand (docs/review.md)
            import itertools

            from analyze.decisions import decision_slices
            from replay.review import review_hands

            def reviews() -> Iterator[Any]:  # the bar's second pass: a hand at a time
                for r in review_hands(files.read_hands(list(paths)), ruleset=ruleset,
                                      budget=review_budget(review_samples),
                                      jobs=_cores(jobs), keep=_selection(
                                          matches, hand_range, player) or None):
                    tick(1)
                    yield r

            pieces = itertools.chain(pieces, decision_slices(reviews()))
        if partitioned:
            import pyarrow as pa

            from analyze.distributed import write_partitioned

            written = write_partitioned(
                ({name: frame if isinstance(frame, pa.Table) else frame.to_arrow()
                  for name, frame in piece.items()} for piece in pieces),
                Path(os.path.abspath(output)))
        else:
            written = write_tables(pieces, output, csv=as_csv)
    for path, rows in written:
        click.echo(f"{path}: {rows} rows", err=True)
    if report_issues(issues):
        sys.exit(EXIT_INPUT)


def _export_on_ray(paths: tuple[Path, ...], output: Path, ruleset: str | None, jobs: int,
                   address: str | None, issues: list[RecordError]) -> None:
    """``export --engine ray``: rows computed on the workers, written partitioned."""
    import replay
    from analyze.distributed import replay_on_ray, write_partitioned

    problems: list[tuple[str, str]] = []

    def pieces() -> Iterator[dict[str, Any]]:
        import polars as pl

        from analyze.export import first_match_rows

        listed: set[str] = set()
        for reports, chunk_tables in replay_on_ray(list(paths), address=address, jobs=jobs,
                                                   ruleset=ruleset, tables=True, issues=issues):
            for report in reports:
                problems.extend(("error", str(i)) for i in report.record_issues
                                if isinstance(i, replay.RulesetProblem))
            frames = {name: pl.from_arrow(t) for name, t in (chunk_tables or {}).items()}
            yield {name: f.to_arrow() for name, f in first_match_rows(frames, listed).items()}

    for path, rows in write_partitioned(pieces(), Path(os.path.abspath(output))):
        click.echo(f"{path}: {rows} rows (partitioned by ruleset and bucket)", err=True)
    found = _unique(problems + [(_issue_kind(i), str(i)) for i in issues])
    for kind, message in found:
        click.echo(f"{kind}: {visible(message)}", err=True)
    if any(kind == "error" for kind, _ in found):
        sys.exit(EXIT_INPUT)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@selection_options
@click.option("--samples", type=click.IntRange(min=1, max=MAX_SAMPLES), default=8,
              show_default=True,
              help=f"Budget: random deals of the unseen cards per decision (at most "
                   f"{MAX_SAMPLES}).")
@click.option("--confirm", type=click.IntRange(min=0, max=MAX_CONFIRM), default=24,
              show_default=True,
              help="Budget: fresh deals to confirm a suspected mistake (0: none).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="The same seed, the same review.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text for people; json: one object per hand.")
@click.option("--ruleset", callback=_ruleset_name,
              help="Use this ruleset instead of the one each header names.")
@jobs_option
@progress_option
@handle_errors
def review(paths: tuple[Path, ...], matches: tuple[str, ...],
           hand_range: tuple[int, int] | None, player: str | None, samples: int, confirm: int,
           seed: int, fmt: str,
           ruleset: str | None, jobs: int, progress: bool | None) -> None:
    """Review every decision: the point swing of each play against the legal alternatives.

    Each lead or follow with a choice, and the kitty burial, is valued with its alternatives
    as the defenders' expected final points (kitty award included) under good play from
    there: random deals of the cards the player could not see, played out by a
    deterministic rollout player, or an exact search once two cards a seat remain. The swing
    is what the play gave away against the best alternative, from the player's side; 10, 20
    and 40 points (in a two-deck game, scaled by the deck's points), one standard error clear
    of the estimate's noise, mark an inaccuracy, a mistake and a blunder. Accuracy per player
    is 100 x mean(1 - min(swing, 40) / 40). An estimate, not a verdict: see docs/review.md.
    Reviewing stops at a hand's first violation. In 标分 each bid and pass is valued too, by
    the seat's expected settlement (档).
    """
    from replay.review import Budget, review_hands

    issues: list[RecordError] = []
    keep = _selection(matches, hand_range, player)
    show_bar = _show_progress(progress)
    # the bar counts only the hands to be reviewed (reading them all first costs little
    # against seconds of review a hand)
    total = sum(1 for h in files.read_hands(list(paths)) if keep(h)) if show_bar else None

    budget = Budget(samples=samples, confirm=confirm, seed=seed)
    overall: dict[str, list[float]] = {}  # player -> decisions, score, marks (see _tally_review)
    in_match: dict[str, list[float]] = {}
    current: str | None = None
    read = [0]
    with _progress(show_bar, "reviewing", list(paths), total=total) as tick:
        hands = files.read_hands(list(paths), issues=issues)
        names: dict[tuple[str, int], list[str]] = {}

        def remember(hand: Any) -> bool:
            read[0] += 1
            chosen = keep(hand)
            if chosen and hand.header is not None:
                names[(hand.match, hand.number)] = [
                    next((i.name or i.player for i in hand.header.seats if i.seat == s), None)
                    or f"seat {s}" for s in range(hand.header.players)]
            return chosen

        reviewed = 0
        for r in review_hands(hands, budget=budget, ruleset=ruleset, jobs=_cores(jobs),
                              keep=remember):
            tick(1)
            reviewed += 1
            if r.match != current:
                if fmt == "text" and current is not None and in_match:
                    _print_accuracy(f"match {visible(current)}: accuracy per player", in_match)
                current, in_match = r.match, {}
            seat_names = names.pop((r.match, r.hand), [])
            for d in r.decisions:
                who = seat_names[d.seat] if d.seat < len(seat_names) else f"seat {d.seat}"
                for table in (overall, in_match):
                    _tally_review(table.setdefault(who, [0, 0.0, 0, 0, 0]), d, r.scale)
            _print_review(r, seat_names, fmt)
    if fmt == "text" and in_match:
        _print_accuracy(f"match {visible(current or '')}: accuracy per player", in_match)
    if fmt == "text" and overall:
        _print_accuracy("accuracy per player over every hand (an estimate; docs/review.md)",
                        overall)
    if report_issues(issues):
        sys.exit(EXIT_INPUT)
    if reviewed == 0:
        nothing_matched(keep, read[0])


def _tally_review(row: list[Any], decision: Any, scale: float) -> None:
    """Add a decision to a player's [decisions, accuracy sum, inaccuracies, mistakes,
    blunders]; each decision's accuracy on its own game's scale."""
    from replay.review import accuracy

    row[0] += 1
    row[1] += accuracy([decision], scale) or 0.0
    for i, mark in enumerate(("inaccuracy", "mistake", "blunder"), start=2):
        row[i] += decision.mark == mark


def _print_accuracy(title: str, table: dict[str, list[Any]]) -> None:
    click.echo(title + ":")
    for who in sorted(table):
        n, score, inaccuracies, mistakes, blunders = table[who]
        click.echo(f"  {visible(who)}: {score / n:.1f}% over {n} decisions; {inaccuracies} "
                   f"inaccuracies, {mistakes} mistakes, {blunders} blunders")


def _print_review(r: Any, seat_names: list[str], fmt: str) -> None:
    """One hand's review: a JSON object, or lines for people (the marked decisions)."""
    seats = range(len(seat_names))
    if fmt == "json":
        click.echo(json.dumps({
            "match": r.match, "hand": r.hand, "skipped": r.skipped,
            "players": seat_names,
            "accuracy": {str(s): (round(a, 1) if (a := r.accuracy(s)) is not None else None)
                         for s in seats},
            "decisions": [d.to_dict() for d in r.decisions],
            "bids": [b.to_dict() for b in r.bids]}, ensure_ascii=False))
        return
    head = f"match {visible(r.match)} hand {r.hand}: "
    if r.skipped and not r.decisions:
        click.echo(head + f"not reviewed: {r.skipped}")
        return
    accs = ", ".join(f"{visible(seat_names[s])} {a:.0f}%" for s in seats
                     if (a := r.accuracy(s)) is not None)
    click.echo(head + f"{len(r.decisions)} decisions; accuracy {accs}"
               + (f" ({r.skipped})" if r.skipped else ""))
    for d in r.decisions:
        if d.mark is None and d.unclear is None:
            continue
        who = seat_names[d.seat] if d.seat < len(seat_names) else f"seat {d.seat}"
        if d.mark is None:
            verdict = f"unclear (could be {'an' if d.unclear == 'inaccuracy' else 'a'} {d.unclear})"
        else:
            sure = "exact" if d.exact else f"{100 * (d.confidence or 0):.0f} % sure"
            verdict = f"{d.mark} ({sure}" + (f"; could be a {d.unclear})" if d.unclear else ")")
        click.echo(f"  trick {d.trick}: {visible(who)} ({d.kind}) "
                   f"played {' '.join(d.made)}; better {' '.join(d.best)}: gave away "
                   f"{d.estimate:.0f} ± {d.error:.0f} points — {verdict}")
    for b in r.bids:
        who = seat_names[b.seat] if b.seat < len(seat_names) else f"seat {b.seat}"

        def said(points: int | None) -> str:
            return "pass" if points is None else f"bid {points}"

        verdict = (f"better {said(b.best)}: {b.swing:.1f} 档 — {b.mark}" if b.mark
                   else "no better choice")
        click.echo(f"  auction: {visible(who)} {'passed' if b.bid is None else said(b.bid)}; "
                   f"as declarer it would hold the defenders to about {b.estimate:.0f} "
                   f"(± {b.spread:.0f}); {verdict}")


@cli.command()
@handle_errors
def rules() -> None:
    """List the rulesets with their aliases and options (name, type, default)."""
    from replay.rulesets import all_rulesets

    for cls in all_rulesets():
        aliases = f" (also: {', '.join(cls.aliases)})" if cls.aliases else ""
        click.echo(f"{cls.name}{aliases}: {cls.title} — seed {cls.seed}")
        for opt in cls.options:
            choices = f" one of {list(opt.choices)}" if opt.choices else ""
            click.echo(f"  {opt.name} ({opt.type.__name__}, default {opt.default!r}){choices}: "
                       f"{opt.help}")


def _tally(report: Any, counts: dict[str, int], fmt: str, quiet: bool,
           found: list[tuple[str, str]], chosen: Any = None) -> str | None:
    """Count a hand's report and render it (``None`` when quiet and clean, or not among the
    hands ``chosen``: those are replayed, since a verdict depends on the hands before it,
    but neither counted nor shown); a match that cannot be replayed (bad ruleset settings)
    goes to ``found``."""
    from replay import RulesetProblem
    from replay.report import hand_json, hand_text

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
    return lines, counts, _unique(found)


class _LineKey(msgspec.Struct):
    """What the parent needs of a JSON line to cut a file into batches at hand boundaries."""

    match: str | None = None
    type: str | None = None
    hand: int | None = None


_Lines = list[tuple[int, bytes]]
_CANONICAL = b'{"type":"'
_STARTS = (b'{"type":"hand"', b'{"type":"match"')
_Context = tuple[tuple[str | None, str], Any]  # ((source, match), MatchContext)


def _validate_lines(source: str, lines: _Lines, first: int, ruleset: str | None,
                    options: dict[str, Any], fmt: str, quiet: bool, chosen: Any = None,
                    start: _Context | None = None
                    ) -> tuple[list[str], dict[str, int], list[tuple[str, str]],
                               _Context | None, _Context | None]:
    """A worker: read raw JSON lines (with their line numbers) and validate the hands from
    line ``first`` on. Lines before ``first`` are context sent again from earlier in the file
    (header lines, and the last hands of a match that this batch continues): read and
    replayed, not reported (:func:`replay.parallel.replay_after_warmup`). Returns the output
    lines, counts and problems, and the contexts at the batch's start and end."""
    from gamelog.jsonl import items_of_lines
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
        assembler.feed(items_of_lines(lines, decoder)),
        lambda _i, hand: (hand.first_line or 0) >= first, ruleset, options, start,
        on_report=tally)
    found += [(_issue_kind(i), str(i)) for i in assembler.issues
              if i.line is None or i.line >= first]
    return out, counts, _unique(found), at_start, end


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
            batch: _Lines = []  # the warm-up lines, then the lines to report
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
                    for number, line in files.jsonl.numbered_lines(stream, source):
                        if line.startswith(_CANONICAL) and not line.startswith(_STARTS):
                            # the next event of the hand in progress, as our writer writes it:
                            # no need to decode its key (most lines; the worker checks it)
                            if current is not None and current == skipping:
                                continue
                            if not first:
                                first = number
                            batch.append((number, line))
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
                                if len(batch) >= batch_lines and first:
                                    yield _batch(source, batch, first, headers, matches)
                                    if continuing and starts:  # the match's last hands again
                                        cut = starts[0]
                                        batch = batch[cut:]
                                        starts = deque((i - cut for i in starts),
                                                       maxlen=warm_hands)
                                    else:
                                        batch = []
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


def _interrupt(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def main() -> None:
    """Entry point of the ``shengji`` console command. SIGTERM and SIGHUP end a run as Ctrl-C
    does, so that a killed command removes its own temporaries and ends its workers."""
    import signal

    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None and signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, _interrupt)
    cli(prog_name="shengji")


if __name__ == "__main__":
    main()
