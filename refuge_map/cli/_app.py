"""The typer application every command module registers its commands on."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="refuge",
    help="The six cities of refuge: asylum zones, roads, the law of exile and simulations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
