"""Where a sweep's tasks run: in this process (serial, for debugging) or on a Dask cluster."""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from refuge_map.errors import RefugeError

#: How long to wait for an existing cluster to answer, seconds.
CONNECT_TIMEOUT_S = 3.0


class Backend(Protocol):
    """Runs tasks and yields their results as they finish (in any order)."""

    name: str
    dashboard: str | None
    workers: int

    def run_on_workers(self, fn: Callable[..., Any], *args: Any) -> None:
        """Call `fn(*args)` once in every worker process."""

    def map_unordered(self, fn: Callable[[Any], Any], tasks: list[Any]) -> Iterator[Any]:
        """``fn(task)`` for every task, yielded as each finishes."""


class SerialBackend:
    """Every task in this process, one after the other (for debugging and for tests)."""

    name = "serial"
    dashboard = None
    workers = 1

    def run_on_workers(self, fn: Callable[..., Any], *args: Any) -> None:
        """Call `fn(*args)` here."""
        fn(*args)

    def map_unordered(self, fn: Callable[[Any], Any], tasks: list[Any]) -> Iterator[Any]:
        """``fn(task)`` for each task in order."""
        return map(fn, tasks)


class DaskBackend:
    """Tasks on a `distributed.Client`: a LocalCluster of worker processes, or a cluster
    reached at an address."""

    name = "dask"

    def __init__(self, client: Any) -> None:
        self.client = client
        self.dashboard = _dashboard_link(client)
        self.workers = max(1, len(client.scheduler_info(n_workers=-1)["workers"]))

    def run_on_workers(self, fn: Callable[..., Any], *args: Any) -> None:
        """Call `fn(*args)` once in every worker (`Client.run`)."""
        self.client.run(fn, *args)

    def map_unordered(self, fn: Callable[[Any], Any], tasks: list[Any]) -> Iterator[Any]:
        """Submit every task; yield results in the order they finish."""
        from distributed import as_completed

        futures = self.client.map(fn, tasks, pure=False)
        for future in as_completed(futures):
            yield future.result()
            future.release()


def _dashboard_link(client: Any) -> str | None:
    link = client.dashboard_link
    if importlib.util.find_spec("bokeh") is None:
        return f"{link} (install bokeh to see it)"
    return str(link)


def _require_dask() -> None:
    if importlib.util.find_spec("distributed") is None:
        raise RefugeError(
            "the Dask engine is not installed: pip install 'refuge-map[sweep]' (or use --serial)",
            source="refuge sweep",
        )


#: Dask settings of the workers a `local_cluster` starts, against two costs measured in a
#: sweep's tasks (about a quarter of a batch's CPU time together, in ``bench_sweep.py``'s
#: sweep): the worker's statistical profiler (a sample of every thread's stack each 10 ms; the
#: dashboard's profile page stays empty) and ``MALLOC_TRIM_THRESHOLD_`` (memory handed back to
#: the system after every free, so a flight's arrays are mapped again each step). The
#: one-thread caps of numpy's libraries stay.
LOCAL_WORKER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.nanny.pre-spawn-environ": {
        "OMP_NUM_THREADS": 1,
        "MKL_NUM_THREADS": 1,
        "OPENBLAS_NUM_THREADS": 1,
    },
}


@contextmanager
def local_cluster(workers: int | None = None) -> Iterator[DaskBackend]:
    """A LocalCluster started in this process: one single-threaded worker process per core
    (or `workers`, with `LOCAL_WORKER_CONFIG`), closed on exit; the dashboard on a free port."""
    _require_dask()
    import dask
    from distributed import Client, LocalCluster

    n = workers or os.cpu_count() or 1
    with (
        dask.config.set(LOCAL_WORKER_CONFIG),
        LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        yield DaskBackend(client)


@contextmanager
def remote_cluster(address: str, *, timeout_s: float = CONNECT_TIMEOUT_S) -> Iterator[DaskBackend]:
    """A client of the Dask cluster at `address` (``tcp://host:8786``).

    Raises
    ------
    RefugeError
        If the scheduler does not answer within `timeout_s`.
    """
    _require_dask()
    from distributed import Client

    class StoppingClient(Client):
        """A Client that stops its IO loop's thread when it cannot connect: distributed's
        leaves it running for the rest of the process (2026.8: the failed start marks the
        client closed, and `Client.close` then returns at once), which in a test's process
        or a notebook's denies every later forked child (`refuge_map._aside.can_fork`)."""

        def start(self, **kwargs: Any) -> None:
            try:
                super().start(**kwargs)
            except BaseException:
                self._loop_runner.stop()  # (private: the only handle on that thread)
                raise

    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # the one-line error below says it all
    try:
        client = StoppingClient(address, timeout=f"{timeout_s}s")
    except (OSError, TimeoutError, ValueError) as err:
        raise RefugeError(
            f"cannot reach the Dask cluster: {str(err).splitlines()[0]}",
            source="--cluster",
            value=address,
        ) from None
    finally:
        quiet.setLevel(level)
    with client:
        yield DaskBackend(client)


@contextmanager
def serial() -> Iterator[SerialBackend]:
    """The serial backend (nothing to start or close)."""
    yield SerialBackend()


def open_backend(
    *, workers: int | None = None, cluster: str | None = None, serial_run: bool = False
) -> Any:
    """The backend the options ask for, as a context manager.

    Parameters
    ----------
    workers
        Local worker processes (None: `local_cluster`'s default).
    cluster
        Address of a running dask scheduler to use instead of local workers.
    serial_run
        Run in this process, one run at a time.

    Returns
    -------
    contextlib.AbstractContextManager
        Entering it starts (or reaches) the backend and gives a `Backend`; leaving it stops
        what it started.

    Raises
    ------
    RefugeError
        For conflicting options or a non-positive worker count.
    """
    if sum([workers is not None, cluster is not None, serial_run]) > 1:
        raise RefugeError("give at most one of --workers, --cluster and --serial", source="sweep")
    if workers is not None and workers < 1:
        raise RefugeError("must be at least 1", source="sweep", field="--workers", value=workers)
    if serial_run:
        return serial()
    if cluster is not None:
        return remote_cluster(cluster)
    return local_cluster(workers)
