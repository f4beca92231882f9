"""The ``shengji`` command line: a thin click layer over gamelog, replay and analyze.

One module per family of commands in :mod:`shengji.cli.commands` (``records``: convert,
import, schema, show, select; ``validate``; ``simulate``: simulate, rules; ``report``: report,
export; ``review``), each calling the library and nothing else; what they share
(:mod:`shengji.cli.common`: ``handle_errors``, output checks, option decorators, the
progress bar) turns library errors into a one-line message on stderr and a conventional exit
code the same way everywhere: 0 ok, 1 violations found (validate), 2 usage or input errors.
Nothing imports this package. A new command goes in a module of ``commands`` and is named
in :data:`COMMANDS` below: a command's module is imported when the command runs (or help lists
it), so that ``validate`` starts without the others' imports.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

COMMANDS: dict[str, tuple[str, str]] = {
    "convert": ("records", "convert"), "import": ("records", "import_"),
    "schema": ("records", "schema"), "show": ("records", "show"),
    "select": ("records", "select"), "validate": ("validate", "validate"),
    "simulate": ("simulate", "simulate"), "rules": ("simulate", "rules"),
    "report": ("report", "report"), "export": ("report", "export"),
    "review": ("review", "review"),
}
"""Each command's name -> its module in :mod:`shengji.cli.commands` and the function there."""


class _Commands(click.Group):
    """A group whose commands are imported when first asked for (click's lazy loading)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = self.commands.get(cmd_name)
        if found is None and cmd_name in COMMANDS:
            module, name = COMMANDS[cmd_name]
            found = getattr(importlib.import_module(f"shengji.cli.commands.{module}"), name)
            self.add_command(found, cmd_name)
        return found


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    import gamelog
    import replay
    from replay._native import greedy_core

    engine = "compiled" if replay.NATIVE else "Python (not compiled)"
    player = "C" if greedy_core() is not None else "Python"
    click.echo(f"shengji, version {version('shengji-toolkit')} (record format "
               f"{gamelog.FORMAT_VERSION}; replay engine: {engine}; review's rollout player: "
               f"{player})")
    ctx.exit()


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Show the version (and whether the engine is compiled).")
def cli() -> None:
    """Validate, review and convert recorded games of 升级 / 拖拉机 (Shengji)."""


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
