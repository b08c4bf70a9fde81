"""`refuge_map._aside`: work done in a forked child while the command goes on."""

from __future__ import annotations

import faulthandler
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from refuge_map import _aside
from refuge_map._aside import aside
from refuge_map._atomic import atomic_file
from refuge_map._signals import Interrupted
from refuge_map.errors import RefugeError

TINY = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "tiny.yaml"

forks = pytest.mark.usefixtures("can_fork")  # tests/conftest.py


@pytest.fixture(autouse=True)
def _a_spare_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """A core is spare, whatever the machine's load while the suite runs."""
    monkeypatch.setattr(_aside, "spare_core", lambda: True)


def _drawing(target: Path) -> Callable[[], Path]:
    """Work that writes `target` ("drawn") and returns its path."""

    def draw() -> Path:
        target.write_text("drawn", encoding="utf-8")
        return target

    return draw


@forks
def test_the_work_is_done_in_a_child_and_its_result_comes_back() -> None:
    with aside(os.getpid) as pending:
        assert pending.result() != os.getpid()


@forks
def test_a_file_the_child_writes_is_there_once_the_result_is(tmp_path: Path) -> None:
    target = tmp_path / "drawn.txt"
    draw = _drawing(target)
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
    work = _drawing(target)
    with pytest.raises(KeyError), aside(work, prepare=lambda: None):
        raise KeyError("the run failed")
    assert not target.exists()


def test_without_a_spare_core_the_work_is_done_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_aside, "spare_core", lambda: False)
    with aside(os.getpid) as pending:
        assert pending.result() == os.getpid()


@forks
def test_a_core_said_to_be_spare_gets_a_child_whatever_the_load(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_aside, "spare_core", lambda: False)
    with aside(os.getpid, spare=True) as pending:
        assert pending.result() != os.getpid()


def test_a_core_said_not_to_be_spare_gets_no_child() -> None:
    with aside(os.getpid, spare=False) as pending:
        assert pending.result() == os.getpid()


@forks
def test_a_child_started_later_is_forked_then_and_once(tmp_path: Path) -> None:
    written = tmp_path / "written.txt"  # written here before the child is started: it sees it

    def work() -> tuple[int, str]:
        return os.getpid(), written.read_text(encoding="utf-8")

    with aside(work, later=True) as pending:
        assert pending._pid is None  # not yet forked
        written.write_text("the kernels loaded", encoding="utf-8")
        pending.start()
        child = pending._pid
        pending.start()
        assert child is not None and pending._pid == child
        assert pending.result() == (child, "the kernels loaded")


def test_a_child_never_started_does_its_work_here_and_cannot_start_after() -> None:
    with aside(os.getpid, later=True) as pending:
        assert pending.result() == os.getpid()
        pending.start()
        assert pending._pid is None


def test_with_other_threads_running_no_child_can_be_forked() -> None:
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not _aside.can_fork()
    finally:
        release.set()
        other.join()
    assert _aside.can_fork() == (hasattr(os, "fork") and threading.active_count() == 1)


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


#: `refuge demo` in a process of its own (children only where no other thread runs), a core
#: spare or not; each child it starts is told on stderr.
DEMO = """\
import sys
from refuge_map import _aside
from refuge_map.console import script
start = _aside.Aside._start
def told(self, prepare):
    start(self, prepare)
    if self._pid is not None:
        sys.stderr.write("CHILD\\n")
_aside.Aside._start = told
_aside.spare_core = lambda: {spare}
sys.argv = ["refuge", "demo", "--out", {out!r}, "--scenario", {scenario!r}]
script()
"""


def _demo(out: Path, *, spare: bool) -> tuple[str, int]:
    """What `refuge demo` of the tiny scenario prints into `out`, and how many children."""
    probe = DEMO.format(spare=spare, out=str(out), scenario=str(TINY))
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd="/"
    )
    return done.stdout.replace(str(out), "OUT"), done.stderr.count("CHILD")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: the work is always done here")
def test_the_demo_writes_and_prints_the_same_with_children_and_without(tmp_path: Path) -> None:
    aside_out, here_out = tmp_path / "aside", tmp_path / "here"
    printed, children = _demo(aside_out, spare=True)
    assert children == 2  # the HTML map; the GeoPackage, then the PNG
    assert (printed, 0) == _demo(here_out, spare=False)
    files = sorted(p.relative_to(aside_out) for p in aside_out.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(here_out) for p in here_out.rglob("*") if p.is_file())
    assert {"map.html", "map.png", "network.gpkg"} <= {str(f) for f in files}
    for name in files:
        assert (aside_out / name).read_bytes() == (here_out / name).read_bytes(), name


#: `refuge demo` whose run fails (bad input) while its children work or wait; then whether
#: each child it started is still to be reaped (none should be: the command waited for it).
FAILING_DEMO = """\
import os, sys
import refuge_map.simulation
from refuge_map import _aside
from refuge_map.cli import main
from refuge_map.errors import RefugeError
children = []
start = _aside.Aside._start
def told(self, prepare):
    start(self, prepare)
    if self._pid is not None:
        children.append(self._pid)
_aside.Aside._start = told
_aside.spare_core = lambda: True
def fails(scenario, *args, **kwargs):
    raise RefugeError("no run today", source="replications")
refuge_map.simulation.replicate = fails
try:
    main(["demo", "--out", {out!r}, "--scenario", {scenario!r}])
except SystemExit as stop:
    left = []
    for pid in children:
        try:
            left.append(os.waitpid(pid, os.WNOHANG))
        except ChildProcessError:
            pass
    print(f"CHILDREN {{len(children)}} LEFT {{len(left)}} CODE {{stop.code}}")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: the work is always done here")
def test_a_demo_whose_run_fails_says_so_once_and_leaves_no_child_nor_map(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    probe = FAILING_DEMO.format(out=str(out), scenario=str(TINY))
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd="/"
    )
    assert done.stdout.splitlines()[-1] == "CHILDREN 2 LEFT 0 CODE 2"
    assert done.stderr.splitlines() == ["refuge: error: replications: no run today"]
    # what the demo wrote before the run (the GeoPackage its child finished), nothing after
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    assert written == [".refuge-map.json", "cities.csv", "network.gpkg"]


@forks
def test_a_child_given_up_leaves_though_a_child_made_after_it_still_waits() -> None:
    # Two children wait to go and are given up in the order they were made (not nested): the
    # second, forked after the first, inherited the first's gate; unless it closed it, the
    # first never sees its gate closed and waits as long as the second does.
    def waited(signum: int, frame: object) -> None:
        raise TimeoutError("a child given up is still waiting for its gate")

    previous = signal.signal(signal.SIGALRM, waited)
    signal.alarm(20)
    first = _aside.Aside(os.getpid, prepare=lambda: None)
    second = _aside.Aside(os.getpid, prepare=lambda: None)
    try:
        assert first._collect() is None  # given up: it left without working
        assert second._collect() is None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        second._collect()
        first._collect()


def _here_or_in_a_child(in_the_child: Callable[[], object]) -> Callable[[], str]:
    """Work that, in a child, does `in_the_child` (dies, hangs...) and, here, says "here"."""
    parent = os.getpid()

    def work() -> str:
        if os.getpid() != parent:
            in_the_child()
        return "here"

    return work


def _reaped(pid: int | None) -> bool:
    """Whether the child `pid` is gone, reaped: no zombie, nothing still running."""
    assert pid is not None
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _segfault() -> None:
    faulthandler.disable()  # the test runner's, inherited: it would print the child's stack
    os.kill(os.getpid(), signal.SIGSEGV)


def _dies_unpickled() -> object:
    return lambda: None  # a result that does not pickle: the child fails to send it


@forks
@pytest.mark.parametrize(
    "death",
    [
        lambda: os._exit(3),
        lambda: os.kill(os.getpid(), signal.SIGKILL),
        _segfault,
        _dies_unpickled,
    ],
    ids=["os._exit", "killed", "segfault", "unpicklable"],
)
def test_a_child_that_dies_has_its_work_done_here(death: Callable[[], object]) -> None:
    with aside(_here_or_in_a_child(death)) as pending:
        child = pending._pid
        assert pending.result() == "here"
    assert _reaped(child)


@forks
def test_a_hung_child_is_stopped_unwinding_and_its_work_done_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_aside, "MIN_PATIENCE_S", 0.2)
    target = tmp_path / "drawn.txt"

    def hangs_writing() -> None:
        with atomic_file(target) as tmp:
            tmp.write_text("half", encoding="utf-8")
            time.sleep(600)

    with aside(_here_or_in_a_child(hangs_writing)) as pending:
        child = pending._pid
        assert pending.result() == "here"
    assert _reaped(child)
    assert list(tmp_path.iterdir()) == []  # told to stop, it removed its temporary file


@forks
def test_a_child_deaf_to_being_told_to_stop_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_aside, "MIN_PATIENCE_S", 0.2)
    monkeypatch.setattr(_aside, "STOP_GRACE_S", 0.2)
    target = tmp_path / "drawn.txt"

    def draw() -> Path:
        with atomic_file(target) as tmp:
            tmp.write_text("here", encoding="utf-8")
        return target

    def stuck_writing() -> None:  # as in a lock of C that never comes: no signal reaches it
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        with atomic_file(target) as tmp:
            tmp.write_text("half", encoding="utf-8")
            time.sleep(600)

    parent = os.getpid()
    with aside(lambda: stuck_writing() if os.getpid() != parent else draw()) as pending:
        child = pending._pid
        assert pending.result() == target
    assert _reaped(child)
    # what the killed child left is removed by the same output written here
    assert [p.name for p in tmp_path.iterdir()] == ["drawn.txt"]
    assert target.read_text(encoding="utf-8") == "here"


def _interrupt_while_its_child_writes(
    folder: Path, interrupt: BaseException, forked: list[int | None]
) -> None:
    """Raise `interrupt` in an `aside` block once its child (its id into `forked`) has begun
    to write a file in `folder`, a work longer than any patience: only being stopped ends it."""

    def works_on() -> None:
        with atomic_file(folder / "drawn.txt") as tmp:
            tmp.write_text("half", encoding="utf-8")
            time.sleep(600)

    with aside(_here_or_in_a_child(works_on)) as pending:
        forked.append(pending._pid)
        while not any(p.name.startswith(".drawn.") for p in folder.iterdir()):
            time.sleep(0.01)  # not yet writing
        raise interrupt


@forks
@pytest.mark.parametrize("interrupt", [KeyboardInterrupt(), Interrupted(signal.SIGTERM)])
def test_an_interrupted_block_stops_its_child_at_once(
    tmp_path: Path, interrupt: BaseException
) -> None:
    forked: list[int | None] = []
    with pytest.raises(type(interrupt)):
        _interrupt_while_its_child_writes(tmp_path, interrupt, forked)
    assert _reaped(forked[0])
    assert list(tmp_path.iterdir()) == []  # nor half its file
