"""``shengji report`` (the HTML dashboard and hand viewer) and ``shengji export`` (the data
set: tables as Parquet or CSV, partitioned or not; locally or on Ray)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import click

from gamelog import files
from gamelog.errors import RecordError
from gamelog.safetext import visible
from shengji.cli.common import (
    EXIT_INPUT,
    Progress,
    cores,
    engine_options,
    hand_filter,
    handle_errors,
    jobs_option,
    need_ray,
    nothing_matched,
    prepare_output,
    progress_option,
    report_issues,
    review_budget,
    review_options,
    ruleset_name,
    selection,
    selection_options,
    show_progress,
    unique_problems,
)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(), required=True,
              help="report.html for one self-contained file, or DIR/ for a page per hand "
                   "plus index.html.")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True,
              help="Language of the labels.")
@click.option("--anonymize", is_flag=True, help="Replace player names and ids by Player 1, 2...")
@click.option("--title", help="The report's title.")
@click.option("--ruleset", callback=ruleset_name,
              help="Use this ruleset instead of the one each header names.")
@click.option("--max-hands", type=click.IntRange(min=0),
              help="Write pages for at most this many hands (the dashboard counts them all).")
@selection_options
@click.option("--violations-only", is_flag=True, help="Only hands with violations.")
@review_options
@jobs_option
@progress_option
@engine_options
@handle_errors
def report(paths: tuple[Path, ...], output: str, lang: str, anonymize: bool,
           title: str | None, ruleset: str | None, max_hands: int | None,
           matches: tuple[str, ...], hand_range: tuple[int, int] | None, player: str | None,
           violations_only: bool, review: bool, review_level: str, review_samples: int | None,
           jobs: int,
           progress: bool | None, engine: str, ray_address: str | None) -> None:
    """Write an HTML review report: a dashboard over all hands and a page per hand.

    Each hand has a viewer that steps through it trick by trick and play by play (buttons and
    arrow keys; the URL keeps the place), showing every seat's holding in trump order as it
    stands, the current trick, the kitty and the points so far, with violations and failed
    throws marked where they happened, and a one-seat view; then the trick table and the
    defenders' points against the level thresholds. One file draws each hand only when it is
    opened or scrolled into view. Works offline; every string escaped. --match, --hand,
    --player and --violations-only choose the hands (the dashboard covers those chosen; every
    hand is still replayed, since a hand's verdict depends on the hands before it).
    With --engine ray, --review runs on a Ray cluster (the report itself is made here).
    """
    from analyze.metrics import collect
    from analyze.report import is_directory_output, render

    directory = is_directory_output(output)
    if not directory and not Path(output).suffix and not os.path.lexists(output):
        raise click.UsageError(
            f"-o {output}: say which is meant: {output}/ for a folder with a page per hand, or "
            f"{output}.html for one file")
    prepare_output(output, paths, "report", directory=directory)  # before the work
    if engine == "ray":
        need_ray()
    issues: list[RecordError] = []
    chosen = hand_filter(matches, hand_range, player, violations_only)
    read = [0]
    with Progress(show_progress(progress), "replaying", list(paths)) as tick:

        def counted(n: int) -> None:
            read[0] += n
            tick(n)

        collector = collect(list(paths), anonymize=anonymize, keep_pages=True, issues=issues,
                            ruleset=ruleset, with_plays=False, jobs=cores(jobs),
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

        shown = {slug for slug, _, _ in collector.pages[:max_hands]}
        with Progress(show_progress(progress), "reviewing", list(paths),
                       total=len(shown)) as tick:  # counts only the hands reviewed
            reviews = {}
            budget = review_budget(review_level, review_samples)
            for r in _reviews_of(paths, Shown(frozenset(shown)), budget,
                                 ruleset, cores(jobs), engine, ray_address):
                tick(1)
                reviews[page_slug(r.match, r.hand)] = r
    written = render(collector, output, lang=lang, title=title, max_hand_pages=max_hands,
                     reviews=reviews)
    click.echo(f"{written[0]}: {collector.hand_count} hand(s)"
               + (f", {len(written) - 1} hand page(s)" if len(written) > 1 else ""), err=True)
    if report_issues(issues):
        sys.exit(EXIT_INPUT)


class Shown:
    """The hands a report shows, by page slug (a picklable choice for the review's workers)."""

    def __init__(self, slugs: frozenset[str]) -> None:
        self.slugs = slugs

    def __call__(self, hand: Any) -> bool:
        from analyze.handview import page_slug

        return page_slug(hand.match, hand.number) in self.slugs


def _reviews_of(paths: tuple[Path, ...], keep: Shown, budget: Any, ruleset: str | None,
                jobs: int, engine: str, address: str | None) -> Iterator[Any]:
    """The reviews of the hands ``keep`` chooses, in input order, here or on Ray."""
    if engine == "ray":
        from analyze.distributed import review_on_ray

        for reviews, _found, _read in review_on_ray(list(paths), budget=budget, keep=keep,
                                                    address=address, jobs=max(jobs, 2),
                                                    ruleset=ruleset):
            yield from (review for review, _ in reviews)
        return
    from replay.review import review_hands

    yield from review_hands(files.read_hands(list(paths)), ruleset=ruleset, budget=budget,
                            jobs=jobs, keep=keep)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Directory for the tables.")
@click.option("--csv", "as_csv", is_flag=True, help="Write CSV instead of Parquet.")
@click.option("--partitioned", is_flag=True,
              help="Each table a directory of Parquet files partitioned by ruleset and a "
                   "match-id bucket (hive style; what --engine ray writes).")
@click.option("--anonymize", is_flag=True, help="Replace player names and ids by Player 1, 2...")
@click.option("--ruleset", callback=ruleset_name,
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
           review_level: str, review_samples: int | None, jobs: int, progress: bool | None,
           engine: str,
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
    chosen = hand_filter(matches, hand_range, player, False)
    if engine == "ray":
        need_ray()
        if chosen:
            raise click.UsageError("--match, --hand and --player run on the local engine; "
                                   "on Ray, shengji select the hands first")
        if as_csv or anonymize:
            raise click.UsageError("--engine ray writes Parquet tables, not anonymized "
                                   "(player aliases need the whole input in one place)")
        _export_on_ray(paths, output, ruleset, max(cores(jobs), 2), ray_address,
                       review_budget(review_level, review_samples) if review else None,
                       show_progress(progress))
        return
    if partitioned and as_csv:
        raise click.UsageError("--partitioned writes Parquet")
    with Progress(show_progress(progress), "replaying, then reviewing" if review
                   else "replaying", list(paths), passes=2 if review else 1) as tick:
        pieces: Iterable[dict[str, Any]]
        if cores(jobs) > 1:  # rows made in the workers, labels given here in input order
            from analyze.export import table_slices_in_processes

            pieces = table_slices_in_processes(list(paths), cores(jobs), ruleset=ruleset,
                                               issues=issues, progress=tick,
                                               anonymize=anonymize, keep=chosen)
        else:
            reports = playable_reports(list(paths), issues=issues, ruleset=ruleset,
                                       jobs=cores(jobs), progress=tick)
            if chosen:
                reports = (r for r in reports if chosen(r))
            pieces = collector_slices(reports, anonymize=anonymize)  # flat memory
        if review:  # then the decisions table, hand by hand (docs/review.md)
            import itertools

            from analyze.decisions import decision_slices
            from replay.review import review_hands

            def reviews() -> Iterator[Any]:  # the bar's second pass: a hand at a time
                for r in review_hands(files.read_hands(list(paths)), ruleset=ruleset,
                                      budget=review_budget(review_level, review_samples),
                                      jobs=cores(jobs), keep=selection(
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
                   address: str | None, review: Any, bar: bool) -> None:
    """``export --engine ray``: the workers read the records and write the tables, partitioned;
    the new export replaces the old one whole once every task has finished."""
    from analyze.distributed import export_on_ray

    with Progress(bar, "replaying, then reviewing" if review else "replaying", list(paths),
                  passes=2 if review else 1) as tick:
        written, found = export_on_ray(list(paths), output, address=address, jobs=jobs,
                                       ruleset=ruleset, review=review, progress=tick)
    for path, rows in written:
        click.echo(f"{path}: {rows} rows (partitioned by ruleset and bucket)", err=True)
    found = unique_problems(found)
    for kind, message in found:
        click.echo(f"{kind}: {visible(message)}", err=True)
    if any(kind == "error" for kind, _ in found):
        sys.exit(EXIT_INPUT)
