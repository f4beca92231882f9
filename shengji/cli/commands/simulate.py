"""``shengji simulate`` (whole matches by the simulator's agents) and ``shengji rules`` (the
rulesets and their options)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gamelog import files
from shengji.cli.common import (
    check_ruleset,
    cores,
    handle_errors,
    jobs_option,
    parse_options,
    prepare_output,
    prepare_record_output,
    progress_option,
    ruleset_name,
    show_progress,
)


@click.command()
@click.option("--ruleset", default="tractor", show_default=True, callback=ruleset_name,
              help="The ruleset to play (shengji rules lists them).")
@click.option("--decks", type=int, help="Decks (default: the ruleset's).")
@click.option("--players", type=int, help="Players (default: the ruleset's).")
@click.option("-O", "--option", "option_values", multiple=True, metavar="NAME=VALUE",
              help="Another ruleset option (repeatable).")
@click.option("--matches", type=int, default=1, show_default=True, help="Matches to play.")
@click.option("--hands", type=int, help="Hands per match (default: until a team passes A).")
@click.option("--seed", type=int, default=1, show_default=True, help="Random seed.")
@click.option("--agent", type=click.Choice(["lookahead", "heuristic"]), default="lookahead",
              show_default=True,
              help="Who plays: the heuristic agent, its plays checked on sampled deals and "
                   "looking ahead in the last eight tricks (stronger, about 1 s a hand), or the "
                   "heuristic agent alone (fast, for large data sets).")
@click.option("--inject", type=float, default=0.0, show_default=True,
              help="Fraction of hands given one labelled violation (see --labels).")
@click.option("--labels", type=click.Path(path_type=Path),
              help="Where to write the injected violations' labels (JSONL; default: OUTPUT "
                   "with .labels.jsonl).")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Output file (.jsonl, .jsonl.gz or .parquet).")
@jobs_option
@progress_option
@handle_errors
def simulate(ruleset: str, decks: int | None, players: int | None,
             option_values: tuple[str, ...], matches: int, hands: int | None, seed: int,
             agent: str, inject: float, labels: Path | None, output: Path, jobs: int,
             progress: bool | None) -> None:
    """Play whole matches with the simulator's agents and write them as a game record.

    Shuffles and deals in draw order, declares during the deal, buries the kitty, plays every
    trick (throws included, some failing on purpose), scores, advances levels and passes the
    deal. Deterministic for a seed. With --inject, a fraction of hands get one labelled rule
    violation each, for measuring the validator. With -j, the matches are played on
    several cores: the same games.
    """
    prepare_record_output(output, [])
    if inject > 0 and labels is not None:
        prepare_output(labels, [], "labels")
    from replay import get_ruleset
    from replay.inject import inject_violations
    from replay.simulate import AGENTS
    from replay.simulate import simulate as run_simulation

    options = parse_options(option_values)
    if decks is not None:
        options["decks"] = decks
    if players is not None:
        options["players"] = players
    check_ruleset(ruleset, options)
    rules = get_ruleset(ruleset, **options)
    show_bar = show_progress(progress)
    with click.progressbar(length=matches, label="matches", file=sys.stderr,
                           hidden=not show_bar) as bar:
        events = run_simulation(rules, matches=matches, seed=seed, hands=hands,
                                agents=AGENTS[agent], progress=bar.update,
                                jobs=cores(jobs))
        if inject > 0:
            label_path = labels or output.with_name(output.name.split(".")[0] + ".labels.jsonl")
            events, found = inject_violations(events, rate=inject, seed=seed, rules=rules)
            count = files.dump(events, output)
            files.jsonl.write_objects(found, label_path)
            click.echo(f"{output}: {count} events; {label_path}: labels", err=True)
        else:
            count = files.dump(events, output)
            click.echo(f"{output}: {count} events", err=True)


@click.command()
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
