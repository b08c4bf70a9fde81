"""Faults: kill -9 of a run and of a sweep at several points, a sweep on a real Dask cluster
(scheduler and two workers started in other working directories, one killed mid-sweep), and a
full disk. After each, nothing half-written is visible, no temporary file stays behind a
finished command, and a user's files are untouched."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from test_sweep_run import LONG, runs_of, write_sweep

from refuge_map._atomic import MARKER
from refuge_map.simulation.io import REPLICATIONS_FILE, RUN_FILES
from refuge_map.sweep import load_sweep, open_backend, run_sweep
from refuge_map.sweep.manifest import MANIFEST

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "data" / "scenarios" / "tiny.yaml"
BIN = Path(sys.executable).parent


def _temporaries(folder: Path) -> list[str]:
    """Every temporary name the atomic writers make (``.NAME.XXXXXXXX.part...``, ``.old``)."""
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob(".*")
        if ".part" in p.name or p.name.endswith(".old")
    )


def _wait_for(condition: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _recorded(out: Path) -> int:
    path = out / MANIFEST
    return path.read_text().count('"kind": "run"') if path.exists() else 0


@pytest.mark.slow
@pytest.mark.parametrize("after_s", [0.3, 1.5, 4.0])
def test_kill_9_of_a_run_leaves_the_old_output_or_the_new_one(
    tmp_path: Path, after_s: float, run_cli: Callable[..., Any]
) -> None:
    out = tmp_path / "out"
    assert run_cli("run", TINY, "--out", out, "--seed", "1").code == 0
    before = {name: (out / name).read_bytes() for name in RUN_FILES}
    (tmp_path / "thesis.txt").write_text("a user's file beside the output\n")
    process = subprocess.Popen(
        [BIN / "refuge", "run", TINY, "--out", out, "--seed", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(after_s)
    process.send_signal(signal.SIGKILL)
    process.wait()
    now = {name: (out / name).read_bytes() for name in RUN_FILES}
    summary = json.loads(now["summary.json"])
    assert now == before or summary["seed"] == 2  # the old run whole, or the new one whole
    assert (tmp_path / "thesis.txt").read_text() == "a user's file beside the output\n"
    result = run_cli("run", TINY, "--out", out, "--seed", "2")
    assert result.code == 0, result.err
    assert _temporaries(tmp_path) == []  # the next write cleared what the kill left


@pytest.mark.slow
def test_kill_9_of_a_sweep_then_resume_leaves_no_temporary_file(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    sweep, out = write_sweep(tmp_path, **LONG), tmp_path / "out"
    process = subprocess.Popen(
        [BIN / "refuge", "sweep", sweep, "--out", out, "--serial"],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(lambda: _recorded(out) >= 3 or process.poll() is not None, 120)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert 3 <= _recorded(out) < 64
    # a torn write as a kill leaves it: a half-written runs table and part file
    (out / ".runs.abcdefgh.part.parquet").write_bytes(b"PAR1 torn")
    (out / "parts" / ".tracks-00009.abcdefgh.part.parquet").write_bytes(b"PAR1 torn")
    result = run_cli("sweep", sweep, "--out", out, "--serial", "--resume")
    assert result.code == 0, result.err
    assert len(runs_of(out)) == 64 and _recorded(out) == 64
    assert _temporaries(out) == []


def _scheduler_address(scheduler_file: Path) -> str | None:
    """The address in a scheduler file, None until the scheduler has written it whole (dask
    writes it in place: a reader may find it there but empty, or half written)."""
    try:
        return str(json.loads(scheduler_file.read_text())["address"])
    except (OSError, ValueError, KeyError):
        return None


def _start(args: list[str | Path], cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    cwd.mkdir(parents=True, exist_ok=True)
    with log.open("w") as stream:
        return subprocess.Popen(
            [str(a) for a in args],
            cwd=cwd,
            stdout=stream,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


@pytest.fixture
def real_cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]], Path]]:
    """A `dask scheduler` and two `dask worker` processes, each in its own working directory
    (none of them the test's); yields the address, the workers and the folder."""
    pytest.importorskip("distributed")
    dask = BIN / "dask"
    scheduler_file = tmp_path / "scheduler.json"
    scheduler = _start(
        [
            dask,
            "scheduler",
            "--scheduler-file",
            scheduler_file,
            "--port",
            "0",
            "--dashboard-address",
            ":0",
            "--no-show",
        ],
        tmp_path / "scheduler-cwd",
        tmp_path / "scheduler.log",
    )
    workers: list[subprocess.Popen[bytes]] = []
    try:
        _wait_for(lambda: _scheduler_address(scheduler_file) is not None, 60)
        address = str(_scheduler_address(scheduler_file))
        for i in (1, 2):
            workers.append(
                _start(
                    [dask, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"],
                    tmp_path / f"worker{i}-cwd",
                    tmp_path / f"worker{i}.log",
                )
            )
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address, workers, tmp_path
    finally:
        for process in [*workers, scheduler]:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.mark.slow
def test_a_sweep_on_a_real_cluster_writes_where_the_user_asked(
    real_cluster: tuple[str, list[subprocess.Popen[bytes]], Path],
    run_cli: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    address, workers, folder = real_cluster
    serial = folder / "serial"
    serial.mkdir()
    run_sweep(
        load_sweep(write_sweep(serial, **LONG)),
        serial / "out",
        backend=open_backend(serial_run=True),
    )
    client_cwd = folder / "client-cwd"
    client_cwd.mkdir()
    sweep = write_sweep(client_cwd, **LONG)
    monkeypatch.chdir(client_cwd)
    process = subprocess.Popen(
        [BIN / "refuge", "sweep", sweep.name, "--out", "relative/out", "--cluster", address],
        cwd=client_cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out = client_cwd / "relative" / "out"
    _wait_for(lambda: _recorded(out) >= 2 or process.poll() is not None, 120)
    os.kill(workers[0].pid, signal.SIGKILL)  # a worker dies mid-sweep; the other finishes it
    stdout, stderr = process.communicate(timeout=600)
    assert process.returncode == 0, stderr
    assert "64 runs" in stdout
    pd.testing.assert_frame_equal(runs_of(out), runs_of(serial / "out"))
    assert sorted(p.name for p in (out / "parts").iterdir()) == sorted(
        p.name for p in (serial / "out" / "parts").iterdir()
    )
    for i in (1, 2):  # nothing under the workers' own working directories
        assert list((folder / f"worker{i}-cwd").rglob("*.parquet")) == []
    assert _temporaries(out) == []


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs, where this machine lets the tests mount one (skipped otherwise)."""
    mount = tmp_path / "small-disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:  # lazily: a library may still hold a file of it open until collected
        subprocess.run(["umount", "-l", str(mount)], check=True)


def test_a_full_disk_is_one_line_and_leaves_nothing(
    full_disk: Path, run_cli: Callable[..., Any]
) -> None:
    (full_disk / "mine.txt").write_text("a user's file\n")
    scenario = yaml.safe_load(TINY.read_text()) | {"dt_s": 10}
    (full_disk.parent / "s.yaml").write_text(yaml.safe_dump(scenario))
    result = run_cli("run", full_disk.parent / "s.yaml", "--out", full_disk / "out")
    assert result.code == 2
    lines = result.err.splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0], result.err
    assert sorted(p.name for p in full_disk.iterdir()) == ["mine.txt"]
    assert (full_disk / "mine.txt").read_text() == "a user's file\n"


def test_a_full_disk_under_gdal_is_one_line_naming_the_file(
    full_disk: Path, run_cli: Callable[..., Any]
) -> None:
    # GDAL's SQLite says "no such table: gpkg_contents" when the disk fills, in pyogrio's
    # FeatureError, not an OSError: without `refuge_map.io.gdal_writing`, a traceback (exit 1)
    (full_disk / "mine.txt").write_text("a user's file\n")
    result = run_cli("layers", "--out", full_disk / "layers.gpkg")
    assert (result.code, result.err) == (
        2,
        f"refuge: error: {full_disk / 'layers.gpkg'}: No space left on device\n",
    )
    assert sorted(p.name for p in full_disk.iterdir()) == ["mine.txt"]


def test_the_marker_lists_what_the_package_wrote(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    assert run_cli("run", TINY, "--out", out).code == 0
    marker = json.loads((out / MARKER).read_text())
    assert marker["written_by"] == "refuge-map"
    assert sorted(marker["files"]) == sorted([*RUN_FILES, REPLICATIONS_FILE])
    shutil.copy(out / "summary.json", tmp_path / "keep.json")
    (out / MARKER).unlink()  # without its marker, the folder is no longer the package's
    result = run_cli("run", TINY, "--out", out)
    assert result.code == 2 and "did not write" in result.err
    assert (out / "summary.json").read_bytes() == (tmp_path / "keep.json").read_bytes()
