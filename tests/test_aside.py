"""`refuge_map.cli._aside`: work done in a forked child while the command goes on."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from refuge_map.cli import _aside
from refuge_map.cli._aside import aside
from refuge_map.errors import RefugeError

forks = pytest.mark.skipif(
    not hasattr(os, "fork") or threading.active_count() > 1,
    reason="no fork here (not POSIX, or other threads run: the work is then done here)",
)


@pytest.fixture(autouse=True)
def _a_spare_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """A core is spare, whatever the machine's load while the suite runs."""
    monkeypatch.setattr(_aside, "spare_core", lambda: True)


@forks
def test_the_work_is_done_in_a_child_and_its_result_comes_back() -> None:
    with aside(os.getpid) as pending:
        assert pending.result() != os.getpid()


@forks
def test_a_file_the_child_writes_is_there_once_the_result_is(tmp_path: Path) -> None:
    target = tmp_path / "drawn.txt"

    def draw() -> Path:
        target.write_text("drawn", encoding="utf-8")
        return target

    with aside(draw) as pending:
        assert pending.result() == target
    assert target.read_text(encoding="utf-8") == "drawn"


def test_work_that_fails_raises_its_error_here() -> None:
    def fail() -> None:
        raise RefugeError("cannot draw", source="map.png")

    with aside(fail) as pending, pytest.raises(RefugeError, match="cannot draw"):
        pending.result()


def test_with_other_threads_running_the_work_is_done_here() -> None:
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        with aside(os.getpid) as pending:
            assert pending.result() == os.getpid()
    finally:
        release.set()
        other.join()


@forks
def test_leaving_the_block_by_an_error_waits_for_the_child(tmp_path: Path) -> None:
    target = tmp_path / "late.txt"

    def slow_draw() -> Path:
        import time

        time.sleep(0.2)
        target.write_text("done", encoding="utf-8")
        return target

    with pytest.raises(KeyError), aside(slow_draw):
        raise KeyError("the map failed")
    assert target.read_text(encoding="utf-8") == "done"  # the child finished before we left


@forks
def test_a_prepared_child_works_only_once_told_to_go_on(tmp_path: Path) -> None:
    written = tmp_path / "written.txt"  # what the work reads, written here after the fork
    prepared = tmp_path / "prepared.txt"

    def prepare() -> None:
        prepared.write_text("ready", encoding="utf-8")

    def work() -> str:
        return written.read_text(encoding="utf-8")

    with aside(work, prepare=prepare) as pending:
        written.write_text("the run's files", encoding="utf-8")
        pending.go()
        assert pending.result() == "the run's files"
    assert prepared.read_text(encoding="utf-8") == "ready"


@forks
def test_a_prepared_child_never_told_to_go_on_does_no_work(tmp_path: Path) -> None:
    target = tmp_path / "drawn.txt"

    def work() -> Path:
        target.write_text("drawn", encoding="utf-8")
        return target

    with pytest.raises(KeyError), aside(work, prepare=lambda: None):
        raise KeyError("the run failed")
    assert not target.exists()


def test_without_a_spare_core_the_work_is_done_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_aside, "spare_core", lambda: False)
    with aside(os.getpid) as pending:
        assert pending.result() == os.getpid()


def test_where_no_child_can_be_forked_the_work_is_done_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")  # fork's EAGAIN

    monkeypatch.setattr(os, "fork", refused)
    opened = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    with aside(os.getpid, prepare=lambda: None) as pending:
        assert pending.result() == os.getpid()
    if opened is not None:  # the pipes made for the child are closed again
        assert len(os.listdir("/proc/self/fd")) == opened
