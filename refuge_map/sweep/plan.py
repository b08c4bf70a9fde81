"""Expand a sweep's axes into its runs: design points, replications, spawned seeds, batches.

Batches are sized from a measured cost (unless the sweep file gives ``batch_runs``): the first
`PILOT_RUNS` runs are batch 0, the pilot; once it has run, the seconds it took give a cost per
run, and the other runs are cut into batches of `measured_batch_runs` (`Plan.sized`): as many
runs as fill a task of `TASK_S` seconds, but (with several workers) no more than give every
worker `TASKS_PER_WORKER` tasks. Runs in one batch step as one stacked flight
(`refuge_map.simulation.stack`), so a large batch costs less per run than a small one, and the
pilot's cost per run errs on the small side (measured: a 4-run stack about 60 ms a run, a 30-run
stack about 25 ms, of which some 0.2 s a stack is the steps' fixed cost).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.stats import qmc

from refuge_map.simulation.scenario import Scenario
from refuge_map.simulation.seeds import spawn_seeds
from refuge_map.sweep.spec import SweepSpec, apply_axes

#: Runs of the pilot batch whose seconds size the others (stacked, as every batch is).
PILOT_RUNS = 4
#: A task's target length, seconds: long enough that the scheduler's overhead (about 1 ms a
#: task) and a batch's fixed costs (its two part files) are small beside it, short enough for
#: the progress bar, for what a crash loses, and for balance.
TASK_S = 5.0
#: Tasks per worker at least (of the runs after the pilot) when there are several workers: the
#: last tasks' unequal lengths then leave no worker idle for long. A single worker has no one
#: to wait for, and a larger batch stacks more runs into one flight (a flight's fixed cost per
#: step is paid once per stack).
TASKS_PER_WORKER = 2


@dataclass(frozen=True)
class Plan:
    """The runs of a sweep, in a fixed order.

    Attributes
    ----------
    spec
        The sweep.
    runs
        One row per run, indexed by ``run`` (0, 1, ...): ``point`` (the design point),
        ``replication``, ``seed`` (spawned from the root seed), ``batch``, ``scenario_hash``
        and one column per axis.
    batch_runs
        Runs per task after the pilot; None until measured (the runs after the pilot are then
        in batch -1, not yet cut).
    pilot_runs
        Runs of batch 0, the pilot whose seconds size the others (0: no pilot).
    """

    spec: SweepSpec
    runs: pd.DataFrame
    batch_runs: int | None
    pilot_runs: int = 0

    @property
    def axes(self) -> list[str]:
        """The axis columns."""
        return self.spec.axes.names

    @property
    def n_batches(self) -> int:
        """Number of tasks."""
        return int(self.runs["batch"].max()) + 1 if len(self.runs) else 0

    def sized(self, batch_runs: int) -> Plan:
        """This plan with the runs after the pilot cut into batches of `batch_runs`."""
        runs = self.runs.copy()
        runs["batch"] = batches(len(runs), batch_runs=batch_runs, pilot_runs=self.pilot_runs)
        return Plan(self.spec, runs, batch_runs, self.pilot_runs)

    def scenario(self, run: int) -> Scenario:
        """The concrete scenario of one run (its seed included): reproducible alone with
        ``refuge_map.simulate(plan.scenario(run))``."""
        seed = int(self.runs["seed"].to_numpy()[self.runs.index.get_loc(run)])
        return scenario_of(self.spec.base, self.params(run), seed)

    def params(self, run: int) -> dict[str, Any]:
        """The axis values of one run."""
        return {name: _plain(self.runs.at[run, name]) for name in self.axes}


def scenario_of(base: dict[str, Any], params: dict[str, Any], seed: int) -> Scenario:
    """The base scenario with the axis values set and the run's seed."""
    return Scenario.model_validate(apply_axes(base, params) | {"seed": seed, "replications": 1})


def _plain(value: Any) -> Any:
    """A numpy scalar as a plain Python value (for JSON and for pydantic)."""
    return value.item() if isinstance(value, np.generic) else value


def design_points(spec: SweepSpec, lhs_seed: np.random.SeedSequence) -> list[dict[str, Any]]:
    """Every combination of the grid axes, crossed with the Latin-hypercube samples and with
    the explicit points."""
    grid = spec.axes.grid
    combos = [dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())]
    if spec.axes.points:
        combos = [combo | point for combo in combos for point in spec.axes.points]
    lhs = spec.axes.lhs
    if not lhs:
        return combos
    sampler = qmc.LatinHypercube(d=len(lhs), rng=np.random.default_rng(lhs_seed))
    unit = sampler.random(spec.axes.samples)
    lows = np.array([r.low for r in lhs.values()])
    highs = np.array([r.high for r in lhs.values()])
    samples = [dict(zip(lhs, row.tolist(), strict=True)) for row in lows + unit * (highs - lows)]
    return [combo | sample for combo in combos for sample in samples]


def batches(n: int, *, batch_runs: int | None, pilot_runs: int = 0) -> NDArray[np.int64]:
    """The batch of each of `n` runs: the first `pilot_runs` in batch 0, then `batch_runs` a
    batch (-1 for all of them while `batch_runs` is None)."""
    index = np.arange(n)
    if batch_runs is None:
        return np.where(index < pilot_runs, 0, -1)
    after = (index - pilot_runs) // batch_runs + (1 if pilot_runs else 0)
    return np.where(index < pilot_runs, 0, after)


def measured_batch_runs(per_run_s: float, runs: int, workers: int) -> int:
    """Runs per batch from a measured cost: as many as fill a task of `TASK_S` seconds, at most
    as many as give each of several `workers` `TASKS_PER_WORKER` tasks of the `runs` to do, at
    least one; then evened out, so that the last batch is not a small remainder (as many
    batches, none larger), and with several workers as many batches as a multiple of them, so
    that none is left with a batch more than the others (5 batches on 2 workers take as long as
    6).

    Parameters
    ----------
    per_run_s
        Seconds per run, measured (the pilot batch's seconds over its runs).
    runs
        Runs still to cut into batches.
    workers
        Worker processes.
    """
    by_time = int(TASK_S // per_run_s) if per_run_s > 0 else runs
    by_workers = math.ceil(runs / (TASKS_PER_WORKER * workers)) if workers > 1 else runs
    size = max(1, min(by_time, by_workers))
    if not runs:
        return size
    n_batches = math.ceil(runs / size)
    if workers > 1:
        n_batches = min(runs, math.ceil(n_batches / workers) * workers)
    return max(1, math.ceil(runs / n_batches))


def plan_sweep(
    spec: SweepSpec, *, batch_runs: int | None = None, pilot_runs: int | None = None
) -> Plan:
    """Expand a sweep into its runs.

    The root seed spawns two streams: one for the Latin hypercube, one whose children are the
    runs' seeds, so a run's seed depends only on the spec and its place in the plan (with
    ``common_seeds``, on its replication alone).

    Parameters
    ----------
    spec
        The sweep (axes checked by `refuge_map.sweep.spec.check_axes`).
    batch_runs
        Runs per task; overrides the spec's (a resumed sweep keeps its first batching). With
        neither, the batches after a pilot are sized once it has run (`Plan.sized`).
    pilot_runs
        Runs of the pilot batch (default: `PILOT_RUNS` when the batches are to be measured,
        else none).

    Returns
    -------
    Plan
        One row per run: design point, replication, parameters and seed.
    """
    lhs_seed, runs_seed = np.random.SeedSequence(spec.seed).spawn(2)
    points = design_points(spec, lhs_seed)
    reps = spec.replications
    n = len(points) * reps
    rows = [
        {"point": p, "replication": r, **point}
        for p, point in enumerate(points)
        for r in range(reps)
    ]
    runs = pd.DataFrame(rows, index=pd.RangeIndex(n, name="run"))
    if spec.common_seeds:  # common random numbers: replication r has one seed for all points
        runs["seed"] = np.tile(spawn_seeds(runs_seed, reps), len(points))
    else:
        runs["seed"] = spawn_seeds(runs_seed, n)
    size = batch_runs or spec.batch_runs
    if pilot_runs is None:
        pilot_runs = 0 if size else min(PILOT_RUNS, n)
    runs["batch"] = batches(n, batch_runs=size, pilot_runs=pilot_runs)
    base = spec.base
    runs["scenario_hash"] = [
        scenario_of(base, {a: _plain(row[a]) for a in spec.axes.names}, int(row["seed"])).key
        for _, row in runs.iterrows()
    ]
    return Plan(spec, runs, size, pilot_runs)
