"""Expand a sweep's axes into its runs: design points, replications, spawned seeds, batches."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import qmc

from refuge_map.simulation.scenario import Scenario
from refuge_map.simulation.seeds import spawn_seeds
from refuge_map.sweep.spec import SweepSpec, apply_axes

#: Default number of tasks a sweep is cut into (enough to balance a few dozen workers).
TARGET_TASKS = 64

#: Fewest runs per task: one run of a shipped scenario takes 50-500 ms, so a task of two or
#: more stays above ~100 ms and the scheduler's overhead (about 1 ms a task) stays small.
MIN_BATCH_RUNS = 2


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
        Runs per task.
    """

    spec: SweepSpec
    runs: pd.DataFrame
    batch_runs: int

    @property
    def axes(self) -> list[str]:
        """The axis columns."""
        return self.spec.axes.names

    @property
    def n_batches(self) -> int:
        """Number of tasks."""
        return int(self.runs["batch"].max()) + 1 if len(self.runs) else 0

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


def plan_sweep(spec: SweepSpec, *, batch_runs: int | None = None) -> Plan:
    """Expand a sweep into its runs.

    The root seed spawns two streams: one for the Latin hypercube, one whose children are the
    runs' seeds, so a run's seed depends only on the spec and its place in the plan (with
    ``common_seeds``, on its replication alone).

    Parameters
    ----------
    spec
        The sweep (axes checked by `refuge_map.sweep.spec.check_axes`).
    batch_runs
        Runs per task; overrides the spec's (a resumed sweep keeps its first batching).

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
    size = batch_runs or spec.batch_runs or max(MIN_BATCH_RUNS, math.ceil(n / TARGET_TASKS))
    runs["batch"] = runs.index // size
    base = spec.base
    runs["scenario_hash"] = [
        scenario_of(base, {a: _plain(row[a]) for a in spec.axes.names}, int(row["seed"])).key
        for _, row in runs.iterrows()
    ]
    return Plan(spec, runs, size)
