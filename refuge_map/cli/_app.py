"""The typer application every command module registers its commands on.

Command modules import only what `--help` needs; each command imports its heavy modules (the
geographic stack, the simulation) when it runs.
"""

from __future__ import annotations

import gc
import inspect
from typing import Annotated

import typer

from refuge_map import __version__

#: Whether this process is the `refuge` console script's own (set by `refuge_map.cli.script`).
own_process = False

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


def hold_collections() -> None:
    """Called by a long command before it imports its modules: in the console script's own
    process, no collection until `freeze_loaded` (which starts them again).

    Importing a run's modules (1,800 of them) made the collector run 400 times, three of them
    full collections over a heap that grew to some 300,000 objects: 0.15-0.3 s of the import,
    to free nearly nothing (modules, classes and functions live until the exit). Reference
    counting frees what it always frees meanwhile.
    """
    if own_process:
        gc.disable()


def freeze_loaded() -> None:
    """Called by a long command once its modules are imported: in the console script's own
    process, move every object alive now to the collector's permanent generation
    (`gc.freeze`).

    Those objects (the modules, classes and tables of pandas, shapely, pydantic and the
    package: over a hundred thousand) live until the exit anyway, yet every full collection
    of the command's work scanned them again: a default `refuge run` spent 0.2-0.4 s in four
    full collections, where now three take 0.06-0.08 s. Reference counting still frees them;
    only a reference cycle among them that turns to garbage later would stay. A caller of
    `refuge_map.cli.main` in a process that goes on (a test, a notebook) keeps its
    collections as they are. Collections held by `hold_collections` start again.
    """
    if own_process:
        gc.freeze()
        gc.enable()


def one_line_summaries(group: typer.Typer) -> None:
    """Give each command of `group` and its subgroups, where it has none, a short help: the
    first paragraph of its docstring with the docstring's line breaks made spaces.

    In typer's rich help (0.29) the Commands panel keeps a docstring's single line breaks, so
    `refuge --help` broke each summary where its source lines end (typer pull request 1844);
    with the breaks gone, rich wraps the summary to the panel's width.
    """
    for command in group.registered_commands:
        if command.short_help is None:
            text = command.help or inspect.getdoc(command.callback) or ""
            command.short_help = " ".join(text.partition("\n\n")[0].split())
    for subgroup in group.registered_groups:
        if subgroup.typer_instance is not None:
            one_line_summaries(subgroup.typer_instance)
