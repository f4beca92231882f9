"""What every command shares: library errors turned into messages (:func:`handle_errors`),
outputs checked before any work, the option decorators (selection, strict, jobs, progress,
review budget, engine), the ruleset and ``-O`` checks, and the progress bar."""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import click

from gamelog import files
from gamelog.errors import GamelogError, RecordError
from gamelog.reader import RecordWarning
from gamelog.safetext import visible

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_VIOLATIONS, EXIT_INPUT = 0, 1, 2
MAX_SAMPLES, MAX_CONFIRM = 256, 1024
"""The review's budget bounds: 32 times the default, about ten minutes a two-deck hand on one
core; past that an estimate gains nothing a user would see (refused, exit 2)."""


def fail(message: str) -> None:
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
            fail(str(exc))
        except KeyboardInterrupt:
            fail("interrupted")
        except (click.ClickException, click.exceptions.Exit, SystemExit):
            raise
        except Exception as exc:  # the last resort: a message, never a traceback
            from replay.rulesets.base import RulesetError

            if isinstance(exc, RulesetError):
                fail(str(exc))
            fail(f"internal error ({type(exc).__name__}: {exc}); please report it with the "
                  "input that caused it")

    return wrapper  # type: ignore[return-value]


def prepare_output(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]],
                   kind: str | None = None, *, directory: bool = False) -> None:
    """Refuse, before any work, an output that is an input or would replace a file (or a
    directory) the toolkit did not write; note temporaries a killed run left beside it."""
    from gamelog.outputs import (  # only commands that write need it (start-up)
        check_replaceable,
        check_replaceable_file,
        refuse_inputs,
        resolve_output,
        stale_temporaries,
    )

    refuse_inputs(output, inputs)
    if directory:
        check_replaceable(resolve_output(output), kind or "export")
    else:
        check_replaceable_file(output, kind)
    for left in stale_temporaries(output):
        click.echo(f"note: {visible(left)} looks like a temporary left by a run that was killed; "
                   "shengji never removes what it did not write this run (remove it yourself)",
                   err=True)


def ruleset_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
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
    from replay.rulesets.base import RulesetError, all_rulesets, ruleset_class

    classes = [ruleset_class(ruleset)] if ruleset is not None else all_rulesets()
    for key, value in options.items():
        having = [c for c in classes if any(o.name == key for o in c.options)]
        if not having:
            import difflib

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


def hand_range(value: str | None) -> tuple[int, int] | None:
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
                        callback=lambda c, p, v: hand_range(v),
                        help="Only these hand numbers within each match: 3, 3-7, 3- or "
                             "-7.")(func)
    return click.option("--match", "matches", multiple=True, metavar="ID",
                        help="Only this match (repeat for several).")(func)


def selection(matches: tuple[str, ...], hands: tuple[int, int] | None,
               player: str | None) -> Any:
    from gamelog.select import Selection

    return Selection(frozenset(matches), hands, player)


def nothing_matched(chosen: Any, read: int) -> None:
    """Exit 2 with a message when a command read no hand, or none that ``chosen`` keeps."""
    if read == 0:
        fail("no hand found in the input (no game record was read)")
    if chosen:
        fail(f"no hand matched {chosen.describe()} (of {read} hand(s) read)")


def hand_filter(matches: tuple[str, ...], hands: tuple[int, int] | None, player: str | None,
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


def ascii_option(func: F) -> F:
    """``--ascii``: cards printed as the record's tokens (AS TH BJ) instead of ♠A ♥10."""
    return click.option("--ascii", "ascii_cards", is_flag=True,
                        help="Cards as AS TH BJ instead of ♠A ♥10.")(func)


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


def review_budget(level: str, samples: int | None) -> Any:
    """The budget of ``--review`` (report, export): the named level's, or ``samples`` deals a
    decision and three times as many a round of the race that settles the decision."""
    from replay.review import budget_at

    return budget_at(level, samples=samples,
                     confirm=3 * samples if samples is not None else None)


def review_options(func: F) -> F:
    func = click.option("--review-samples", type=click.IntRange(min=1, max=MAX_SAMPLES),
                        help="With --review: random deals per decision (three times as "
                             "many a round of the race; default: the level's).")(func)
    func = click.option("--review-level", type=click.Choice(["quick", "standard", "thorough"]),
                        default="standard", show_default=True,
                        help="With --review: the budget by name (as shengji review "
                             "--level).")(func)
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


def need_ray() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        raise click.UsageError("--engine ray needs Ray: pip install 'shengji-toolkit[ray]'") \
            from None


def cores(jobs: int) -> int:
    cores = os.cpu_count() or 1
    return cores if jobs == 0 else min(jobs, cores)


def show_progress(progress: bool | None) -> bool:
    return sys.stderr.isatty() if progress is None else progress


class Progress:
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


def issue_kind(issue: RecordError) -> str:
    return "warning" if isinstance(issue, RecordWarning) else "error"


def report_issues(issues: Iterable[RecordError], quiet: bool = False) -> int:
    """Print record problems to stderr, one per line; return how many were errors."""
    errors = 0
    for issue in issues:
        kind = issue_kind(issue)
        errors += kind == "error"
        if not quiet:
            click.echo(f"{kind}: {visible(str(issue))}", err=True)
    return errors


def parse_options(values: tuple[str, ...]) -> dict[str, Any]:
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


def unique_problems(found: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Problems in order, each once (a match's bad header is met by each of its hands)."""
    return list(dict.fromkeys(found))
