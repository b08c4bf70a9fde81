"""`refuge_map._signals`: Ctrl-C and SIGTERM stop a command cleanly: one line, exit 128 + the
signal's number, every child stopped and reaped, nothing half-written left in ``--out``."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import pytest

from refuge_map import _signals
from refuge_map._atomic import MARKER
from refuge_map.simulation.io import RUN_FILES

TINY = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "tiny.yaml"

posix = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork nor POSIX signals here")


@pytest.fixture
def handlers() -> Iterator[None]:
    """The signal handlers of this process as they were, once the test is done."""
    before = {signum: signal.getsignal(signum) for signum in _signals.STOPPING}
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)


@posix
def test_the_first_signal_raises_interrupted_and_a_second_meets_what_was_asked(
    handlers: None,
) -> None:
    _signals.stop_on_signals(then=signal.SIG_IGN)
    with pytest.raises(_signals.Interrupted) as stopped:
        os.kill(os.getpid(), signal.SIGTERM)
    assert (str(stopped.value), stopped.value.exit_code) == ("terminated", 143)
    os.kill(os.getpid(), signal.SIGINT)  # ignored: the first one is unwinding
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN


@posix
def test_a_signal_held_comes_once_released(handlers: None) -> None:
    _signals.stop_on_signals()
    held = _signals.hold()
    try:  # to this thread: another (of C: the test runner's) would take one to the process
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
    finally:
        with pytest.raises(_signals.Interrupted) as stopped:
            _signals.release(held)
    assert (str(stopped.value), stopped.value.exit_code) == ("interrupted", 130)


#: A process's handlers, told to stop twice at once (a forked child: a terminal's Ctrl-C and
#: its parent's SIGTERM; a command: a Ctrl-C and a supervisor's SIGTERM; both pending before
#: the first handler runs): it unwinds from the first only.
TOLD_TWICE = """\
import os, signal
from refuge_map import _signals
_signals.stop_on_signals(then={then})
held = _signals.hold()
os.kill(os.getpid(), signal.SIGINT)
os.kill(os.getpid(), signal.SIGTERM)
try:
    _signals.release(held)
except _signals.Interrupted as stop:
    unwound = [step for step in range(1000)]  # the unwinding, while the second is handled
    print(stop, len(unwound))
"""


@posix
@pytest.mark.parametrize(
    "then",
    [
        "_signals.unheeded",  # what `_aside` sets in its children
        "None",  # what the console script sets: `_signals.insisting`
    ],
)
def test_a_process_told_to_stop_twice_at_once_unwinds_quietly(then: str) -> None:
    told = subprocess.run(
        [sys.executable, "-c", TOLD_TWICE.format(then=then)], capture_output=True, text=True
    )
    # with signal.SIG_IGN or SIG_DFL instead, CPython raises "Signal 15 ignored due to race
    # condition" in the midst of the unwinding, and prints its traceback
    assert (told.returncode, told.stdout, told.stderr) == (0, "interrupted 1000\n", "")


#: A command's handlers, stopped by a signal that comes while a finalizer runs (as llvmlite's
#: run while numba loads a run's kernels), then working on for two seconds.
IN_A_FINALIZER = """\
import os, signal, time
from refuge_map import _signals
_signals.stop_on_signals()
class Finalized:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)  # its handler runs here, in the finalizer
        sum(range(1000))
try:
    Finalized()  # dropped at once: its finalizer runs now
    for _ in range(200):
        time.sleep(0.01)
    print("went on")
except _signals.Interrupted as stop:
    print(stop)
"""


@posix
def test_a_signal_that_comes_in_a_finalizer_stops_the_command_once_it_has_returned() -> None:
    # raised in the finalizer, `Interrupted` was printed as "Exception ignored in" and lost:
    # the command went on to the end (a run's Ctrl-C, exit 0, once in a clean-clone CI)
    told = subprocess.run([sys.executable, "-c", IN_A_FINALIZER], capture_output=True, text=True)
    assert (told.returncode, told.stdout, told.stderr) == (0, "interrupted\n", "")


#: A command's handlers (the console script's), stopped by a first signal, then given a
#: second one at once, and a third one once it has been unwinding for `UNWINDING_S`.
INSISTED = """\
import os, signal
from refuge_map import _signals
_signals.stop_on_signals()
try:
    os.kill(os.getpid(), signal.SIGINT)
except _signals.Interrupted as stop:
    os.kill(os.getpid(), signal.SIGTERM)  # not heeded: the unwinding goes on
    print(stop, flush=True)
    _signals._first_at -= _signals.UNWINDING_S  # as if the unwinding hung that long
    os.kill(os.getpid(), signal.SIGTERM)  # ends the process at once
    print("still there")
"""


@posix
def test_a_second_signal_is_not_heeded_while_a_command_unwinds_but_ends_one_that_hangs() -> None:
    told = subprocess.run([sys.executable, "-c", INSISTED], capture_output=True, text=True)
    assert (told.returncode, told.stdout, told.stderr) == (-signal.SIGTERM, "interrupted\n", "")


#: A command of the console script (`script`, as `refuge` runs it) that says on stderr when it
#: is under way: each child it forks ("CHILD pid"), and the child that works ("WORKING pid"),
#: which then works for ten minutes (the signal comes meanwhile); a core is spare.
UNDER_WAY = """\
import os, sys, time
from refuge_map import _aside
from refuge_map._atomic import atomic_file
from refuge_map.console import script
def say(word, pid):  # in one write: the command and its children say it on one pipe
    os.write(2, f"{{word}} {{pid}}\\n".encode())
start = _aside.Aside._start
def told(self, prepare):
    start(self, prepare)
    if self._pid is not None:
        say("CHILD", self._pid)
_aside.Aside._start = told
_aside.spare_core = lambda: True
def doze():
    # ten minutes in short sleeps, as a child's Python work runs: a signal the system gives to
    # another of its threads (GDAL's, Arrow's: the demo's PNG child has three) trips Python's
    # handler, which runs at the main thread's next bytecode, but wakes no sleep of that thread
    for _ in range(60_000):
        time.sleep(0.01)
def working(path=None):
    # what a child writes when the signal comes: half a file, atomically
    with atomic_file(path or os.path.join({out!r}, "elsewhere.txt")) as tmp:
        tmp.write_text("half")
        say("WORKING", os.getpid())
        doze()
{patch}
sys.argv = ["refuge", *{args!r}]
script()
"""

#: `refuge run`: a child lives the last replications (worth one, here) and works on and on.
RUN = """\
from refuge_map.simulation import model, split
split.MIN_CHILD_AGENT_STEPS = 0
parent, rows = os.getpid(), model.headline_rows
def slow_rows(scenario, seeds):
    if os.getpid() != parent:
        working()
    return rows(scenario, seeds)
model.headline_rows = slow_rows
"""

#: `refuge run` as in `RUN`, its child told to stop twice at once: it holds the signals that
#: stop it (`_signals.hold`) while it works, until the terminal's Ctrl-C and its parent's
#: SIGTERM have both come, then takes them together (as it does when both come while a call
#: of C runs, before its handler can).
TOLD_TWICE_AT_ONCE = """\
import signal
from refuge_map import _signals
def working(path=None):
    out = sys.argv[sys.argv.index("--out") + 1]
    with atomic_file(os.path.join(out, "elsewhere.txt")) as tmp:
        tmp.write_text("half")
        held = _signals.hold()
        say("WORKING", os.getpid())
        while not {signal.SIGINT, signal.SIGTERM} <= signal.sigpending():
            time.sleep(0.01)
        _signals.release(held)
        doze()
"""

#: `refuge run` as in `RUN`, its child slow to unwind (half a second, its half a file still
#: there meanwhile), the command saying when it stops the child ("STOPPING pid").
SLOW_TO_UNWIND = """\
end = _aside._end
def ending(pid):
    say("STOPPING", pid)
    end(pid)
_aside._end = ending
def working(path=None):
    out = sys.argv[sys.argv.index("--out") + 1]
    with atomic_file(os.path.join(out, "elsewhere.txt")) as tmp:
        tmp.write_text("half")
        say("WORKING", os.getpid())
        try:
            doze()
        finally:
            time.sleep(0.5)
"""

#: `refuge demo`: the PNG's child draws on and on, half its file written (its network drawn
#: before the run, the run and the file after: `StaticMapDraft.finish`).
DEMO = """\
from refuge_map.render import static
def slow_png(draft, path, **kwargs):
    working(path)
static.StaticMapDraft.finish = slow_png
"""


def _interrupted(
    tmp_path: Path,
    patch: str,
    args: list[str],
    *,
    signum: int,
    group: bool,
    then: int | None = None,
) -> tuple[int, list[str], list[int]]:
    """Start the command, send `signum` once a child works (to its process group, as a
    terminal's Ctrl-C does, or to the command alone, as `kill` does), and `then` to the
    command alone once it says it stops its child ("STOPPING"); its exit code, what else it
    said on stderr after the child began to work, and its children's ids."""
    out = tmp_path / "out"
    probe = UNDER_WAY.format(out=str(out), patch=patch, args=[*args, "--out", str(out)])
    with subprocess.Popen(
        [sys.executable, "-c", probe],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        cwd=tmp_path,
        start_new_session=True,  # a process group of its own: the terminal's, as it were
    ) as command:
        assert command.stderr is not None
        children = []
        try:
            working = None
            for line in command.stderr:
                word, _, pid = line.partition(" ")
                if word == "CHILD":
                    children.append(int(pid))
                elif word == "WORKING":
                    working = int(pid)
                else:
                    pytest.fail(f"before any child worked: {line}{command.stderr.read()}")
                if working in children:  # its fork said too (maybe after it began to work)
                    break
            if group:
                os.killpg(command.pid, signum)
            else:
                command.send_signal(signum)
            said = []
            if then is not None:
                for line in command.stderr:
                    if line.startswith("STOPPING"):
                        command.send_signal(then)
                        break
                    said.append(line.rstrip("\n"))
            said += command.stderr.read().splitlines()
            code = command.wait(timeout=60)
        finally:
            if command.poll() is None:  # a test that failed: no process left behind by it
                os.killpg(command.pid, signal.SIGKILL)
    left = [p.pid for p in psutil.process_iter() if _session(p) == command.pid]
    assert left == [], "processes of the command still there"
    return code, said, children


def _session(process: psutil.Process) -> int | None:
    try:
        return os.getsid(process.pid)
    except OSError:  # gone meanwhile
        return None


def _written(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*")) if out.exists() else []


#: Each way a command is stopped: Ctrl-C (its process group, as a terminal sends it) and kill
#: (SIGTERM, to the command alone); what it says then.
STOPPED = pytest.mark.parametrize(
    ("signum", "group", "said"),
    [(signal.SIGINT, True, "refuge: interrupted"), (signal.SIGTERM, False, "refuge: terminated")],
)


@posix
@pytest.mark.parametrize(
    ("patch", "signum", "group", "then", "said"),
    [
        # Ctrl-C: the command and its child
        pytest.param(RUN, signal.SIGINT, True, None, "refuge: interrupted", id="ctrl-c"),
        # kill: the command alone
        pytest.param(RUN, signal.SIGTERM, False, None, "refuge: terminated", id="kill"),
        # with signal.SIG_IGN for the second signal, the child said "Signal 15 ignored due to
        # race condition" here, a traceback in the midst of its unwinding
        pytest.param(
            RUN + TOLD_TWICE_AT_ONCE,
            signal.SIGINT,
            True,
            None,
            "refuge: interrupted",
            id="the-child-told-twice-at-once",
        ),
        # with SIG_DFL for the second signal, the command was ended by it (-15) while its
        # child still unwound, and left its temporary folder
        pytest.param(
            RUN + SLOW_TO_UNWIND,
            signal.SIGINT,
            False,
            signal.SIGTERM,
            "refuge: interrupted",
            id="kill-then-terminated-as-it-unwinds",
        ),
    ],
)
def test_a_run_stopped_says_one_line_and_leaves_no_child_nor_file(
    tmp_path: Path, patch: str, signum: int, group: bool, then: int | None, said: str
) -> None:
    args = ["run", str(TINY), "--replications", "4"]
    stopped = _interrupted(tmp_path, patch, args, signum=signum, group=group, then=then)
    code, lines, children = stopped
    assert (code, lines) == (128 + signum, [said])
    assert len(children) == 1
    assert not any(psutil.pid_exists(pid) for pid in children)
    assert _written(tmp_path / "out") == []  # neither the run's files nor the child's file
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # nor the run's temporary folder


@posix
@STOPPED
def test_a_demo_stopped_says_one_line_and_leaves_no_child_nor_half_a_file(
    tmp_path: Path, signum: int, group: bool, said: str
) -> None:
    args = ["demo", "--scenario", str(TINY)]
    code, lines, children = _interrupted(tmp_path, DEMO, args, signum=signum, group=group)
    assert (code, lines) == (128 + signum, [said])
    assert len(children) == 2  # the HTML map's, the GeoPackage's and PNG's
    assert not any(psutil.pid_exists(pid) for pid in children)
    written = _written(tmp_path / "out")
    assert [name for name in written if ".part" in name] == []  # the children unwound
    assert "map.png" not in written
    assert {".refuge-map.json", "cities.csv", "network.gpkg"} <= set(written)
    # the run's folder, written while the children draw, is there whole or not at all
    run = {name for name in written if name.startswith("run")}
    assert not run or {"run", *(f"run/{name}" for name in (MARKER, *RUN_FILES))} <= run


@posix
@STOPPED
def test_the_explorer_stopped_says_one_line_though_a_browser_holds_a_connection(
    tmp_path: Path, signum: int, group: bool, said: str
) -> None:
    pytest.importorskip("uvicorn")
    script = "from refuge_map.console import script; script()"
    with subprocess.Popen(
        [sys.executable, "-c", script, "explore", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        start_new_session=True,
    ) as server:
        assert server.stdout is not None
        try:
            line = server.stdout.readline()  # once it listens
            assert line.startswith("refuge explore: open http://127.0.0.1:"), line
            address = urlsplit(line.split("open ", 1)[1].split()[0])
            browser = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
            browser.request("GET", "/")  # the connection kept open after, as a browser's is
            assert browser.getresponse().status == 200
            if group:
                os.killpg(server.pid, signum)
            else:
                server.send_signal(signum)
            out, err = server.communicate(timeout=60)
            browser.close()
        finally:
            if server.poll() is None:  # a test that failed: no server left behind by it
                os.killpg(server.pid, signal.SIGKILL)
    assert (server.returncode, out, err) == (128 + signum, "", f"{said}\n")
    assert list(tmp_path.iterdir()) == []


#: A command whose children at work aside (`_aside.aside`) are deaf to being told to stop:
#: each says "WORKING pid" (on the pipe `ready` too) and "TOLD pid" when told, and works on;
#: the command says "KILL pid" when it kills one.
DEAF = """\
import os, signal, sys, time
from refuge_map import _aside, _signals
def say(word, pid):  # in one write: the children and this process say it on one pipe
    os.write(2, f"{word} {pid}\\n".encode())
kill = os.kill
def killing(pid, signum):
    if signum == signal.SIGKILL:
        say("KILL", pid)
    kill(pid, signum)
os.kill = killing
ready, working = os.pipe()
def deaf():
    signal.signal(signal.SIGTERM, lambda *_: say("TOLD", os.getpid()))
    say("WORKING", os.getpid())
    os.write(working, b"1")
    time.sleep(600)
_signals.stop_on_signals()
"""

#: Two such children, and the command interrupted while both work.
DEAF_TWINS = (
    DEAF
    + """\
try:
    with _aside.aside(deaf, spare=True) as first, _aside.aside(deaf, spare=True) as second:
        time.sleep(600)
except _signals.Interrupted as stop:
    say(stop, os.getpid())
"""
)

#: A Ctrl-C that comes while the child is forked (held, it is delivered as the fork is
#: recorded), before the block of its `aside` has begun.
DEAF_AND_INTERRUPTED_AT_ITS_FORK = (
    DEAF
    + """\
fork = os.fork
def forked():
    pid = fork()
    if pid:  # once the child works (deaf by then): the Ctrl-C is held until it is recorded
        os.read(ready, 1)
        os.kill(os.getpid(), signal.SIGINT)
    return pid
os.fork = forked
try:
    with _aside.aside(deaf, spare=True):
        time.sleep(600)
except _signals.Interrupted as stop:
    say(stop, os.getpid())
"""
)


def said_by(
    script: str, *, children: int, interrupt: bool = True
) -> tuple[set[int], list[tuple[str, ...]]]:
    """Run `script`, wait for its `children` to work, `interrupt` it (Ctrl-C: SIGINT; not
    where the script interrupts itself), and read what it and its children said (words and
    process ids) until the last of them has left; whatever is left after a minute is killed
    (the test fails)."""
    with subprocess.Popen(
        [sys.executable, "-c", script],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, to be killed whole if need be
    ) as command:
        assert command.stderr is not None
        stderr, said = command.stderr, []
        reader = threading.Thread(target=lambda: said.extend(stderr.read().split("\n")))
        try:
            working = [stderr.readline() for _ in range(children)]
            assert all(line.startswith("WORKING") for line in working), working
            if interrupt:
                command.send_signal(signal.SIGINT)
            reader.start()
            reader.join(timeout=60)  # the pipe is held open by every process left
            assert not reader.is_alive(), "a process still there a minute after the Ctrl-C"
            command.wait(timeout=60)
        finally:
            with suppress(ProcessLookupError):  # none left behind by a test that failed
                os.killpg(command.pid, signal.SIGKILL)
            if reader.is_alive():
                reader.join()
    return {int(line.split()[1]) for line in working}, [
        tuple(line.split(" ")) for line in said if line
    ]


@posix
def test_an_interrupted_command_tells_all_its_children_to_stop_before_it_kills_one() -> None:
    children, words = said_by(DEAF_TWINS, children=2)
    killed = [int(pid) for word, pid in words if word == "KILL"]
    # each told before either is killed: both given their grace at once, not one after the other
    told = {int(pid) for word, pid in words[: words.index(("KILL", str(killed[0])))]}
    assert (told, set(killed), words[-1][0]) == (children, children, "interrupted")


@posix
def test_a_command_interrupted_as_it_forks_a_child_stops_that_child() -> None:
    children, words = said_by(DEAF_AND_INTERRUPTED_AT_ITS_FORK, children=1, interrupt=False)
    (child,) = children
    told = [("TOLD", str(child))] * words.count(("TOLD", str(child)))
    assert told and words == [*told, ("KILL", str(child)), ("interrupted", words[-1][1])], words
