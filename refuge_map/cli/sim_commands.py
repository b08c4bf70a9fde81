"""Commands of the simulation: `refuge run` and `refuge scenario schema|check`."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from refuge_map.cli._app import app, freeze_loaded, hold_collections
from refuge_map.cli._output import NoLimitsOption, console, print_json
from refuge_map.errors import RefugeError

if TYPE_CHECKING:
    from refuge_map.simulation.scenario import Scenario

#: Told ``(step, n_steps)`` as a run goes (`refuge_map.simulation.engine.Progress`).
ProgressCallback = Callable[[int, int], None]

scenario_app = typer.Typer(help="Scenario files: print their JSON Schema, check one.")
app.add_typer(scenario_app, name="scenario")

#: Show a progress bar only for runs of at least this many agent-steps, on a terminal.
LONG_RUN_AGENT_STEPS = 2_000_000
#: The progress bar is drawn again at most this often (seconds), as rich's own refresh would.
REDRAW_S = 0.1


@contextmanager
def _progress_bar(scenario: Scenario) -> Iterator[ProgressCallback | None]:
    """A rich progress bar on stderr for long runs on a terminal; None otherwise.

    Drawn from the steps (at most every `REDRAW_S`), not by rich's refresh thread: with
    another thread running, `replicate` forks no child to share the replications with
    (`refuge_map._aside.can_fork`)."""
    from refuge_map.simulation.scenario import run_agent_steps  # loaded by now

    if not sys.stderr.isatty() or run_agent_steps(scenario) < LONG_RUN_AGENT_STEPS:
        yield None
        return
    # imported here, as each command imports its heavy modules (see `_app`): most runs show none
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        TaskProgressColumn(),
        TimeRemainingColumn(),
        console=console(stderr=True),
        transient=True,
        auto_refresh=False,
    ) as bar:
        task = bar.add_task(f"{scenario.name}: steps", total=None)
        drawn = time.monotonic()

        def advance(step: int, n_steps: int) -> None:
            nonlocal drawn
            now = time.monotonic()
            due = now - drawn >= REDRAW_S
            if due:
                drawn = now
            bar.update(task, completed=step, total=n_steps, refresh=due)

        yield advance


@app.command("run")
def run_command(
    scenario_file: Annotated[Path, typer.Argument(help="Scenario file (YAML or JSON).")],
    out: Annotated[Path, typer.Option("--out", help="Folder for the run's files.")],
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", help="Root seed (default: the scenario's): the first replication's."
        ),
    ] = None,
    replications: Annotated[
        int | None,
        typer.Option("--replications", help="Runs (default: the scenario's `replications`)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the run's summary as JSON.")
    ] = False,
    no_limits: NoLimitsOption = False,
) -> None:
    """Simulate flight and pursuit (and the exile) in every replication; write the first run's
    events, trajectories and tables, the summary with each outcome's mean and 95% interval
    across the replications, and one row per replication; print them and the assumptions."""
    hold_collections()
    from geo import GeoError
    from refuge_map._atomic import atomic_dir, check_folder_target
    from refuge_map.limits import check_run
    from refuge_map.simulation import load_scenario, replicate
    from refuge_map.simulation._walk import compiled
    from refuge_map.simulation.io import finish_run, write_run_files
    from refuge_map.simulation.report import report_tables
    from refuge_map.simulation.scenario import MAX_SEED

    scenario = with_replications(load_scenario(scenario_file), replications)
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise RefugeError(f"must be an integer in 0..{MAX_SEED}", source="--seed", value=seed)
    check_folder_target(out)
    if not no_limits:
        check_run(scenario, source=str(scenario_file))
    # numba too, once the input is known good, with the collections held and frozen after
    compiled()
    freeze_loaded()
    with atomic_dir(out) as folder:
        try:
            with _progress_bar(scenario) as progress:
                run = replicate(
                    scenario,
                    seed,
                    progress=progress,
                    # the first run's files written while a child lives the last runs
                    beside=lambda first, shared: write_run_files(
                        first, folder, out, split=False if shared else None
                    ),
                )
        except GeoError as err:
            raise RefugeError(str(err), source=str(scenario_file)) from None
        written = finish_run(run, folder, out)
    if as_json:
        print_json({"summary": run.summary, "files": [str(path) for path in written]})
        return
    shown = console()
    for table in report_tables(run.summary):
        shown.print(table)
    shown.print(f"wrote {len(written)} files to {out}")


def with_replications(scenario: Scenario, replications: int | None) -> Scenario:
    """The scenario with `replications` runs (None: as it is).

    Raises
    ------
    RefugeError
        If `replications` is not a positive integer.
    """
    from refuge_map.simulation.scenario import Scenario

    if replications is None:
        return scenario
    if replications < 1:
        raise RefugeError("must be a positive integer", source="--replications", value=replications)
    return Scenario.model_validate(scenario.model_dump() | {"replications": replications})


@scenario_app.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of scenario files (every field with its unit)."""
    from refuge_map.simulation import scenario_schema

    print(json.dumps(scenario_schema(), indent=2))


@scenario_app.command("check")
def check_command(
    scenario_file: Annotated[Path, typer.Argument(help="Scenario file (YAML or JSON).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the checked scenario.")] = False,
) -> None:
    """Validate a scenario file without running it."""
    from refuge_map.simulation import load_scenario

    scenario = load_scenario(scenario_file)
    if as_json:
        print_json(
            {"ok": True, "file": str(scenario_file), "scenario": scenario.model_dump(mode="json")}
        )
        return
    incidents = (
        f"{scenario.generate.n} generated" if scenario.generate else str(len(scenario.incidents))
    )
    console().print(
        f"ok: {scenario_file}: scenario {scenario.name!r}, {incidents} incidents, "
        f"dt {scenario.dt_s:g} s, horizon {scenario.horizon_h:g} h, "
        f"{scenario.replications} replication(s)"
    )
