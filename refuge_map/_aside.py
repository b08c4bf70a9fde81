"""Work done aside, in a forked child process, while the command goes on in this one.

`refuge demo` draws its PNG aside while it builds the HTML map: the two drawings take about a
second each and share nothing, so on two cores the command waits for one of them, not both.
The child is a fork, so it starts at once with everything already loaded (the network); it
writes its file itself (atomically, as it would here) and sends back only its small result.
A child can be started early, to `prepare` (import what its work needs) while this process
still works on what the work will read, and be told to `Aside.go` on once that is written;
or be started later (`Aside.start`), once this process has loaded what the child should inherit.

Where there is no fork (not POSIX, or the system refuses one), other threads run (a fork
would copy their locks held) or no core is spare (`spare_core`: the children would only slow
this process down), the work is done here when its result is asked for, as it always was.

A child that fails (an error, a crash, killed) is noticed by the end of its pipe, and its work
is done here, quietly: the result is the same. A child that has not finished in time (`patience`)
is stopped, and its work done here too. A command interrupted (`refuge_map._signals`) stops its
children at once and reaps them; each one unwinds, so that no file it was writing is left.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Generic, NoReturn, TypeVar

from refuge_map import _signals

T = TypeVar("T")

#: The parent's write ends of the gates of children still waiting for `Aside.go`. A child
#: forked later inherits them and closes them at once: held open in it, a gate closed by the
#: parent (give up) would never reach its own child as an end of file, and that child would wait.
_OPEN_GATES: set[int] = set()
#: The process ids of this process's children not reaped yet (so each still names the child,
#: whether it is at work or has left: the system gives it to no other process meanwhile).
_CHILDREN: set[int] = set()


def can_fork() -> bool:
    """Whether a child can be forked here: the system has fork, and no other thread runs (a
    fork would copy the locks it holds)."""
    return hasattr(os, "fork") and threading.active_count() == 1


def spare_core() -> bool:
    """Whether a core is free for a child: at least half a core of the machine was idle, on
    average, since the watch began (`idle_cores`: for a command, while its own imports
    loaded; the cores its own children kept busy count as idle), or, where that was not
    watched for long enough (or there is no ``/proc/stat``), the load (the last minute's
    average of runnable processes, this one among them) leaves half a core idle.

    On a busy machine (measured at a load of 3-6 on two cores) the children competed with this
    process and with each other: the command took longer, not shorter. The last minute's load
    alone lags: it still counts the command a user ran just before (a second `make demo` right
    after the first was refused its children, and took 6.7 s instead of 4.3)."""
    cores = os.cpu_count() or 1
    if cores < 2:
        return False
    idle = idle_cores()
    if idle is not None:
        return idle >= 0.5
    return os.getloadavg()[0] <= cores - 0.5


#: How long the machine must have been watched for its idle time to tell (seconds): shorter,
#: a moment's pause of another process would look like a free core; longer (a notebook's
#: session), the average would be of a machine long gone.
WATCHED_S = (0.25, 60.0)


def _idle_seconds() -> float | None:
    """The machine's idle time since boot, summed over its cores (seconds: ``/proc/stat``'s
    idle and iowait), or None where the system has no ``/proc/stat``."""
    try:
        with open("/proc/stat", "rb") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    return (int(fields[4]) + int(fields[5])) / os.sysconf("SC_CLK_TCK")


def _children_seconds() -> float:
    """The CPU seconds this process's children have used: those reaped (`os.times`) and those
    not yet (``/proc/PID/stat``: 0 for one whose file cannot be read)."""
    times = os.times()
    ticks = 0
    for pid in _CHILDREN:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                # after the name (in parentheses, which may hold spaces): utime, stime at 11, 12
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])
    reaped = times.children_user + times.children_system
    # no child read: no sysconf asked (there is none where no child can be forked)
    return reaped + (ticks / os.sysconf("SC_CLK_TCK") if ticks else 0.0)


def _watch_now() -> tuple[float, float | None, float]:
    """`watch`'s marks: now (`time.monotonic`), the machine's idle seconds and this process's
    children's CPU seconds."""
    return time.monotonic(), _idle_seconds(), _children_seconds()


#: When the machine's watch began, its idle seconds and the children's CPU seconds then.
_watch = _watch_now()


def watch() -> None:
    """Begin watching the machine's idle time now (`idle_cores`); it began when this module
    was imported. The console script begins at once, so that its imports are watched."""
    global _watch
    _watch = _watch_now()


def idle_cores() -> float | None:
    """How many cores were idle on average since the watch began (`watch`), or None where
    the machine was watched for less or more than `WATCHED_S` or cannot be watched.

    The cores this process's own children kept busy count as idle: they do the command's work,
    as a child forked now would. `refuge demo` forks its two drawing children before its run,
    which counted them as the machine's load and was refused a child for half its
    replications on an idle machine; splitting them beside the drawing children took 4.46 s
    against 4.98 s (median of 8 interleaved demos each, load 1.5-1.9)."""
    began, idle_then, children_then = _watch
    idle_now, elapsed = _idle_seconds(), time.monotonic() - began
    if idle_then is None or idle_now is None or not WATCHED_S[0] <= elapsed <= WATCHED_S[1]:
        return None
    return (idle_now - idle_then + _children_seconds() - children_then) / elapsed


#: The least time a child is waited for once its result is asked for (seconds; `Aside.patience`).
#: The demo's children have the most left to do then (the HTML map finished, the PNG drawn:
#: 0.5-1.2 s on an idle machine, the tiny scenario or the default); ten seconds leave them
#: several times that on a busy machine. A child later than this is stopped and its work done
#: here: the same result, that much later.
MIN_PATIENCE_S = 10.0
#: How long a child told to stop (SIGTERM) has to unwind and leave before it is killed
#: (seconds). Its Python code unwinds in milliseconds once the call it is in returns (a step
#: of the flight kernels, a layer written, a PNG saved: under half a second); a child still
#: there after this is stuck where no signal reaches its Python code (a lock it will never get).
STOP_GRACE_S = 2.0
#: How often a child that is leaving is looked at until it has left (seconds).
_LEAVING_POLL_S = 0.001


class Aside(Generic[T]):
    """A piece of work under way in a child process (`aside`): ask for its `result`.

    Parameters
    ----------
    work
        The work, a call without arguments whose result pickles.
    prepare
        Done in the child at once (e.g. imports); the work then waits for `go`. Without it
        the work starts at once.
    spare
        Whether a core is spare for the child (None: `spare_core` tells); False: the work is
        done here.
    later
        Fork the child only when told to `start` (not at once).
    """

    def __init__(
        self,
        work: Callable[[], T],
        *,
        prepare: Callable[[], object] | None = None,
        spare: bool | None = None,
        later: bool = False,
    ) -> None:
        self._work = work
        self._prepare = prepare
        self._pid: int | None = None
        self._pipe: int | None = None
        self._gate: int | None = None
        self._forked_at = 0.0  # `time.monotonic` when the child was forked
        self._wanted = spare
        if not later:
            self.start()

    def start(self) -> None:
        """Fork the child (once: later calls do nothing), where a child can be forked
        (`can_fork`) and a core is spare for it."""
        wanted, self._wanted = self._wanted, False
        if wanted is not False and can_fork() and (wanted or spare_core()):
            self._start(self._prepare)

    @property
    def working(self) -> bool:
        """Whether a child was forked and its result not yet asked for (this process's cores
        are then shared with it)."""
        return self._pid is not None

    def _start(self, prepare: Callable[[], object] | None) -> None:
        read, write = os.pipe()
        gate_read, gate = os.pipe() if prepare is not None else (None, None)
        # Held (in this thread) until each process is ready for them: the child with its own
        # handlers, this one with the child recorded (an interrupt then stops it). Where other
        # threads of C run (Arrow's pool), one of them may take a signal meanwhile, and this
        # process be interrupted between the fork and the record: its child then finds its
        # pipe closed when this process has left, and leaves too.
        held = _signals.hold()
        try:
            pid = os.fork()
        except OSError:  # no child to be had (a limit of processes, of memory): work here
            _signals.release(held)
            for end in (read, write, gate_read, gate):
                if end is not None:
                    os.close(end)
            return
        if pid == 0:
            self._live(read, write, gate_read, gate, prepare, held)
        self._pid, self._pipe, self._gate = pid, read, gate
        _CHILDREN.add(pid)
        self._forked_at = time.monotonic()
        try:
            os.close(write)
            if gate_read is not None and gate is not None:
                os.close(gate_read)
                _OPEN_GATES.add(gate)
        finally:
            _signals.release(held)

    def _live(
        self,
        read: int,
        write: int,
        gate_read: int | None,
        gate: int | None,
        prepare: Callable[[], object] | None,
        held: set[int | signal.Signals],
    ) -> NoReturn:
        """The child's life: prepare, wait at the gate, do the work, send its result through
        `write`, and leave without finalization. Told to stop (SIGTERM from its parent, or
        Ctrl-C), it unwinds once (`_signals.Interrupted`: a file it writes is removed) and
        ignores any signal after."""
        code = 1
        try:
            _signals.stop_on_signals(then=_signals.unheeded)
            _signals.release(held)
            os.close(read)
            for inherited in _OPEN_GATES:
                os.close(inherited)
            _CHILDREN.clear()  # its parent's: not its own to stop
            gc.freeze()  # the parent's objects are no garbage: not scanned, not copied
            if prepare is not None and gate_read is not None and gate is not None:
                os.close(gate)
                prepare()
                if not os.read(gate_read, 1):  # the parent gave up: no work to do
                    os._exit(1)
            payload = pickle.dumps(self._work())
            with os.fdopen(write, "wb") as pipe:
                pipe.write(payload)
            code = 0
        finally:
            os._exit(code)

    def _close_gate(self) -> None:
        """Close this process's end of the gate (told to go or not: no more to say)."""
        if self._gate is not None:
            _OPEN_GATES.discard(self._gate)
            os.close(self._gate)
            self._gate = None

    def go(self) -> None:
        """Let a child that prepared start its work (what it reads is ready)."""
        if self._gate is not None:
            with suppress(OSError):  # a child that died already: `result` does the work here
                os.write(self._gate, b"1")
            self._close_gate()

    def result(self) -> T:
        """The work's result, once the child is done; where the child failed, was late
        (`patience`) or there was none, the work done here, so that its error is raised here
        as any command's is."""
        self.go()
        payload = self._collect()
        if payload is not None:
            with suppress(Exception):  # any doubt about what came back: do the work here
                done: T = pickle.loads(payload)
                return done
        return self._work()

    def patience(self) -> float:
        """How long, from now, the child's result is waited for (seconds): as long again as
        the child has lived, and `MIN_PATIENCE_S` at least.

        An assumption: a child's work takes no longer than this process's work beside it.
        `model.replicate` balances the two (`simulation.split.balanced`: its child should be
        done when its rows are asked for); `refuge demo`'s children prepare while the run
        goes on here, and have less left after it than the run took. A child twice as slow (a
        busy machine) is still waited for; one later than that (hung) is stopped, and its
        work done here, which takes about what this process's took: the command then lasts
        at most some three times as long as it would have, and gives the same result.
        """
        return max(MIN_PATIENCE_S, time.monotonic() - self._forked_at)

    def _collect(self) -> bytes | None:
        """Wait for the child (`patience`); what it sent if it finished well, else None
        (None too where there was no child, or it was collected already). A child still at
        work by then is stopped (`_end`), as one is when the wait is interrupted."""
        taken = self._take()
        if taken is None:
            return None
        pid, pipe = taken
        try:
            payload = _read_to_end(pipe, by=time.monotonic() + self.patience())
            code = None if payload is None else _exit_code(pid, by=time.monotonic() + STOP_GRACE_S)
        except BaseException:  # interrupted while waiting: the child is not left behind
            _end(pid)
            raise
        finally:
            os.close(pipe)
        if code is None:
            _end(pid)
        return payload if code == 0 and payload else None

    def _stop(self) -> None:
        """Stop the child at once, if there is one to collect, and reap it (`_end`); every
        other child of this process is told to stop first, so that they all unwind together
        (the command is interrupted: each one's `aside` then stops and reaps it in turn, and
        finds it gone or leaving; a child deaf to being told is killed after `STOP_GRACE_S`,
        not after that many times the number of children)."""
        taken = self._take()
        if taken is not None:
            pid, pipe = taken
            os.close(pipe)
            for child in _CHILDREN:
                with suppress(ProcessLookupError):  # reaped elsewhere (a wait for any child)
                    os.kill(child, signal.SIGTERM)
            _end(pid)

    def _take(self) -> tuple[int, int] | None:
        """The child's process id and this process's end of its pipe, once (None where there
        was no child, or it was taken already); too late then to start one or to tell it to
        go (a child at the gate leaves without working)."""
        self._wanted = False
        self._close_gate()
        if self._pid is None or self._pipe is None:
            return None
        taken = self._pid, self._pipe
        self._pid = self._pipe = None
        return taken


def _read_to_end(pipe: int, *, by: float) -> bytes | None:
    """All that comes through `pipe` until its other end is closed (the child sent its
    result and left, or died), or None if it is still open at `by` (`time.monotonic`)."""
    import selectors  # here: every command imports this module, few fork a child

    chunks: list[bytes] = []
    with selectors.DefaultSelector() as ready:
        ready.register(pipe, selectors.EVENT_READ)
        while True:
            left = by - time.monotonic()
            if left <= 0 or not ready.select(left):
                return None
            chunk = os.read(pipe, 1 << 16)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def _exit_code(pid: int, *, by: float) -> int | None:
    """The child's exit code (`os.waitstatus_to_exitcode`) once it has left, reaped then; -1
    if it was reaped already; None if it is still there at `by` (`time.monotonic`)."""
    while True:
        try:
            left, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            _CHILDREN.discard(pid)
            return -1
        if left:
            _CHILDREN.discard(pid)
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() >= by:
            return None
        time.sleep(_LEAVING_POLL_S)


def _end(pid: int) -> None:
    """Stop a child no longer waited for, and reap it: told to stop (SIGTERM), it unwinds, so
    that no file it was writing is left (`refuge_map._atomic`), and leaves; one still there
    after `STOP_GRACE_S` is killed. A child that has left already is only reaped: a process id
    is signalled only while it is still this process's unreaped child, never one the system
    gave another.

    What a killed child was writing (``.NAME.XXXXXXXX.part...``) is removed by the next write
    of that output (`refuge_map._atomic.atomic_file`): at once where its work is then done
    here (`Aside.result`), at the next command where this one was interrupted. Not here: a
    temporary name does not say who writes it, and beside the child this process or another
    child may be writing into the same folder (the demo's two children and the command all
    write into ``--out``)."""
    if _exit_code(pid, by=0.0) is not None:
        return
    os.kill(pid, signal.SIGTERM)
    if _exit_code(pid, by=time.monotonic() + STOP_GRACE_S) is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        _CHILDREN.discard(pid)


@contextmanager
def aside(
    work: Callable[[], T],
    *,
    prepare: Callable[[], object] | None = None,
    spare: bool | None = None,
    later: bool = False,
) -> Iterator[Aside[T]]:
    """Start `work` in a child process (after `prepare`, once told to `Aside.go`; with
    `later`, once told to `Aside.start`; `spare`: see `Aside`); within the block, ask for its
    `Aside.result`.

    Leaving the block by an error waits for the child (`Aside.patience`), so that a file it
    writes is finished; leaving it interrupted (`refuge_map._signals.Interrupted`,
    KeyboardInterrupt, SystemExit) stops the child at once. Either way none is left running,
    nor its file half-written, after the command.
    """
    pending = Aside(work, prepare=prepare, spare=spare, later=True)
    try:
        # Forked within the ``try``: a signal held through the fork is delivered as the
        # child is recorded (`Aside._start`), and the block then stops it. Forked before
        # it, that child was never stopped, and worked on, orphaned.
        if not later:
            pending.start()
        yield pending
    except Exception:
        pending._collect()
        raise
    except BaseException:
        pending._stop()
        raise
    pending._collect()
