"""The typer application every command module registers its commands on.

Command modules import only what `--help` needs; each command imports its heavy modules (the
geographic stack, the simulation) when it runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from refuge_map import __version__

app = typer.Typer(
    name="refuge",
    help="The six cities of refuge: asylum zones, roads, the law of exile and simulations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _show_version(asked: bool) -> None:
    if asked:
        print(f"refuge-map {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", callback=_show_version, is_eager=True
        ),
    ] = False,
) -> None:
    """The six cities of refuge: asylum zones, roads, the law of exile and simulations."""
