"""What the commands print: rich on a terminal, whole unwrapped lines for pipes, JSON on demand."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.console import Console

from refuge_map.limits import OVERRIDE

#: The option that lifts the bounds of `refuge_map.limits` (run, sweep, coverage, map).
NoLimitsOption = Annotated[
    bool,
    typer.Option(OVERRIDE, help="Run work larger than the documented bounds (refuge_map.limits)."),
]

#: The width tables and lines may take when the output is not a terminal: wide enough that
#: nothing a command prints is ever wrapped, whatever the terminal, path or COLUMNS.
UNWRAPPED_WIDTH = 10_000


def console(*, stderr: bool = False) -> Console:
    """A console on stdout (or stderr) that wraps lines only on a terminal.

    Piped or redirected, every line comes out whole (``refuge ... | grep`` sees what a
    terminal shows), whatever the path lengths or ``COLUMNS``.
    """
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty():
        return Console(stderr=stderr)
    return Console(stderr=stderr, soft_wrap=True, width=UNWRAPPED_WIDTH)


def print_json(data: Any) -> None:
    """Print `data` as a stable, indented JSON document on stdout."""
    print(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False))
