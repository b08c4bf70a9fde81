"""Commands at scale: `refuge sweep SWEEP.yaml --out DIR`, `refuge sweep report DIR`,
`refuge coverage [SCENARIO] --out FILE`."""

from __future__ import annotations

import math
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, cast, get_args

import typer
from typer.core import TyperGroup

from refuge_map._signals import Interrupted
from refuge_map.cli._app import app
from refuge_map.cli._output import NoLimitsOption, console, print_json
from refuge_map.errors import RefugeError


class _RunByDefault(TyperGroup):
    """A group whose unknown first word is the sweep file of its ``run`` command, so that
    ``refuge sweep SWEEP.yaml --out DIR`` means ``refuge sweep run SWEEP.yaml --out DIR``."""

    # typer types `ctx` as its vendored click's Context (the private typer._click), no public name
    def resolve_command(  # type: ignore[override]
        self, ctx: typer.Context, args: list[str]
    ) -> tuple[str | None, Any, list[str]]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            return "run", self.commands["run"], args
        return super().resolve_command(ctx, args)


sweep_app = typer.Typer(
    cls=_RunByDefault,
    help="Monte Carlo sweeps on Dask: `refuge sweep SWEEP.yaml --out DIR`, "
    "`refuge sweep report DIR`.",
    no_args_is_help=True,
)
app.add_typer(sweep_app, name="sweep")


@contextmanager
def _progress_bar() -> Iterator[Any]:
    """A rich bar of runs done, with the elapsed time and an ETA, on stderr."""
    # imported here, as each command imports its heavy modules (see `_app`)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console(stderr=True),
        disable=not sys.stderr.isatty(),
    ) as bar:
        task = bar.add_task("runs", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def _announce(backend: Any) -> None:
    dashboard = f"; dashboard: {backend.dashboard}" if backend.dashboard else ""
    note = f": {backend.note}" if backend.note else ""
    console(stderr=True).print(
        f"running on {backend.name} ({backend.workers} worker(s)){dashboard}{note}",
        soft_wrap=True,
    )


#: The Dask backend's options, shared by the sweep and the sensitivity analysis.
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        help="Start a local Dask cluster of this many worker processes. Default: the pilot "
        "runs here, then a cluster of one worker per core starts only if the runs left are "
        "worth its start-up.",
    ),
]
ClusterOption = Annotated[
    str | None,
    typer.Option("--cluster", help="Address of an existing Dask scheduler, tcp://host:8786."),
]
SerialOption = Annotated[
    bool, typer.Option("--serial", help="Run every run in this process, without Dask.")
]


@sweep_app.command("run")
def sweep_run(
    sweep_file: Annotated[Path, typer.Argument(help="Sweep file (YAML or JSON).")],
    out: Annotated[Path, typer.Option("--out", help="Output folder of the sweep.")],
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    serial: SerialOption = False,
    resume: Annotated[
        bool, typer.Option("--resume", help="Finish a sweep a crash or a kill interrupted.")
    ] = False,
    no_limits: NoLimitsOption = False,
) -> None:
    """Run a sweep: every run of the sweep file's axes and replications, on Dask."""
    from refuge_map.limits import check_run, check_sweep
    from refuge_map.simulation.scenario import Scenario
    from refuge_map.sweep import load_sweep, open_backend, run_sweep

    spec = load_sweep(sweep_file)
    if not no_limits:
        check_sweep(spec, source=str(sweep_file))
        check_run(Scenario.model_validate(spec.base), source=f"{sweep_file}: base")
    backend = open_backend(workers=workers, cluster=cluster, serial_run=serial)
    try:
        with _progress_bar() as progress:
            result = run_sweep(
                spec, out, backend=backend, resume=resume, progress=progress, announce=_announce
            )
    except (KeyboardInterrupt, Interrupted) as stop:  # (Ctrl-C of `main` called in-process)
        stopped = stop if isinstance(stop, Interrupted) else Interrupted(signal.SIGINT)
        console(stderr=True).print(
            f"refuge: {stopped}; finish with: refuge sweep {sweep_file} --out {out} --resume",
            soft_wrap=True,
        )
        raise typer.Exit(stopped.exit_code) from None
    failed = int((result.runs["status"] != "done").sum())
    console().print(
        f"{len(result.runs)} runs ({result.new_runs} new, {failed} failed) -> "
        f"{result.out / 'runs.parquet'}",
        soft_wrap=True,
    )
    if result.new_runs:
        console(stderr=True).print(
            f"{result.new_runs} runs in {result.sweep_s:.2f} s "
            f"({result.new_runs / max(result.sweep_s, 1e-9):.1f} runs/s) after "
            f"{result.startup_s:.2f} s of start-up",
            soft_wrap=True,
        )


@sweep_app.command("report")
def sweep_report(
    out: Annotated[Path, typer.Argument(help="A sweep's output folder.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the files written as JSON.")
    ] = False,
) -> None:
    """Write outcome rates against each axis (CSV tables, PNG plots, Wilson intervals)."""
    from refuge_map.sweep import write_report

    written = write_report(out)
    if as_json:
        print_json({"sweep": str(out), "files": [str(path) for path in written]})
        return
    for path in written:
        console().print(f"wrote {path}")


@app.command("coverage")
def coverage_command(
    out: Annotated[Path, typer.Option("--out", help="FILE.gpkg or FILE.parquet (+ FILE.png).")],
    scenario_file: Annotated[
        Path | None,
        typer.Argument(
            help="Scenario whose network, year, speeds, delay and escorts to map "
            "(default: the scenario defaults)."
        ),
    ] = None,
    cell_m: Annotated[
        float | None,
        typer.Option("--cell-m", help="Cell edge in metres (default 500: ~118,000 cells)."),
    ] = None,
    draws: Annotated[
        int | None,
        typer.Option("--draws", help="Speed draws per cell (Monte Carlo; default 256)."),
    ] = None,
    no_limits: NoLimitsOption = False,
) -> None:
    """Map the time to asylum and the chance to reach it alive from every cell (Deut 19:6)."""
    from refuge_map._atomic import check_file_target
    from refuge_map.coverage import (
        DEFAULT_CELL_M,
        DEFAULT_DRAWS,
        check_output,
        scenario_coverage,
        write_coverage,
    )
    from refuge_map.limits import check_coverage
    from refuge_map.render.static import coverage_figure
    from refuge_map.simulation import scenario_network
    from refuge_map.simulation.scenario import Scenario, load_scenario

    check_file_target(check_output(out))
    cell_m = DEFAULT_CELL_M if cell_m is None else cell_m
    draws = DEFAULT_DRAWS if draws is None else draws
    if not 0 < cell_m < math.inf:
        raise RefugeError("must be positive and finite (metres)", source="--cell-m", value=cell_m)
    if draws < 1:
        raise RefugeError("must be at least 1", source="--draws", value=draws)
    if not no_limits:
        check_coverage(cell_m=cell_m, draws=draws, source="refuge coverage")
    scenario = (
        load_scenario(scenario_file)
        if scenario_file is not None
        else Scenario(name="coverage", generate={"n": 1})
    )
    field = scenario_coverage(scenario, cell_m=cell_m, draws=draws)
    shown = console()
    figure = Path(out).with_suffix(".png")
    for path in [
        *write_coverage(field, out),
        coverage_figure(scenario_network(scenario), field, figure),
    ]:
        shown.print(f"wrote {path}")
    reached = field.p_asylum
    shown.print(
        f"{len(reached):,} cells of {cell_m:g} m; mean P(reaches asylum alive) "
        f"{reached.mean():.3f}; slowest way {field.time_h.max():.1f} h"
    )


@app.command("sensitivity")
def sensitivity_command(
    scenario_file: Annotated[Path, typer.Argument(help="Scenario file (YAML or JSON).")],
    out: Annotated[Path, typer.Option("--out", help="Output folder.")],
    method: Annotated[
        str, typer.Option("--method", help="morris (screening) or sobol (indices).")
    ] = "morris",
    size: Annotated[
        int,
        typer.Option("--size", help="Morris trajectories, or Sobol base samples (a power of two)."),
    ] = 10,
    levels: Annotated[int, typer.Option("--levels", help="Morris grid levels.")] = 4,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    serial: SerialOption = False,
    resume: Annotated[
        bool, typer.Option("--resume", help="Finish a run a crash or a kill interrupted.")
    ] = False,
) -> None:
    """Vary every assumption of a scenario over its range (Morris; Sobol on request) on the
    sweep backend; write which assumptions move which outcomes (table and plot)."""
    from rich.table import Table

    from refuge_map.errors import RefugeError
    from refuge_map.simulation.scenario import load_scenario
    from refuge_map.sweep import open_backend
    from refuge_map.sweep.sensitivity import Method, run_sensitivity

    if method not in get_args(Method):
        raise RefugeError("must be morris or sobol", source="--method", value=method)
    if size < 1 or levels < 2:
        raise RefugeError("need --size >= 1 and --levels >= 2", source="--size", value=size)
    scenario = load_scenario(scenario_file)
    backend = open_backend(workers=workers, cluster=cluster, serial_run=serial)
    with _progress_bar() as progress:
        result = run_sensitivity(
            scenario,
            out,
            backend=backend,
            method=cast(Method, method),  # one of Method's words, checked above
            size=size,
            levels=levels,
            resume=resume,
            progress=progress,
            announce=_announce,
        )
    table = Table(title=f"Most influential assumptions of {scenario.name} ({method})")
    table.add_column("parameter")
    table.add_column("influence (mean over outcomes, 1 = the largest)", justify="right")
    for name, share in result.ranking.items():
        table.add_row(str(name), f"{share:.3f}")
    shown = console()
    shown.print(table)
    for path in result.files:
        shown.print(f"wrote {path}")
