"""The default sweep backend: the pilot in this process, then a local cluster only if the runs
left are worth its start-up; the workers' rehearsal before the pilot."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_sweep_batches import SWEEP, sweep_file

from refuge_map.sweep import backends, load_sweep, open_backend, plan_sweep, run_sweep, worker
from refuge_map.sweep.backends import (
    LOCAL_STARTUP_S,
    LocalWhenWorth,
    SerialBackend,
    local_when_worth,
    worth_a_cluster,
)
from refuge_map.sweep.manifest import MANIFEST
from refuge_map.sweep.plan import PILOT_RUNS, scenario_of
from refuge_map.sweep.runner import rehearsal
from refuge_map.sweep.worker import BatchTask, prepare_worker

#: Runs of `SWEEP`: 2 x 2 grid points, 3 replications each.
RUNS = 12


class Recording(SerialBackend):
    """The serial backend, recording what it was asked to fit."""

    def __init__(self) -> None:
        self.fitted: list[float | None] = []

    def fit(self, serial_s: float | None) -> bool:
        self.fitted.append(serial_s)
        return False


@contextmanager
def entered(backend: Recording) -> Iterator[Recording]:
    yield backend


def test_a_cluster_is_worth_it_only_when_it_saves_more_than_its_start_up() -> None:
    assert not worth_a_cluster(1e6, workers=1)  # one worker saves nothing
    assert not worth_a_cluster(2 * LOCAL_STARTUP_S, workers=2)  # saves exactly its start-up
    assert worth_a_cluster(2 * LOCAL_STARTUP_S + 0.1, workers=2)
    assert worth_a_cluster(1.5 * LOCAL_STARTUP_S, workers=4)  # 3/4 of it saved


def test_a_small_sweep_stays_in_this_process_and_says_why(tmp_path: Path) -> None:
    spec = load_sweep(sweep_file(tmp_path))
    shown: list[tuple[str, int, str | None]] = []
    result = run_sweep(
        spec,
        tmp_path / "default",
        backend=local_when_worth(workers=2),
        announce=lambda b: shown.append((b.name, b.workers, b.note)),
    )
    serial = run_sweep(spec, tmp_path / "serial", backend=open_backend(serial_run=True))
    pd.testing.assert_frame_equal(result.runs, serial.runs)
    assert [(name, workers) for name, workers, _ in shown] == [("serial", 1), ("serial", 1)]
    assert "a local cluster of 2 worker(s) only if" in str(shown[0][2])
    assert "would save less than its start-up" in str(shown[1][2])
    batching = [
        json.loads(line)
        for line in (tmp_path / "default" / MANIFEST).read_text().splitlines()
        if '"batching"' in line
    ]
    assert batching[0]["workers"] == 1  # cut for this process: one batch of the rest
    assert result.runs["part"].iloc[PILOT_RUNS:].nunique() == 1


class FakeCluster(SerialBackend):
    """Stands for a local cluster: records what its workers were asked to run."""

    name = "fake cluster"
    workers = 2

    def __init__(self) -> None:
        self.ran: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []

    def run_on_workers(self, fn: Callable[..., Any], *args: Any) -> None:
        self.ran.append((fn, args))


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[FakeCluster]:
    """The stand-in clusters `local_cluster` starts, in order (none for real)."""
    clusters: list[FakeCluster] = []

    @contextmanager
    def fake_cluster(workers: int | None = None) -> Iterator[FakeCluster]:
        clusters.append(FakeCluster())
        yield clusters[-1]

    monkeypatch.setattr(backends, "local_cluster", fake_cluster)
    return clusters


def test_a_sweep_worth_a_cluster_starts_one_and_prepares_its_workers(
    started: list[FakeCluster],
) -> None:
    prepared: list[str] = []
    with ExitStack() as stack:
        default = LocalWhenWorth(stack, workers=2)
        default.run_on_workers(prepared.append, "networks")
        assert prepared == ["networks"] and default.name == "serial"
        assert default.fit(2 * LOCAL_STARTUP_S + 1) is True
        assert default.name == "fake cluster" and default.workers == 2 and default.note is None
        assert started[0].ran == [(prepared.append, ("networks",))]  # prepared again there
        assert default.fit(1e6) is False and len(started) == 1  # started once


def test_an_unmeasured_sweep_starts_the_cluster(started: list[FakeCluster]) -> None:
    """A sweep file's fixed batch_runs has no pilot: nothing says the cluster is not worth it."""
    with ExitStack() as stack:
        default = LocalWhenWorth(stack, workers=2)
        assert default.fit(None) and default.name == "fake cluster"


def test_the_fit_is_told_the_pilots_cost_of_the_runs_left_also_when_resumed(
    tmp_path: Path,
) -> None:
    spec = load_sweep(sweep_file(tmp_path))
    out = tmp_path / "out"
    first = Recording()
    run_sweep(spec, out, backend=entered(first))
    lines = (out / MANIFEST).read_text().splitlines()
    per_run_s = json.loads(lines[1 + PILOT_RUNS])["per_run_s"]
    (seconds,) = first.fitted
    assert seconds == pytest.approx(per_run_s * (RUNS - PILOT_RUNS), rel=1e-3)
    (out / MANIFEST).write_text("\n".join(lines[: 1 + PILOT_RUNS + 1]) + "\n")  # rest undone
    again = Recording()
    run_sweep(spec, out, backend=entered(again), resume=True)
    assert again.fitted == [pytest.approx(per_run_s * (RUNS - PILOT_RUNS))]


def test_a_fixed_batch_size_leaves_the_cost_unknown(tmp_path: Path) -> None:
    spec = load_sweep(sweep_file(tmp_path, batch_runs=2))
    fixed = Recording()
    run_sweep(spec, tmp_path / "out", backend=entered(fixed))
    assert fixed.fitted == [None]


@pytest.mark.parametrize("explicit", [False, True])
def test_the_rehearsal_is_the_first_run_cut_to_one_incident(tmp_path: Path, explicit: bool) -> None:
    base = dict(SWEEP["base"])
    if explicit:
        del base["generate"]
        base["incidents"] = [
            {"place": {"lon": 35.2, "lat": 32.2}},
            {"place": {"lon": 35.0, "lat": 31.6}, "time_h": 1.0},
        ]
    plan = plan_sweep(load_sweep(sweep_file(tmp_path, base=base)))
    task = rehearsal(plan)
    (run,) = task.runs
    assert run["run"] == 0 and run["params"]["escorts.enabled"] is False
    rehearsed = scenario_of(task.base, run["params"], run["seed"])
    first = plan.scenario(0)
    if explicit:
        assert rehearsed.incidents == first.incidents[:1] and len(first.incidents) == 2
    else:
        assert rehearsed.generate is not None and rehearsed.generate.n == 1
    same_otherwise = {"generate": first.generate, "incidents": first.incidents}
    assert rehearsed.model_copy(update=same_otherwise) == first


def test_the_rehearsal_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = plan_sweep(load_sweep(sweep_file(tmp_path)))
    monkeypatch.chdir(tmp_path)  # where a task's empty `out` would write
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    written: list[Path] = []
    real_run_batch = worker.run_batch

    def run_batch(task: BatchTask) -> list[dict[str, Any]]:
        rows = real_run_batch(task)
        written.extend(Path(task.out).rglob("*.parquet"))
        return rows

    monkeypatch.setattr(worker, "run_batch", run_batch)
    assert prepare_worker([], rehearsal(plan)) == 0
    assert len(written) == 2 and all(path.is_relative_to(scratch) for path in written)
    assert list(scratch.iterdir()) == []  # the scratch folder removed
    assert not (tmp_path / "parts").exists()
