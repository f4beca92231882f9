"""``shengji review``: every decision of the chosen hands valued against its alternatives,
as text or JSON, with each seat's accuracy."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from gamelog import files
from gamelog.errors import RecordError
from gamelog.safetext import visible
from shengji.cli.common import (
    EXIT_INPUT,
    MAX_CONFIRM,
    MAX_SAMPLES,
    Progress,
    ascii_option,
    cores,
    engine_options,
    handle_errors,
    jobs_option,
    need_ray,
    nothing_matched,
    progress_option,
    report_issues,
    ruleset_name,
    selection,
    selection_options,
    show_progress,
    unique_problems,
)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@selection_options
@click.option("--level", type=click.Choice(["quick", "standard", "thorough"]),
              default="standard", show_default=True,
              help="Budget by name: quick (3 deals a decision, 9 a race round; for large "
                   "collections, about a tenth of standard's time), standard (32 and 96; "
                   "from five cards a seat, six at one deck, each playout searched after "
                   "one trick), thorough (128 and 384, and that search in every pack).")
@click.option("--samples", type=click.IntRange(min=1, max=MAX_SAMPLES),
              help=f"Budget: random deals of the unseen cards per decision (at most "
                   f"{MAX_SAMPLES}; default: the level's).")
@click.option("--confirm", type=click.IntRange(min=0, max=MAX_CONFIRM),
              help="Budget: fresh deals a round of the race between the best alternatives "
                   "and the play made (up to 25 rounds, until resolved; 0: no race; "
                   "default: the level's).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="The same seed, the same review.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text for people; json: one object per hand.")
@click.option("--ruleset", callback=ruleset_name,
              help="Use this ruleset instead of the one each header names.")
@ascii_option
@jobs_option
@progress_option
@engine_options
@handle_errors
def review(paths: tuple[Path, ...], matches: tuple[str, ...],
           hand_range: tuple[int, int] | None, player: str | None, level: str,
           samples: int | None, confirm: int | None,
           seed: int, fmt: str, ruleset: str | None, ascii_cards: bool, jobs: int,
           progress: bool | None, engine: str, ray_address: str | None) -> None:
    """Review every decision: the point swing of each play against the legal alternatives.

    Each lead or follow with a choice, and the kitty burial, is valued with its alternatives
    as the defenders' expected final points (kitty award included) under good play from
    there: random deals of the cards the player could not see, played out by a
    deterministic rollout player (the last two tricks searched exactly), or an exact search
    once four cards a seat remain. The swing
    is what the play gave away against the best alternative, from the player's side; 4.5, 22
    and 43 points (in a two-deck game, scaled by the deck's points), one standard error clear
    of the estimate's noise, mark an inaccuracy, a mistake and a blunder. Accuracy per player
    is 100 x mean(1 - min(swing, 43) / 43). An estimate, not a verdict: see docs/review.md.
    Reviewing stops at a hand's first violation. In 标分 each bid and pass is valued too, by
    the seat's expected settlement (档); elsewhere each trump declaration, by the levels its
    team gains.
    """
    from replay.review import budget_at

    issues: list[RecordError] = []
    keep = selection(matches, hand_range, player)
    if engine == "ray":
        need_ray()
    show_bar = show_progress(progress)
    # the bar counts only the hands to be reviewed (reading them all first costs little
    # against seconds of review a hand; on Ray the driver does not read the records)
    total = sum(1 for h in files.read_hands(list(paths)) if keep(h)) \
        if show_bar and engine != "ray" else None

    budget = budget_at(level, samples=samples, confirm=confirm, seed=seed)
    from replay.marks import AccuracyTally

    overall: dict[str, AccuracyTally] = {}  # player -> its decisions so far
    in_match: dict[str, AccuracyTally] = {}
    current: str | None = None
    read = [0]
    found: list[tuple[str, str]] = []
    with Progress(show_bar, "reviewing", list(paths), total=total) as tick:
        reviewed = 0
        for r, names in _reviews(paths, keep, budget, ruleset, jobs, engine, ray_address,
                                      issues, found, read):
            tick(1)
            reviewed += 1
            if r.match != current:
                if fmt == "text" and current is not None and in_match:
                    _print_accuracy(f"match {visible(current)}: accuracy per player", in_match)
                current, in_match = r.match, {}
            for d in r.decisions:
                who = names[d.seat] if d.seat < len(names) else f"seat {d.seat}"
                for table in (overall, in_match):
                    table.setdefault(who, AccuracyTally()).add(d, r.scale)
            _print_review(r, names, fmt, "ascii" if ascii_cards else "symbol")
    if fmt == "text" and in_match:
        _print_accuracy(f"match {visible(current or '')}: accuracy per player", in_match)
    if fmt == "text" and overall:
        _print_accuracy("accuracy per player over every hand (an estimate; docs/review.md)",
                        overall)
    errors = report_issues(issues)
    for kind, message in unique_problems(found):  # the reader's, from the Ray workers
        click.echo(f"{kind}: {visible(message)}", err=True)
        errors += kind == "error"
    if errors:
        sys.exit(EXIT_INPUT)
    if reviewed == 0:
        nothing_matched(keep, read[0])


def seat_names(hand: Any) -> list[str]:
    """The names a review prints for a hand's seats (a name, else the player id, else
    ``seat N``)."""
    if hand.header is None:
        return []
    return [next((i.name or i.player for i in hand.header.seats if i.seat == s), None)
            or f"seat {s}" for s in range(hand.header.players)]


def _reviews(paths: tuple[Path, ...], keep: Any, budget: Any, ruleset: str | None, jobs: int,
             engine: str, address: str | None, issues: list[RecordError],
             found: list[tuple[str, str]], read: list[int]) -> Iterator[tuple[Any, list[str]]]:
    """Each chosen hand's review with its seats' names, in input order: on this machine
    (``-j``) or on Ray (the workers read the records themselves)."""
    if engine == "ray":
        from analyze.distributed import review_on_ray

        for reviews, problems, hands_read in review_on_ray(
                list(paths), budget=budget, keep=keep or None, describe=seat_names,
                address=address, jobs=max(cores(jobs), 2), ruleset=ruleset):
            found.extend(problems)
            read[0] += hands_read
            yield from reviews
        return
    from replay.review import review_hands

    names: dict[tuple[str, int], list[str]] = {}

    def remember(hand: Any) -> bool:
        read[0] += 1
        chosen = keep(hand)
        if chosen:
            names[(hand.match, hand.number)] = seat_names(hand)
        return chosen

    for r in review_hands(files.read_hands(list(paths), issues=issues), budget=budget,
                          ruleset=ruleset, jobs=cores(jobs), keep=remember):
        yield r, names.pop((r.match, r.hand), [])


def _print_accuracy(title: str, table: dict[str, Any]) -> None:
    click.echo(title + ":")
    for who in sorted(table):
        t = table[who]
        low, high = t.interval
        counts = ", ".join(_counted(t.marks[mark], mark, plural)
                           for mark, plural in (("inaccuracy", "inaccuracies"),
                                                ("mistake", "mistakes"), ("blunder", "blunders")))
        click.echo(f"  {visible(who)}: {t.accuracy:.1f}% ({low:.1f}-{high:.1f}) over "
                   f"{_counted(t.decisions, 'decision', 'decisions')}; {counts}")


def _counted(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _print_review(r: Any, seat_names: list[str], fmt: str, style: str = "symbol") -> None:
    """One hand's review: a JSON object (cards as the record's tokens), or lines for people
    (the marked decisions; cards in ``style``, as ``shengji show`` prints them)."""
    seats = range(len(seat_names))
    if fmt == "json":
        import json

        click.echo(json.dumps({
            "match": r.match, "hand": r.hand, "skipped": r.skipped,
            "players": seat_names,
            "accuracy": {str(s): (round(a, 1) if (a := r.accuracy(s)) is not None else None)
                         for s in seats},
            "accuracy_interval": {
                str(s): ([round(x, 1) for x in i] if (i := r.accuracy_interval(s)) else None)
                for s in seats},
            "decisions": [d.to_dict() for d in r.decisions],
            "bids": [b.to_dict() for b in r.bids],
            "declarations": [d.to_dict() for d in r.declarations]}, ensure_ascii=False))
        return
    from gamelog.notation import cards_text

    def cards(tokens: list[str]) -> str:
        return cards_text(tokens, style)

    head = f"match {visible(r.match)} hand {r.hand}: "
    if r.skipped and not r.decisions:
        click.echo(head + f"not reviewed: {r.skipped}")
        return
    accs = ", ".join(f"{visible(seat_names[s])} {a:.0f}% ({i[0]:.0f}-{i[1]:.0f})"
                     for s in seats if (a := r.accuracy(s)) is not None
                     and (i := r.accuracy_interval(s)) is not None)
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
                   f"played {cards(d.made)}; better {cards(d.best)}: gave away "
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
    for c in r.declarations:
        if c.mark is None:
            continue
        who = seat_names[c.seat] if c.seat < len(seat_names) else f"seat {c.seat}"
        better = "declaring nothing yet" if c.best is None else "declaring " + cards(c.best)
        did = (f"declared nothing (its last chance: {c.drawn} cards dealt)" if c.made is None
               else f"declared {cards(c.made)} after {c.drawn} cards")
        click.echo(f"  declaration: {visible(who)} {did}; {better} was worth "
                   f"{c.estimate:.2f} ± {c.error:.2f} levels more — {c.mark}")
