"""How the benchmarks time: wall and CPU seconds side by side, medians, and the machine's load.

A figure is a pair (wall, CPU): the wall clock says what a user waits, the CPU time is what a
shared machine inflates less. A benchmark imports these as ``from _timing import ...`` (run as
``python benchmarks/bench_x.py``, its folder is on the path).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

Seconds = tuple[float, float]  # wall, CPU
T = TypeVar("T")


def clock(fn: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, Seconds]:
    """The result of ``fn(*args, **kwargs)`` and the wall and CPU seconds of the call.

    The CPU seconds are this process's (`time.process_time`: its threads, not its children).
    """
    start, cpu = time.perf_counter(), time.process_time()
    result = fn(*args, **kwargs)
    return result, (time.perf_counter() - start, time.process_time() - cpu)


def median(figures: Iterable[Seconds]) -> Seconds:
    """The median wall and the median CPU figure of (wall, CPU) pairs, each taken separately
    (seconds or rates alike).

    Raises
    ------
    statistics.StatisticsError
        If there are no figures.
    """
    pairs = list(figures)
    return statistics.median(w for w, _ in pairs), statistics.median(c for _, c in pairs)


def repeated(fn: Callable[[], T], repeats: int) -> tuple[T, Seconds]:
    """The last result of `repeats` calls of `fn` and the median wall and CPU seconds of a call."""
    runs = [clock(fn) for _ in range(repeats)]
    return runs[-1][0], median(seconds for _, seconds in runs)


def command(
    args: Sequence[str], *, check: bool = True, cwd: Path | str | None = None
) -> tuple[subprocess.CompletedProcess[str], Seconds]:
    """Run a command to its end: what it did (its output captured as text) and its wall and CPU
    seconds, the CPU of the command and of every process it waited for (user + system).

    Raises
    ------
    subprocess.CalledProcessError
        If `check` and the command exits with another status than 0.
    """
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, check=check, cwd=cwd)
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, (wall, cpu)


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes), to print beside the figures."""
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())
