"""Run a sweep: plan it, skip what the manifest holds, farm the rest out, write runs.parquet."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from refuge_map import __version__
from refuge_map._atomic import MARKER, atomic_file
from refuge_map.errors import RefugeError
from refuge_map.sweep.backends import Backend
from refuge_map.sweep.manifest import MANIFEST, Manifest, header_record
from refuge_map.sweep.plan import Plan, measured_batch_runs, plan_sweep, scenario_of
from refuge_map.sweep.spec import SweepSpec
from refuge_map.sweep.worker import (
    EXILE_COLUMNS,
    OUTCOME_COLUMNS,
    PARTS,
    BatchTask,
    prepare_worker,
    run_batch,
)

RUNS_TABLE = "runs.parquet"

#: The columns of runs.parquet before the axes, in order.
RUN_COLUMNS = (
    "run",
    "point",
    "replication",
    "seed",
    "scenario_hash",
    "version",
    "status",
    "error",
    "sim_run_id",
    *OUTCOME_COLUMNS,
    *EXILE_COLUMNS,
    "part",
)
SPEC_COPY = "sweep.json"

#: Called as ``progress(done, total)`` after every batch (and once at the start).
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class SweepResult:
    """What a sweep left in its folder.

    Attributes
    ----------
    out
        The output folder.
    runs
        The rows of ``runs.parquet``: one per run, sorted by run index.
    new_runs
        Runs this call ran (the others came from the manifest of an earlier, interrupted call).
    startup_s, sweep_s
        Wall seconds to bring the backend up and prepare its workers (a cluster the default
        backend starts after the pilot included), and to run the tasks (0 when there was
        nothing to run).
    """

    out: Path
    runs: pd.DataFrame
    new_runs: int
    startup_s: float = 0.0
    sweep_s: float = 0.0


def run_sweep(
    spec: SweepSpec,
    out: str | Path,
    *,
    backend: AbstractContextManager[Backend],
    resume: bool = False,
    progress: Progress | None = None,
    announce: Callable[[Backend], None] | None = None,
) -> SweepResult:
    """Run every run of `spec` not yet in the manifest of `out`, then write ``runs.parquet``.

    Parameters
    ----------
    spec
        The sweep (from `refuge_map.sweep.load_sweep`).
    out
        The output folder: ``manifest.jsonl``, ``sweep.json``, ``parts/``, ``runs.parquet``.
    backend
        From `refuge_map.sweep.open_backend`; entered (a cluster started or reached) only
        once the output folder is checked and there are runs to do.
    resume
        Finish the sweep a crash, Ctrl-C or kill left in `out`; no run is lost or run twice.
    progress
        Told of the runs done so far after each batch.
    announce
        Told of the backend once it is up (to print its dashboard's address), and again if
        it changed once the pilot costed the runs left (`Backend.fit`: the default backend
        starts a cluster only then, or says why not).

    Returns
    -------
    SweepResult
        The output folder, all runs, and how many this call ran.

    Raises
    ------
    RefugeError
        If `out` holds another sweep, or this one without `resume`.
    """
    folder = Path(out).absolute()  # workers on a cluster run in their own working directory
    plan = plan_sweep(spec)
    started_here = not (folder / MANIFEST).exists()
    manifest = Manifest.open(folder, _header(plan), resume=resume)
    plan = _resumed_batching(plan, manifest)
    _write_spec(spec, folder)
    _remove_torn_parts(folder)
    total, before = len(plan.runs), len(manifest.runs)
    if progress:
        progress(before, total)
    startup_s = sweep_s = 0.0
    if _runs_left(plan, manifest):  # (some maybe not yet cut into batches)
        start = time.perf_counter()
        with ExitStack() as stack:
            try:
                engine = stack.enter_context(backend)
            except RefugeError:
                if started_here:  # the cluster never came up: leave no half-made folder
                    _remove_started(folder)
                raise
            if announce:
                announce(engine)
            engine.run_on_workers(prepare_worker, network_options(plan), rehearsal(plan))
            startup_s = time.perf_counter() - start
            per_run_s = _run_pilot(plan, manifest, engine, folder, progress)
            fitting = time.perf_counter()
            left = _runs_left(plan, manifest)
            if engine.fit(None if per_run_s is None else per_run_s * left) and announce:
                announce(engine)
            startup_s += time.perf_counter() - fitting
            if plan.batch_runs is None:
                plan = _cut_batches(plan, manifest, per_run_s, engine.workers)
            for rows in engine.map_unordered(run_batch, pending_tasks(plan, manifest, folder)):
                manifest.record(rows)
                if progress:
                    progress(len(manifest.runs), total)
            sweep_s = time.perf_counter() - start - startup_s
    runs = write_runs_table(plan, manifest, folder)
    return SweepResult(folder, runs, len(manifest.runs) - before, startup_s, sweep_s)


def _runs_left(plan: Plan, manifest: Manifest) -> int:
    """Runs of the plan the manifest does not hold yet."""
    return len(plan.runs.index.difference(list(manifest.runs)))


def _header(plan: Plan) -> dict[str, Any]:
    return header_record(
        sweep=plan.spec.name,
        spec_hash=plan.spec.spec_hash,
        version=__version__,
        n_runs=len(plan.runs),
        batch_runs=plan.batch_runs,
        axes=plan.axes,
        pilot_runs=plan.pilot_runs,
    )


def _resumed_batching(plan: Plan, manifest: Manifest) -> Plan:
    """The plan with the batching the manifest recorded (a resumed sweep keeps its first:
    its header's size or pilot, and the size measured after the pilot)."""
    header = manifest.header
    first = (header["batch_runs"], header.get("pilot_runs", 0))
    if first != (plan.batch_runs, plan.pilot_runs):
        plan = plan_sweep(plan.spec, batch_runs=first[0], pilot_runs=first[1])
    if plan.batch_runs is None and manifest.batching is not None:
        plan = plan.sized(int(manifest.batching["batch_runs"]))
    return plan


def _run_pilot(
    plan: Plan, manifest: Manifest, engine: Backend, folder: Path, progress: Progress | None
) -> float | None:
    """Run the pilot batch if it is still to do, and give the seconds per run it took; or those
    the manifest recorded after an earlier call's pilot; None when unknown (a sweep file's fixed
    ``batch_runs``, or a pilot whose call was stopped before it recorded its time)."""
    if plan.batch_runs is not None:  # cut already: by the sweep file, or after a pilot
        recorded = (manifest.batching or {}).get("per_run_s")
        return float(recorded) if recorded else None
    pilot = [task for task in pending_tasks(plan, manifest, folder) if task.batch == 0]
    if not pilot:
        return None
    start = time.perf_counter()
    for rows in engine.map_unordered(run_batch, pilot):
        manifest.record(rows)
        if progress:
            progress(len(manifest.runs), len(plan.runs))
    return (time.perf_counter() - start) / len(pilot[0].runs)


def _cut_batches(plan: Plan, manifest: Manifest, per_run_s: float | None, workers: int) -> Plan:
    """Cut the runs after the pilot into batches of `measured_batch_runs` and record that size
    in the manifest (a pilot of unknown time leaves the size to the workers alone)."""
    rest = int((plan.runs["batch"] < 0).sum())
    seconds = per_run_s or 0.0
    size = measured_batch_runs(seconds, rest, workers)
    manifest.record_batching(
        {"batch_runs": size, "per_run_s": round(seconds, 6), "workers": workers}
    )
    return plan.sized(size)


def rehearsal(plan: Plan) -> BatchTask:
    """The sweep's first run cut to one incident, for every worker to run once before the
    pilot (`prepare_worker`): the first flight's costs (its compiled kernels loaded, its modules
    imported, its first part written) are then paid in the start-up, and the pilot's seconds
    are those of its runs."""
    run = _run_record(plan, int(plan.runs.index[0]))
    one: dict[str, Any]
    if plan.spec.base.get("generate"):
        one = {"generate.n": 1}
    else:
        first = plan.scenario(run["run"]).incidents[:1]
        one = {"incidents": [incident.model_dump(mode="json") for incident in first]}
    rehearsed = run | {"params": run["params"] | one}
    return BatchTask(batch=0, base=plan.spec.base, runs=(rehearsed,), out="")


def _remove_started(folder: Path) -> None:
    """Remove what this call began in `folder` (manifest, spec copy, marker), and the folder
    itself if that leaves it empty."""
    for name in (MANIFEST, SPEC_COPY, MARKER):
        (folder / name).unlink(missing_ok=True)
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


def _write_spec(spec: SweepSpec, folder: Path) -> None:
    with atomic_file(folder / SPEC_COPY) as tmp:
        tmp.write_text(json.dumps(spec.model_dump(mode="json"), indent=2), encoding="utf-8")


def _remove_torn_parts(folder: Path) -> None:
    """Remove temporary files a killed sweep left half-written (parts, spec copy, runs table:
    never recorded, so nothing is lost)."""
    for torn in [*folder.glob(".*.part.*"), *(folder / PARTS).glob(".*.part.*")]:
        torn.unlink(missing_ok=True)


def pending_tasks(plan: Plan, manifest: Manifest, folder: Path) -> list[BatchTask]:
    """A task for every batch with a run not in the manifest (the whole batch is rerun, so its
    part file is rewritten whole; runs already recorded are not recorded again)."""
    runs = plan.runs
    missing = runs.index[~runs.index.isin(list(manifest.runs))]
    tasks = []
    for batch in sorted(set(runs.loc[missing, "batch"].tolist()) - {-1}):  # -1: not yet cut
        members = runs.index[runs["batch"] == batch]
        tasks.append(
            BatchTask(
                batch=int(batch),
                base=plan.spec.base,
                runs=tuple(_run_record(plan, int(i)) for i in members),
                out=str(folder),
            )
        )
    return tasks


def _run_record(plan: Plan, run: int) -> dict[str, Any]:
    row = plan.runs.loc[run].to_dict()
    return {
        "run": run,
        "point": int(row["point"]),
        "replication": int(row["replication"]),
        "seed": int(row["seed"]),
        "scenario_hash": str(row["scenario_hash"]),
        "version": __version__,
        "params": plan.params(run),
    }


def network_options(plan: Plan) -> list[str]:
    """The distinct network options of the sweep's design points (as JSON), for the workers
    to build once each."""
    points = plan.runs.drop_duplicates("point")
    return sorted(
        {
            scenario_of(plan.spec.base, plan.params(int(i)), 0).network.model_dump_json()
            for i in points.index
        }
    )


def write_runs_table(plan: Plan, manifest: Manifest, folder: Path) -> pd.DataFrame:
    """``runs.parquet``: one row per recorded run, sorted by run index, axis values as columns
    (mappings and lists as JSON text)."""
    records = [manifest.runs[i] for i in sorted(manifest.runs)]
    axes = {name: [_column_value(r["params"][name]) for r in records] for name in plan.axes}
    table = pd.DataFrame.from_records(records, columns=list(RUN_COLUMNS))
    table = pd.concat([table, pd.DataFrame(axes, index=table.index)], axis=1)
    with atomic_file(folder / RUNS_TABLE) as tmp:
        table.to_parquet(tmp, index=False)
    return table


def _column_value(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else value
