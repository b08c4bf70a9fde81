"""Benchmark the command line's start-up: `refuge --help`, `refuge judge`, `refuge where`, and
`refuge run` of the tiny scenario (three incidents, one day: what a run costs before and around
its flight); and `refuge demo` end to end, as `make demo` runs it once installed (its CPU time
counts the children it draws the map and the PNG in).

Each command runs in a fresh interpreter (the median of `REPEATS` wall-clock times, and of
their CPU times beside: a shared machine inflates the wall, less the CPU), with the load
average printed; ``python -X importtime`` gives the cumulative import time of the CLI, of the
law, of the geographic core and of the simulation (what `refuge run` imports when it runs).
Targets (issue 11): ``--help`` and ``judge`` under 1 s, ``where`` under 2 s on an idle machine;
the tiny run has none of its own (issue 16 asks 1.5 s of the default scenario, flight included);
the demo 4 s (issue 16, `make demo` after install).

Last, `refuge run` of the default scenario is cut into what surrounds the command's work, from
inside the process: the interpreter's start (spawn to its first line), the CLI's import, the
command (its lazy imports, the run, the writing), the exit handlers and the interpreter's exit
(its last handler to the parent seeing it gone), and how much of it the garbage collector
took. Set ``PYTHONPATH`` to another checkout to measure it with this interpreter.

Run: ``.venv/bin/python benchmarks/bench_startup.py``.
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

from _timing import Seconds, command, load, median

DATA = Path(__file__).resolve().parents[1] / "data"
CASE = DATA / "cases" / "001_pushing_roller.yaml"
TINY = DATA / "scenarios" / "tiny.yaml"
DEFAULT = DATA / "scenarios" / "default.yaml"
COMMANDS = {
    "refuge --help": ["--help"],
    "refuge judge CASE": ["judge", str(CASE)],
    "refuge where 35.2 32.2": ["where", "35.2", "32.2"],
    "refuge run tiny.yaml": ["run", str(TINY), "--out", "{tmp}/tiny"],
    "refuge demo": ["demo", "--out", "{tmp}/demo"],
}
TARGETS_S = {
    "refuge --help": 1.0,
    "refuge judge CASE": 1.0,
    "refuge where 35.2 32.2": 2.0,
    "refuge demo": 4.0,
}
MODULES = ("refuge_map.cli", "refuge_map.law.casefiles", "geo", "refuge_map.simulation.model")
REPEATS = 5
#: The console script's process defaults (`refuge_map.console.set_process_defaults`), set
#: where the checkout imported has that module. Whether it has is asked of its files, not by
#: importing it: an editable install of this checkout lends its modules to an older checkout
#: on ``PYTHONPATH`` that has none.
_DEFAULTS = """
import pathlib, refuge_map
if (pathlib.Path(refuge_map.__file__).parent / "console.py").is_file():
    from refuge_map.console import set_process_defaults
    set_process_defaults()
"""
#: What the `refuge` console script runs (`refuge_map.console.script`: its process's defaults,
#: then the CLI's `script`; `main` in checkouts before it).
_RUN_CLI = f"""{_DEFAULTS}
from refuge_map import cli
getattr(cli, "script", cli.main)()
"""
#: The console script's code (`refuge_map.console.script`: its process's defaults, then the
#: CLI's `script`; `main` in checkouts before it), printing
#: (on stderr, as JSON) the wall-clock times of its first line, of the CLI imported, of the
#: command done (an exit handler registered just before the command: those the command
#: registers, `refuge_map.cli._leave_quickly`'s among them, run before it and count as the
#: command's) and of its last exit handler; and the seconds its garbage collections took
#: (``"collector_s"``, from the CLI's import on).
_PROBED_CLI = (
    """
import atexit, gc, json, sys, time
marks = {"first_line": time.time(), "collector_s": 0.0}
started = []
def _collecting(phase, info):
    if phase == "start":
        started.append(time.perf_counter())
    else:
        marks["collector_s"] += time.perf_counter() - started.pop()
gc.callbacks.append(_collecting)
def _last():
    marks["exit_handlers_done"] = time.time()
    sys.__stderr__.write("PROBE " + json.dumps(marks) + "\\n")
atexit.register(_last)
"""
    + _DEFAULTS
    + """
from refuge_map import cli
marks["imported"] = time.time()
atexit.register(lambda: marks.setdefault("command_done", time.time()))
getattr(cli, "script", cli.main)()
"""
)
#: The parts of a command's process `probed_command` gives, each from the mark before it, and
#: what `main` calls them.
PARTS = {
    "first_line": "interpreter start",
    "imported": "import refuge_map.cli",
    "command_done": "the command",
    "exit_handlers_done": "exit handlers",
    "gone": "interpreter exit",
}


def command_time(args: list[str]) -> Seconds:
    """Median wall-clock and median CPU (user + system) time of ``refuge ARGS`` in a fresh
    interpreter, seconds (CPU time is what a busy machine inflates less); ``{tmp}`` in an
    argument is a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        args = [arg.format(tmp=tmp) for arg in args]
        return median(
            command([sys.executable, "-c", _RUN_CLI, *args], cwd="/")[1] for _ in range(REPEATS)
        )


def probed_command(args: list[str]) -> dict[str, float]:
    """Median seconds of each part of ``refuge ARGS``'s process (`PARTS`: the interpreter's
    start, the CLI's import, the command, the exit handlers, the interpreter's exit), the
    whole (``"total"``) and the garbage collector's share of it (``"collector"``), over
    `REPEATS` fresh interpreters."""
    runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        args = [arg.format(tmp=tmp) for arg in args]
        for _ in range(REPEATS):
            start = time.time()
            done = subprocess.run(
                [sys.executable, "-c", _PROBED_CLI, *args],
                capture_output=True,
                text=True,
                check=True,
                cwd="/",
            )
            marks = {"start": start} | _probe_marks(done.stderr) | {"gone": time.time()}
            parts = {
                part: marks[part] - marks[before] for before, part in pairwise(("start", *PARTS))
            }
            runs.append(parts | {"total": marks["gone"] - start, "collector": marks["collector_s"]})
    return {name: statistics.median(run[name] for run in runs) for name in runs[0]}


def _probe_marks(stderr: str) -> dict[str, float]:
    lines = [line for line in stderr.splitlines() if line.startswith("PROBE ")]
    return dict(json.loads(lines[-1].removeprefix("PROBE ")))


def import_time(module: str) -> float:
    """Cumulative import time of `module` by ``python -X importtime``, seconds."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    )
    pattern = re.compile(rf"\|\s*(\d+)\s*\|\s*{re.escape(module)}$")
    times = [int(m[1]) for line in done.stderr.splitlines() if (m := pattern.search(line))]
    return times[-1] / 1e6


def main() -> None:
    """Print the load, each command's time against its target, and each module's import
    time."""
    print(load())
    for name, args in COMMANDS.items():
        wall, cpu = command_time(args)
        target = TARGETS_S.get(name)
        verdict = "" if target is None else "ok" if wall < target else "OVER"
        against = "" if target is None else f"  (target < {target:g} s: {verdict})"
        print(f"{name:<26} {wall:5.2f} s wall, {cpu:5.2f} s CPU{against}")
    for module in MODULES:
        print(f"import {module:<28} {import_time(module):5.2f} s  (python -X importtime)")
    parts = probed_command(["run", str(DEFAULT), "--out", "{tmp}/default"])
    print(f"refuge run default.yaml: {parts['total']:.2f} s wall (median of {REPEATS}), of which")
    for part, name in PARTS.items():
        print(f"  {name:<24} {parts[part]:6.3f} s")
    print(f"  (the garbage collector   {parts['collector']:6.3f} s of these)")
    print(load())


if __name__ == "__main__":
    main()
