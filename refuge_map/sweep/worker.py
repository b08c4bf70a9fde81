"""What a worker does with one task: run a batch of runs, write its part files, return rows."""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from refuge_map._atomic import atomic_file
from refuge_map.simulation import network_for
from refuge_map.simulation._setup import World, build_world
from refuge_map.simulation.engine import fly
from refuge_map.simulation.events import (
    EXILE_OUTCOMES,
    FLIGHT_OUTCOMES,
    LIFE_REASONS,
    concat_events,
)
from refuge_map.simulation.io import write_parquet
from refuge_map.simulation.model import after_flight
from refuge_map.simulation.run import Run
from refuge_map.simulation.scenario import Scenario
from refuge_map.simulation.stack import fly_stacked, stacks
from refuge_map.sweep.plan import scenario_of

PARTS = "parts"

#: How a flight ends (`refuge_map.simulation.events.FLIGHT_OUTCOMES`), counted per run.
OUTCOME_COUNTS = FLIGHT_OUTCOMES

#: The outcome columns of runs.parquet, from a run's ``summary["overall"]``.
OUTCOME_COLUMNS = (
    "incidents",
    *OUTCOME_COUNTS,
    "deterred",
    *(f"p_{kind}" for kind in OUTCOME_COUNTS),
    "time_to_asylum_h",
    "distance_run_km",
)

#: The exile columns of runs.parquet, from ``summary["exile"]`` (NaN for a run without an
#: ``exile`` section): manslayers by outcome, life exiles by reason (Mishnah Makkot 2:7), office
#: held and restored, rent paid to the Levites (Mishnah Makkot 2:8).
EXILE_COLUMNS = (
    *(f"exile_{kind}" for kind in EXILE_OUTCOMES),
    *(f"life_{reason}" for reason in LIFE_REASONS.values()),
    "office_held",
    "office_restored",
    "rent_total",
)


@dataclass(frozen=True)
class BatchTask:
    """One task: the runs of a batch (run index, seed, axis values, hashes) and where to write.

    Small and picklable: the base scenario mapping and a few numbers per run.
    """

    batch: int
    base: dict[str, Any]
    runs: tuple[dict[str, Any], ...]
    out: str


def prepare_worker(network_options: list[str], rehearsal: BatchTask | None = None) -> int:
    """Build and prepare the networks a sweep needs, once per worker process (the
    simulation's per-process cache, keyed by the options' JSON), then run the `rehearsal` task
    (`refuge_map.sweep.runner.rehearsal`) into a scratch folder, dropped: its first-call costs
    are then paid here, not in the first task. Returns how many networks."""
    for options in network_options:
        network_for(options)
    if rehearsal is not None:
        with tempfile.TemporaryDirectory(prefix="refuge-rehearsal-") as scratch:
            (Path(scratch) / PARTS).mkdir()
            run_batch(replace(rehearsal, out=scratch))
    return len(network_options)


def run_batch(task: BatchTask) -> list[dict[str, Any]]:
    """Run every run of the batch, write its part files, return one summary row per run.

    The runs that share the network and the flight's settings step as one stacked flight
    (`refuge_map.simulation.stack`), with the results of running them one by one.
    Trajectories go to ``parts/part-<batch>.parquet`` (GeoParquet, WGS84 points), events to
    ``parts/events-<batch>.parquet``; both are renamed into place whole. A run that raises is
    returned with status ``failed`` and the error, and the others go on.
    """
    results: dict[int, Run | Exception] = {}
    jobs: list[tuple[int, Scenario, World]] = []
    for k, run in enumerate(task.runs):
        try:
            scenario = scenario_of(task.base, run["params"], run["seed"])
            jobs.append((k, scenario, build_world(scenario, scenario.seed)))
        except Exception as err:  # one bad corner of the parameter space must not stop a sweep
            results[k] = err
    for group in stacks([(scenario, world) for _, scenario, world in jobs]):
        results |= _fly_group([jobs[i] for i in group])
    tracks: list[pd.DataFrame] = []
    events: list[pd.DataFrame] = []
    rows = []
    for k, run in enumerate(task.runs):
        result = results[k]
        if isinstance(result, Exception):
            rows.append(run | {"status": "failed", "error": f"{type(result).__name__}: {result}"})
            continue
        tracks.append(result.tracks.assign(run=run["run"]))
        events.append(result.events.assign(run=run["run"]))
        rows.append(
            run | {"status": "done", "sim_run_id": result.run_id, **outcomes(result.summary)}
        )
    part = _write_parts(Path(task.out), task.batch, tracks, events)
    return [row | {"part": part if row["status"] == "done" else None} for row in rows]


def _fly_group(jobs: list[tuple[int, Scenario, World]]) -> dict[int, Run | Exception]:
    """The runs of one stack (`stack.stacks`), by their place in the batch; if the stacked
    flight raises, each run alone, so that only the run at fault fails."""
    try:
        flights = fly_stacked(jobs[0][1], [world for _, _, world in jobs])
    except Exception:
        flights = None
    results: dict[int, Run | Exception] = {}
    for j, (k, scenario, world) in enumerate(jobs):
        try:
            flight = fly(scenario, world) if flights is None else flights[j]
            results[k] = after_flight(scenario, scenario.seed, flight)
        except Exception as err:  # as above: the others go on
            results[k] = err
    return results


def _write_parts(
    out: Path, batch: int, tracks: list[pd.DataFrame], events: list[pd.DataFrame]
) -> str | None:
    """Write the batch's part files; the trajectories as `Run.trajectories` of each run with
    its ``run`` would write them, built column-wise (`write_parquet`, no Point per row)."""
    if not tracks:
        return None
    name = f"{PARTS}/part-{batch:05d}.parquet"
    with atomic_file(out / f"{PARTS}/events-{batch:05d}.parquet") as tmp:
        concat_events(events).to_parquet(tmp, index=False)
    with atomic_file(out / name) as tmp:
        write_parquet(concat_events(tracks), tmp, points=("lon", "lat"))
    return name


def outcomes(summary: dict[str, Any]) -> dict[str, Any]:
    """A run's outcome columns: counts, rates and mean times from its summary."""
    overall = summary["overall"]
    incidents = int(overall["incidents"])
    counts = {kind: int(overall["outcomes"][kind]) for kind in OUTCOME_COUNTS}
    rates = {f"p_{kind}": counts[kind] / incidents if incidents else math.nan for kind in counts}
    return {
        "incidents": incidents,
        **counts,
        "deterred": int(overall["deterred"]),
        **rates,
        "time_to_asylum_h": _mean(overall["time_to_asylum_h"]),
        "distance_run_km": _mean(overall["distance_run_km"]),
        **exile_outcomes(summary.get("exile")),
    }


def exile_outcomes(exile: dict[str, Any] | None) -> dict[str, Any]:
    """A run's `EXILE_COLUMNS` from its ``summary["exile"]`` (all NaN when None)."""
    if exile is None:
        return dict.fromkeys(EXILE_COLUMNS, math.nan)
    return {
        **{f"exile_{kind}": int(exile["outcomes"][kind]) for kind in EXILE_OUTCOMES},
        **{f"life_{reason}": int(n) for reason, n in exile["life_exiles"].items()},
        "office_held": int(exile["office"]["held"]),
        "office_restored": int(exile["office"]["restored"]),
        "rent_total": float(exile["rent"]["total"]),
    }


def _mean(stats: dict[str, float] | None) -> float:
    return math.nan if stats is None else float(stats["mean"])
