"""Bounds on the work a command may start: estimated from the inputs before anything runs, and
refused (one line with the estimate and the bound) unless the user passes `OVERRIDE`.

Every bound is an assumption with its rationale (a few minutes of work, or half of this
machine's memory); ``--no-limits`` lifts them all, for a user who knows the run is worth it.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

from refuge_map.errors import RefugeError

if TYPE_CHECKING:
    from refuge_map.simulation.scenario import Scenario
    from refuge_map.sweep.spec import SweepSpec

#: The flag that lifts every bound.
OVERRIDE = "--no-limits"
#: Agent-steps of one run (agents x time steps x replications). Assumption: the default
#: scenario is ~6 million; 2 billion is some minutes of the vectorized engine on one core (see
#: benchmarks/bench_flight.py for the rate); range 10^8-10^10 depending on the machine.
MAX_AGENT_STEPS = 2_000_000_000
#: Bytes of one recorded trajectory row in memory (geometry, time, ids, state). Assumption:
#: measured order of magnitude of a GeoDataFrame row with a shapely Point, range 150-400.
TRACK_ROW_BYTES = 250
#: Runs of one sweep (rows of the manifest and of runs.parquet). Assumption: a million runs of
#: the tiny sweeps is already a day of a small cluster; range 10^5-10^7.
MAX_SWEEP_RUNS = 1_000_000
#: Coverage cells: 118,000 land cells at the default 500 m; 5 million is ~80 m cells, finer
#: than the roads' own precision (assumption; range 10^6-10^7).
MAX_COVERAGE_CELLS = 5_000_000
#: Land area the coverage grid covers, km² (118,000 cells of 500 m, `refuge coverage`).
COVERAGE_LAND_KM2 = 29_500.0
#: Speed draws per cell: the standard error of a probability is at most 0.5 / sqrt(draws),
#: 0.0016 at 100,000 draws; more buys nothing a map can show.
MAX_COVERAGE_DRAWS = 100_000
#: Share of the machine's memory a run may plan to hold.
MEMORY_SHARE = 0.5


def machine_memory_bytes() -> int:
    """This machine's physical memory, bytes."""
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def _refuse(what: str, estimate: float, limit: float, unit: str, *, source: str) -> RefugeError:
    return RefugeError(
        f"{what}: about {estimate:,.0f} {unit}, over the bound of {limit:,.0f}; "
        f"make the work smaller or pass {OVERRIDE}",
        source=source,
    )


def check_run(scenario: Scenario, *, source: str) -> None:
    """Refuse a scenario whose agent-steps or recorded rows would not finish or fit.

    Raises
    ------
    RefugeError
        With the estimate and the bound (`MAX_AGENT_STEPS`, `MEMORY_SHARE` of the memory).
    """
    from refuge_map.simulation.scenario import run_incidents, run_steps  # loaded by now

    steps = run_steps(scenario)
    agents = 2 * run_incidents(scenario) * scenario.replications  # a manslayer and an avenger each
    agent_steps = agents * steps
    if agent_steps > MAX_AGENT_STEPS:
        raise _refuse(
            f"{agents:,} agents x {steps:,} steps",
            agent_steps,
            MAX_AGENT_STEPS,
            "agent-steps",
            source=source,
        )
    rows_bytes = agent_steps / scenario.output.record_every_steps * TRACK_ROW_BYTES
    memory = MEMORY_SHARE * machine_memory_bytes()
    if rows_bytes > memory:
        raise _refuse(
            "the recorded trajectories", rows_bytes / 2**20, memory / 2**20, "MiB", source=source
        )


def check_sweep(spec: SweepSpec, *, source: str) -> None:
    """Refuse a sweep of more than `MAX_SWEEP_RUNS` runs, before any is planned.

    Raises
    ------
    RefugeError
        With the number of runs and the bound.
    """
    points = math.prod(len(values) for values in spec.axes.grid.values())
    if spec.axes.lhs:
        points *= spec.axes.samples
    runs = points * spec.replications
    if runs > MAX_SWEEP_RUNS:
        raise _refuse(
            f"{points:,} design points x {spec.replications:,} replications",
            runs,
            MAX_SWEEP_RUNS,
            "runs",
            source=source,
        )


def check_coverage(*, cell_m: float, draws: int, source: str) -> None:
    """Refuse a coverage field of more than `MAX_COVERAGE_CELLS` cells or
    `MAX_COVERAGE_DRAWS` draws per cell.

    Raises
    ------
    RefugeError
        With the estimate and the bound.
    """
    cells = COVERAGE_LAND_KM2 * 1e6 / cell_m**2
    if cells > MAX_COVERAGE_CELLS:
        raise _refuse(f"cells of {cell_m:g} m", cells, MAX_COVERAGE_CELLS, "cells", source=source)
    if draws > MAX_COVERAGE_DRAWS:
        raise _refuse("speed draws per cell", draws, MAX_COVERAGE_DRAWS, "draws", source=source)
