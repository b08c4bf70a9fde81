"""Tests of running sweeps: Dask equals serial, kill -9 and resume, reports, one-line errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import geopandas as gpd
import pandas as pd
import pytest
import yaml

from refuge_map.sweep import load_sweep, open_backend, run_sweep, write_report
from refuge_map.sweep.manifest import MANIFEST

BASE: dict[str, Any] = {
    "name": "small",
    "dt_s": 300,
    "horizon_h": 12,
    "generate": {"n": 3},
}


def write_sweep(folder: Path, **fields: Any) -> Path:
    """A small sweep file: escorts x what the avenger knows x 2 sampled delays, 2 replications
    (16 runs)."""
    sweep = {
        "name": "small",
        "seed": 5,
        "replications": 2,
        "batch_runs": 2,
        "base": BASE,
        "axes": {
            "grid": {
                "escorts.enabled": [False, True],
                "avenger.knows": ["sees_him", "destination"],
            },
            "lhs": {"avenger.delay_h.median": {"low": 0.2, "high": 4.0}},
            "samples": 2,
        },
    } | fields
    path = folder / "sweep.yaml"
    path.write_text(yaml.safe_dump(sweep))
    return path


@pytest.fixture(scope="module")
def serial_result(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small sweep run serially, uninterrupted."""
    folder = tmp_path_factory.mktemp("serial")
    spec = load_sweep(write_sweep(folder))
    run_sweep(spec, folder / "out", backend=open_backend(serial_run=True))
    return folder / "out"


def runs_of(out: Path) -> pd.DataFrame:
    return pd.read_parquet(out / "runs.parquet")


def test_runs_table_has_a_row_per_run(serial_result: Path) -> None:
    runs = runs_of(serial_result)
    assert len(runs) == 16 and (runs["status"] == "done").all()
    assert list(runs["run"]) == list(range(16))
    assert {"seed", "scenario_hash", "version", "escorts.enabled", "p_arrival"} <= set(runs)
    tracks = gpd.read_parquet(serial_result / runs.loc[0, "part"])
    assert tracks.crs.to_epsg() == 4326
    assert set(tracks["run"]) == {0, 1}  # two runs a batch


@pytest.mark.slow
def test_dask_cluster_gives_the_serial_rows(serial_result: Path, tmp_path: Path) -> None:
    # In a process of its own, as a user runs it: a cluster started in the test's process
    # leaves distributed's threads there (its offload executor's, for good), and every later
    # test of a forked child in that worker would find them (tests/conftest.py `can_fork`).
    refuge = Path(sys.executable).with_name("refuge")  # the console script beside this Python
    sweep, out = write_sweep(tmp_path), tmp_path / "out"
    done = subprocess.run(
        [refuge, "sweep", sweep, "--out", out, "--workers", "2"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "16 runs" in done.stdout
    pd.testing.assert_frame_equal(runs_of(out), runs_of(serial_result))


def _recorded_runs(out: Path) -> int:
    path = out / MANIFEST
    return path.read_text().count('"kind": "run"') if path.exists() else 0


def _wait_for(condition: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


#: The kill test's sweep: 64 runs, one a batch, so that the kill lands while most are to do.
LONG = {"replications": 8, "batch_runs": 1, "base": BASE | {"generate": {"n": 8}}}


@pytest.mark.slow
def test_kill_9_then_resume_equals_an_uninterrupted_sweep(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    uninterrupted = tmp_path / "serial"
    uninterrupted.mkdir()
    spec = load_sweep(write_sweep(uninterrupted, **LONG))
    run_sweep(spec, uninterrupted / "out", backend=open_backend(serial_run=True))
    sweep, out = write_sweep(tmp_path, **LONG), tmp_path / "out"
    refuge = Path(sys.executable).with_name("refuge")  # the console script beside this Python
    with (tmp_path / "stderr.txt").open("w") as stderr:
        process = subprocess.Popen(
            [refuge, "sweep", sweep, "--out", out, "--workers", "2"],
            start_new_session=True,  # its own process group: the kill takes the workers too
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        try:
            _wait_for(lambda: _recorded_runs(out) >= 2 or process.poll() is not None, 60)
        finally:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert 2 <= _recorded_runs(out) < 64, (tmp_path / "stderr.txt").read_text()
    result = run_cli("sweep", sweep, "--out", out, "--serial", "--resume")
    assert result.code == 0, result.err
    assert "64 runs" in result.out
    pd.testing.assert_frame_equal(runs_of(out), runs_of(uninterrupted / "out"))
    assert _recorded_runs(out) == 64  # none recorded twice
    parts = sorted(p.name for p in (out / "parts").iterdir())
    assert parts == sorted(p.name for p in (uninterrupted / "out" / "parts").iterdir())


def test_report_writes_tables_and_plots(serial_result: Path, run_cli: Callable[..., Any]) -> None:
    result = run_cli("sweep", "report", serial_result)
    assert result.code == 0, result.err
    report = serial_result / "report"
    table = pd.read_csv(report / "escorts.enabled.csv")
    assert list(table["escorts.enabled"]) == [False, True]
    assert (table["p_arrival_low"] <= table["p_arrival"]).all()
    assert (report / "avenger.delay_h.median.png").read_bytes()[:4] == b"\x89PNG"
    assert write_report(serial_result)[0].name == "summary.csv"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"axes": {"grid": {"avenger.colour": ["red"]}}}, "unknown axis"),
        (
            {"axes": {"lhs": {"avenger.delay_h.median": {"low": 2, "high": 1}}, "samples": 2}},
            "empty range",
        ),
        ({"replications": 0}, "replications"),
    ],
)
def test_bad_sweep_files_exit_2_with_one_line(
    tmp_path: Path, run_cli: Callable[..., Any], fields: dict[str, Any], message: str
) -> None:
    result = run_cli("sweep", write_sweep(tmp_path, **fields), "--out", tmp_path / "out")
    assert result.code == 2
    assert message in result.err and result.err.count("\n") == 1


def test_unreachable_cluster_exits_2_with_one_line(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    args = ("sweep", write_sweep(tmp_path), "--out", tmp_path / "out")
    result = run_cli(*args, "--cluster", "tcp://127.0.0.1:9")
    assert result.code == 2
    assert "cannot reach the Dask cluster" in result.err and result.err.count("\n") == 1


def test_another_sweeps_folder_is_refused(
    serial_result: Path, tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    other = write_sweep(tmp_path, seed=6)
    result = run_cli("sweep", other, "--out", serial_result, "--serial", "--resume")
    assert result.code == 2
    assert "another sweep's manifest" in result.err and result.err.count("\n") == 1


def test_without_dask_the_error_is_one_line(
    tmp_path: Path, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "distributed" else find_spec(name)
    )
    result = run_cli("sweep", write_sweep(tmp_path), "--out", tmp_path / "out")
    assert result.code == 2
    assert "pip install 'refuge-map[sweep]'" in result.err and result.err.count("\n") == 1
