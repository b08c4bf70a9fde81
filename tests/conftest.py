"""Shared fixtures: the shipped network (loaded once) and a CLI runner."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from geo import RefugeNetwork, load_network
from geo._cache import CACHE_ENV
from refuge_map.cli import main


@pytest.fixture(scope="session", autouse=True)
def network_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The network cache (`geo._cache`) of this session (each xdist worker its own): no test
    writes to the user's ``~/.cache``, and the commands a test starts as subprocesses inherit
    it. Nothing here needs a cold build; a test that does sets its own folder or ``off``."""
    folder = tmp_path_factory.mktemp("network-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(folder))
        yield folder


@pytest.fixture(scope="session")
def network() -> RefugeNetwork:
    """The network on the shipped data with the default options."""
    return load_network()


@dataclass
class CliResult:
    """Exit code and captured output of one `refuge` invocation."""

    code: int
    out: str
    err: str


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliResult]:
    """Run `refuge ARGS...` in-process through `main`, as the console script does."""

    def run(*args: str | Sequence[str]) -> CliResult:
        capsys.readouterr()
        with pytest.raises(SystemExit) as stop:
            main([str(a) for a in args])
        captured = capsys.readouterr()
        return CliResult(int(stop.value.code or 0), captured.out, captured.err)

    return run


@pytest.fixture
def forked_pids(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pids of the children `refuge_map._aside` forks during the test, in order."""
    from refuge_map import _aside

    pids: list[int] = []
    start = _aside.Aside._start

    def counted(self: Any, prepare: Any) -> None:
        start(self, prepare)
        if self._pid is not None:
            pids.append(self._pid)

    monkeypatch.setattr(_aside.Aside, "_start", counted)
    return pids


@pytest.fixture
def can_fork() -> None:
    """For a test of a forked child: skipped where there is no fork (not POSIX); failed where
    another thread runs when the test starts (`refuge_map._aside.can_fork` would refuse the
    child, and the test would check nothing). Such a thread was left by an earlier test in
    this worker: the failure names it; stop it where that test starts it."""
    if not hasattr(os, "fork"):
        pytest.skip("no fork here (not POSIX): the work is always done here")
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if others:
        named = ", ".join(f"{t.name} ({getattr(t, '_target', None)})" for t in others)
        pytest.fail(f"an earlier test left threads running, so no child can be forked: {named}")
