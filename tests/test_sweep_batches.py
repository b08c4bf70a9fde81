"""Sweep batches: sized from a measured pilot, resumed as recorded, and run as stacked flights
that give each run what running it alone gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import geopandas as gpd
import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from refuge_map.simulation import simulate
from refuge_map.simulation.events import concat_events
from refuge_map.sweep import load_sweep, open_backend, run_sweep
from refuge_map.sweep.manifest import MANIFEST, Manifest
from refuge_map.sweep.plan import (
    PILOT_RUNS,
    TASK_S,
    TASKS_PER_WORKER,
    batches,
    measured_batch_runs,
    plan_sweep,
)
from refuge_map.sweep.runner import pending_tasks
from refuge_map.sweep.worker import outcomes, run_batch

SWEEP: dict[str, Any] = {
    "name": "batches",
    "seed": 3,
    "replications": 3,
    "base": {"name": "batches", "dt_s": 300, "horizon_h": 12, "generate": {"n": 4}},
    "axes": {
        "grid": {"escorts.enabled": [False, True], "avenger.knows": ["sees_him", "destination"]}
    },
}


def sweep_file(folder: Path, **fields: Any) -> Path:
    path = folder / "sweep.yaml"
    path.write_text(yaml.safe_dump(SWEEP | fields), encoding="utf-8")
    return path


def manifest_lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / MANIFEST).read_text().splitlines()]


def test_the_size_rule_fills_a_task_and_keeps_every_worker_busy() -> None:
    assert measured_batch_runs(TASK_S / 10, 1000, 1) == 10  # ten runs fill a task
    assert measured_batch_runs(TASK_S / 10, 40, 4) == 40 // (TASKS_PER_WORKER * 4)
    assert measured_batch_runs(10 * TASK_S, 1000, 1) == 1  # one run is already too long
    assert measured_batch_runs(0.0, 60, 2) == 15  # no time known: the workers decide


def test_several_workers_get_as_many_batches_each() -> None:
    # 125 runs fill a task: 5 batches of 102 would leave one of 2 workers 3 of them, the other
    # 2; 6 batches of 85 give each 3
    assert measured_batch_runs(TASK_S / 125, 508, 2) == 85
    assert measured_batch_runs(TASK_S / 125, 508, 4) == 64  # 8 batches: 2 each
    assert measured_batch_runs(TASK_S, 3, 2) == 1  # fewer runs than the multiple: one each


def test_one_worker_takes_batches_as_long_as_a_task_evened_out() -> None:
    assert measured_batch_runs(0.0, 60, 1) == 60  # no one to wait for: one batch
    assert measured_batch_runs(TASK_S / 40, 60, 1) == 30  # 40 + 20 evened out to 30 + 30
    assert measured_batch_runs(TASK_S / 10, 25, 1) == 9  # three batches: 9, 9, 7


def test_batches_put_the_pilot_first_then_cut_the_rest() -> None:
    assert batches(7, batch_runs=None, pilot_runs=2).tolist() == [0, 0, -1, -1, -1, -1, -1]
    assert batches(7, batch_runs=2, pilot_runs=2).tolist() == [0, 0, 1, 1, 2, 2, 3]
    assert batches(5, batch_runs=2).tolist() == [0, 0, 1, 1, 2]


def test_a_sweep_measures_its_pilot_and_records_the_size(tmp_path: Path) -> None:
    spec = load_sweep(sweep_file(tmp_path))
    assert plan_sweep(spec).pilot_runs == PILOT_RUNS
    result = run_sweep(spec, tmp_path / "out", backend=open_backend(serial_run=True))
    assert result.new_runs == 12 and (result.runs["status"] == "done").all()
    lines = manifest_lines(tmp_path / "out")
    assert lines[0]["batch_runs"] is None and lines[0]["pilot_runs"] == PILOT_RUNS
    kinds = [line["kind"] for line in lines]
    # the pilot's runs, then the measured size, then the other runs
    assert kinds == ["header", *["run"] * PILOT_RUNS, "batching", *["run"] * 8]
    size = lines[PILOT_RUNS + 1]["batch_runs"]
    assert size == measured_batch_runs(lines[PILOT_RUNS + 1]["per_run_s"], 8, 1)
    parts = result.runs["part"]
    assert parts.iloc[:PILOT_RUNS].nunique() == 1  # the pilot: one batch
    assert parts.iloc[PILOT_RUNS:].value_counts().max() <= size


def test_a_resumed_sweep_keeps_the_measured_batches(tmp_path: Path) -> None:
    spec = load_sweep(sweep_file(tmp_path))
    out = tmp_path / "out"
    first = run_sweep(spec, out, backend=open_backend(serial_run=True))
    lines = manifest_lines(out)
    cut = 1 + PILOT_RUNS + 1 + 1  # header, pilot, batching line and one later run survive
    (out / MANIFEST).write_text("".join(json.dumps(line) + "\n" for line in lines[:cut]))
    again = run_sweep(spec, out, backend=open_backend(serial_run=True), resume=True)
    assert again.new_runs == 12 - PILOT_RUNS - 1
    pd.testing.assert_frame_equal(again.runs, first.runs)


def test_a_stacked_batch_gives_every_run_what_it_gives_alone(tmp_path: Path) -> None:
    """Two kinds of avenger in one batch (two stacks): rows and part files as from `simulate`."""
    spec = load_sweep(sweep_file(tmp_path, batch_runs=12))
    plan = plan_sweep(spec)
    out = tmp_path / "out"
    (out / "parts").mkdir(parents=True)
    (task,) = pending_tasks(plan, Manifest(out / MANIFEST, {}), out)
    rows = run_batch(task)
    alone = [simulate(plan.scenario(run)) for run in plan.runs.index]
    for row, run in zip(rows, alone, strict=True):
        assert row["status"] == "done" and row["sim_run_id"] == run.run_id
        assert {k: row[k] for k in outcomes(run.summary)} == outcomes(run.summary)
    tracks = gpd.read_parquet(out / rows[0]["part"])
    expected = pd.concat(
        [r.trajectories.assign(run=i) for i, r in enumerate(alone)], ignore_index=True
    )
    pd.testing.assert_frame_equal(tracks, gpd.GeoDataFrame(expected), check_like=False)
    events = pd.read_parquet(out / "parts" / "events-00000.parquet")
    expected_events = concat_events([r.events.assign(run=i) for i, r in enumerate(alone)])
    pd.testing.assert_frame_equal(events, expected_events)


def test_every_batch_writes_its_events_with_one_schema(tmp_path: Path) -> None:
    """Batches whose runs name different cities and rules still write the same column types
    (categoricals, not strings where one batch's categories differ), so the parts read as one
    dataset."""
    spec = load_sweep(sweep_file(tmp_path, batch_runs=2))
    run_sweep(spec, tmp_path / "out", backend=open_backend(serial_run=True))
    parts = sorted((tmp_path / "out" / "parts").glob("events-*.parquet"))
    schemas = {str(pq.read_schema(part).remove_metadata()) for part in parts}
    assert len(parts) > 1 and len(schemas) == 1, schemas


@pytest.mark.parametrize("n", [1, 3])
def test_a_sweep_smaller_than_the_pilot_runs_whole(tmp_path: Path, n: int) -> None:
    spec = load_sweep(sweep_file(tmp_path, replications=1, axes={"grid": {}}))
    spec = spec.model_copy(update={"replications": n})
    result = run_sweep(spec, tmp_path / "out", backend=open_backend(serial_run=True))
    assert result.new_runs == n and (result.runs["status"] == "done").all()
