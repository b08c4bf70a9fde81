"""Shared fixtures: the shipped network (loaded once) and a CLI runner."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from geo import RefugeNetwork, load_network
from refuge_map.cli import main


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
def can_fork() -> None:
    """Skip where no child can be forked (`refuge_map._aside.can_fork`): not POSIX, or other
    threads run in this worker when the test starts (an earlier test's may linger; the work
    is then done here, which the fallback tests check). Checked at the test's start, not at
    collection: in a clean clone's random order a thread started between the two."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        pytest.skip("no fork here (not POSIX, or other threads run: the work is done here)")
