"""The `refuge` command line: one module per group of commands, one error policy for all."""

from __future__ import annotations

import atexit
import copy
import gc
import os
import signal
import sys
import threading
from collections.abc import Sequence
from contextlib import suppress
from functools import cache
from typing import NoReturn

import typer

from refuge_data import InputError
from refuge_map import _aside, _signals

# Each command module registers its commands on `app` when imported (cheaply: the commands
# import their heavy modules when they run).
from refuge_map.cli import (  # noqa: F401
    _app,
    demo_command,
    explore_command,
    geo_commands,
    law_commands,
    map_commands,
    sim_commands,
    sweep_commands,
)
from refuge_map.cli._app import app, one_line_summaries

__all__ = ["app", "app_for", "main", "script"]

one_line_summaries(app)


def script() -> NoReturn:
    """The `refuge` command of a process of its own: `main` on the command line's arguments,
    then out of the interpreter at once (`_leave`). The console script (`refuge_map.console`)
    calls it once it has set the process's environment."""
    _app.own_process = True  # its commands may freeze what they load (`_app.freeze_loaded`)
    _aside.watch()  # whether a core is spare for its children: idle while it loads
    _signals.stop_on_signals()  # Ctrl-C and SIGTERM unwind: no child, no temporary file left
    try:
        main()
    except SystemExit as stop:
        _leave(stop)
    raise AssertionError("main always exits")  # pragma: no cover


def main(argv: Sequence[str] | None = None) -> None:
    """Run the `refuge` command; bad input prints one line on stderr and exits with code 2.

    Bad input is an `InputError` (`geo.GeoError` or `refuge_map.errors.RefugeError`), or a
    file the system refuses to read or write (permissions, a full disk). A command stopped by a
    signal (`refuge_map._signals.Interrupted`: the console script's Ctrl-C or SIGTERM) says so
    in one line and exits with 128 + the signal's number (130 for Ctrl-C).
    """
    _leave_quickly()
    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        code = typer.main.get_command(app_for(args)).main(
            args=args, prog_name="refuge", standalone_mode=False
        )
    except typer.Exit as stop:
        sys.exit(stop.exit_code)
    except typer.TyperException as usage:  # a missing argument, an unknown option...
        print(f"refuge: error: {usage.format_message()} (see 'refuge --help')", file=sys.stderr)
        sys.exit(usage.exit_code)
    except typer.Abort:
        print("refuge: aborted", file=sys.stderr)
        sys.exit(130)
    except _signals.Interrupted as stop:
        # on a terminal, past the ^C it echoed
        tty = sys.stderr is not None and sys.stderr.isatty()
        fresh = "\n" if stop.signum == signal.SIGINT and tty else ""
        print(f"{fresh}refuge: {stop}", file=sys.stderr)
        sys.exit(stop.exit_code)
    except InputError as bad_input:
        print(f"refuge: error: {bad_input}", file=sys.stderr)
        sys.exit(2)
    except OSError as refused:
        where = f"{refused.filename}: " if refused.filename else ""
        print(f"refuge: error: {where}{refused.strerror or refused}", file=sys.stderr)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


def app_for(args: Sequence[str]) -> typer.Typer:
    """The application `main` builds its click command from for the command line `args`:
    `app` with only the command or group that `args` begin with, where they begin with one,
    else the whole `app` (``--help``, ``--version``, no name, a name that is none). The same
    command, its help, its usage and its errors; building click's commands of them all from
    their signatures cost every command's start 15-25 ms (`typer.main.get_command`, for the
    14 commands and 2 groups).
    """
    name = args[0] if args else ""
    commands = [info for info in app.registered_commands if _name_of(info) == name]
    groups = [info for info in app.registered_groups if info.name == name]
    if not (commands or groups):
        return app
    lean = copy.copy(app)  # its settings, its callback (``--version``)
    lean.registered_commands, lean.registered_groups = commands, groups
    return lean


def _name_of(command: typer.models.CommandInfo) -> str:
    """A command's name on the command line (typer's own: its function's name, dashed, where
    it was given none)."""
    if command.name is not None:
        return command.name
    callback = command.callback
    return typer.main.get_command_name(getattr(callback, "__name__", ""))


def _leave(stop: SystemExit) -> NoReturn:
    """Leave with `stop`'s code once the exit handlers have run and the output is flushed,
    without the interpreter's finalization: tearing down the modules and freeing what a
    command built (pandas, scipy, numba, a network, a run's tables) took 0.05-0.2 s of every
    command, and finalizes nothing a command needs (its files are written and closed).

    Where other threads still run (a sweep's cluster), or the output cannot be flushed (a
    closed pipe), Python's own exit does what it always does.
    """
    code = stop.code
    if threading.active_count() > 1 or not isinstance(code, int | None):
        raise stop
    try:
        _flush()
    except (OSError, ValueError):
        raise stop from None
    atexit._run_exitfuncs()
    with suppress(OSError, ValueError):
        _flush()  # what the exit handlers printed
    os._exit(code or 0)


def _flush() -> None:
    """Flush stdout and stderr; one that is None (its descriptor closed when the interpreter
    started) is skipped, as Python's own exit skips it."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()


@cache
def _leave_quickly() -> None:
    """At the interpreter's exit, once the command is done (its files written, its output
    flushed), freeze what is left rather than collect it: the final collections over the
    hundred thousand objects that pandas, scipy and a network hold took a quarter of a second
    of every command. Python runs no finalizer of what is still alive at exit anyway.

    The console script usually leaves past those collections (`_leave`); this is for where it
    cannot (other threads still run, the output cannot be flushed) and for `main` called in a
    process of one's own."""
    atexit.register(gc.freeze)
