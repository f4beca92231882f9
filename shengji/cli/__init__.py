"""The ``shengji`` command line: a thin click layer over gamelog, replay and analyze.

One module per family of commands in :mod:`shengji.cli.commands` (``records``: convert,
import, schema, show, select; ``validate``; ``simulate``: simulate, rules; ``report``: report,
export; ``review``), each calling the library and nothing else; what they share
(:mod:`shengji.cli.common`: ``handle_errors``, output checks, option decorators, the
progress bar) turns library errors into a one-line message on stderr and a conventional exit
code the same way everywhere: 0 ok, 1 violations found (validate), 2 usage or input errors.
Nothing imports this package. A new command goes in a module of ``commands`` and is added
below.
"""

from __future__ import annotations

from typing import Any

import click

from shengji.cli.commands import records, report, review, simulate, validate


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    import gamelog
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


for _command in (records.convert, records.import_, records.schema, records.show, records.select,
                 validate.validate, simulate.simulate, simulate.rules, report.report,
                 report.export, review.review):
    cli.add_command(_command)


def _interrupt(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def main() -> None:
    """Entry point of the ``shengji`` console command. SIGTERM and SIGHUP end a run as Ctrl-C
    does, so that a killed command removes its own temporaries and ends its workers."""
    import gc
    import signal

    # What start-up made (modules, classes, tables) lives as long as the process: frozen, it
    # is never scanned again; and a larger first generation lets the many short-lived
    # containers of a replay die before a collection looks at them (fewer, cheaper passes).
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None and signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, _interrupt)
    cli(prog_name="shengji")


__all__ = ["cli", "main"]
