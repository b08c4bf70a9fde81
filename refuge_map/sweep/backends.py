"""Where a sweep's tasks run: in this process (serial), on a Dask cluster, or, by default, here
until the runs left are known to be worth a local cluster's start-up (`LocalWhenWorth`)."""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, Protocol

from refuge_map.errors import RefugeError

#: How long to wait for an existing cluster to answer, seconds.
CONNECT_TIMEOUT_S = 3.0
#: What starting a local cluster costs a sweep, seconds: the cluster and its workers'
#: preparation (network and rehearsal, `refuge_map.sweep.worker.prepare_worker`). Measured
#: 3.3-3.9 s for 2 workers on 2 cores (``benchmarks/bench_sweep.py``, its start-up figure); an
#: assumption on other machines, where it ranges over about 2-9 s (the first round measured 3.4-9 s
#: on a loaded machine): a larger value keeps more sweeps in this process.
LOCAL_STARTUP_S = 3.5


class Backend(Protocol):
    """Runs tasks and yields their results as they finish (in any order)."""

    @property
    def name(self) -> str:
        """What runs the tasks: ``serial`` (this process) or ``dask``."""

    @property
    def dashboard(self) -> str | None:
        """The cluster's dashboard address, if any."""

    @property
    def workers(self) -> int:
        """Worker processes."""

    @property
    def note(self) -> str | None:
        """Why the backend is what it is, when it chose (None: as asked)."""

    def run_on_workers(self, fn: Callable[..., Any], *args: Any) -> None:
        """Call `fn(*args)` once in every worker process."""

    def map_unordered(self, fn: Callable[[Any], Any], tasks: list[Any]) -> Iterator[Any]:
        """``fn(task)`` for every task, yielded as each finishes."""

    def fit(self, serial_s: float | None) -> bool:
        """Fit the backend to the runs left, before they are cut into batches: `serial_s`
        seconds of them in one process (None: not measured). True if it changed."""


class _AsAsked:
    """A backend that is what its options asked for: it has nothing to say, nor to fit."""

    note: str | None = None

    def fit(self, serial_s: float | None) -> bool:
        """As asked: no change."""
        return False


class SerialBackend(_AsAsked):
    """Every task in this process, one after the other."""

    name = "serial"
    dashboard: str | None = None
    workers = 1

    def run_on_workers(self, fn: Callable[..., Any], *args: Any) -> None:
        """Call `fn(*args)` here."""
        fn(*args)

    def map_unordered(self, fn: Callable[[Any], Any], tasks: list[Any]) -> Iterator[Any]:
        """``fn(task)`` for each task in order."""
        return map(fn, tasks)


class DaskBackend(_AsAsked):
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


def worth_a_cluster(serial_s: float, workers: int, startup_s: float = LOCAL_STARTUP_S) -> bool:
    """Whether `workers` local worker processes would finish `serial_s` seconds of runs sooner
    than this process alone, their start-up of `startup_s` included."""
    return workers > 1 and serial_s * (1 - 1 / workers) > startup_s


class LocalWhenWorth:
    """The default backend: the workers' preparation and the pilot in this process; then,
    once the runs left are costed (`fit`), a local cluster (`local_cluster`) only if it would
    finish them sooner than this process, its start-up included (`worth_a_cluster`). A sweep
    of a few seconds is then not made to wait for a cluster that saves less than it costs.

    Parameters
    ----------
    stack
        Where the cluster, once started, is entered (it is closed with the stack).
    workers
        The cluster's worker processes.
    """

    def __init__(self, stack: ExitStack, workers: int) -> None:
        self._stack = stack
        self._workers = workers
        self._here = SerialBackend()
        self._engine: Backend = self._here
        # what was run on "every worker" here, to run again on the cluster's workers
        self._prepared: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        self.note: str | None = (
            f"the pilot here; then a local cluster of {workers} worker(s) only if the runs "
            f"left are worth its start-up"
        )

    @property
    def name(self) -> str:
        """The backend in use."""
        return self._engine.name

    @property
    def dashboard(self) -> str | None:
        """The cluster's dashboard, once started."""
        return self._engine.dashboard

    @property
    def workers(self) -> int:
        """Worker processes in use (1 in this process)."""
        return self._engine.workers

    def run_on_workers(self, fn: Callable[..., Any], *args: Any) -> None:
        """Call `fn(*args)` here, and on the cluster's workers if it is started later."""
        self._prepared.append((fn, args))
        self._engine.run_on_workers(fn, *args)

    def map_unordered(self, fn: Callable[[Any], Any], tasks: list[Any]) -> Iterator[Any]:
        """``fn(task)`` for every task, here or on the cluster."""
        return self._engine.map_unordered(fn, tasks)

    def fit(self, serial_s: float | None) -> bool:
        """Start the local cluster (once) unless `serial_s`, measured, says it is not worth it;
        True if the backend or its note changed."""
        if self._engine is not self._here:
            return False
        if serial_s is not None and not worth_a_cluster(serial_s, self._workers):
            self.note = (
                f"the runs left take about {serial_s:.1f} s here; a local cluster of "
                f"{self._workers} worker(s) would save less than its start-up costs (about "
                f"{LOCAL_STARTUP_S:g} s); --workers N to use one anyway"
            )
            return True
        cluster = self._stack.enter_context(local_cluster(self._workers))
        for fn, args in self._prepared:
            cluster.run_on_workers(fn, *args)
        self._engine, self.note = cluster, None
        return True


@contextmanager
def local_when_worth(workers: int | None = None) -> Iterator[LocalWhenWorth]:
    """The default backend (`LocalWhenWorth`) of `workers` (default: one per core); the
    cluster it may start is closed on exit."""
    _require_dask()  # asked for up front, not only once the runs prove worth a cluster
    with ExitStack() as stack:
        yield LocalWhenWorth(stack, workers or os.cpu_count() or 1)


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
        Local worker processes of a cluster started at once (None: the default,
        `local_when_worth`: the pilot here, then a cluster of one worker per core only if
        the runs left are worth its start-up).
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
    if workers is not None:
        return local_cluster(workers)
    return local_when_worth()
