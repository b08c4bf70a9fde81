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
"""

from __future__ import annotations

import gc
import os
import pickle
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Generic, TypeVar

T = TypeVar("T")

#: The parent's write ends of the gates of children still waiting for `Aside.go`. A child
#: forked later inherits them and closes them at once: held open in it, a gate closed by the
#: parent (give up) would never reach its own child as an end of file, and that child would wait.
_OPEN_GATES: set[int] = set()


def can_fork() -> bool:
    """Whether a child can be forked here: the system has fork, and no other thread runs (a
    fork would copy the locks it holds)."""
    return hasattr(os, "fork") and threading.active_count() == 1


def spare_core() -> bool:
    """Whether a core is free for a child: at least half a core of the machine was idle, on
    average, since the watch began (`idle_cores`: for a command, while its own imports
    loaded), or, where that was not watched for long enough (or there is no
    ``/proc/stat``), the load (the last minute's average of runnable processes, this one among
    them) leaves half a core idle.

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


#: When the machine's watch began (`time.monotonic`) and its idle seconds then (`watch`).
_watch = (time.monotonic(), _idle_seconds())


def watch() -> None:
    """Begin watching the machine's idle time now (`idle_cores`); it began when this module
    was imported. The console script begins at once, so that its imports are watched."""
    global _watch
    _watch = (time.monotonic(), _idle_seconds())


def idle_cores() -> float | None:
    """How many cores were idle on average since the watch began (`watch`), or None where
    the machine was watched for less or more than `WATCHED_S` or cannot be watched."""
    began, idle_then = _watch
    idle_now, elapsed = _idle_seconds(), time.monotonic() - began
    if idle_then is None or idle_now is None or not WATCHED_S[0] <= elapsed <= WATCHED_S[1]:
        return None
    return (idle_now - idle_then) / elapsed


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
        self._wanted = spare
        if not later:
            self.start()

    def start(self) -> None:
        """Fork the child (once: later calls do nothing), where a child can be forked
        (`can_fork`) and a core is spare for it."""
        wanted, self._wanted = self._wanted, False
        if wanted is not False and can_fork() and (wanted or spare_core()):
            self._start(self._prepare)

    def _start(self, prepare: Callable[[], object] | None) -> None:
        read, write = os.pipe()
        gate_read, gate = os.pipe() if prepare is not None else (None, None)
        try:
            pid = os.fork()
        except OSError:  # no child to be had (a limit of processes, of memory): work here
            for end in (read, write, gate_read, gate):
                if end is not None:
                    os.close(end)
            return
        if pid == 0:  # the child: do the work, send its result, leave without finalization
            code = 1
            try:
                os.close(read)
                for inherited in _OPEN_GATES:
                    os.close(inherited)
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
        os.close(write)
        if gate_read is not None and gate is not None:
            os.close(gate_read)
            _OPEN_GATES.add(gate)
        self._pid, self._pipe, self._gate = pid, read, gate

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
        """The work's result, once the child is done; where the child failed (or there was
        none), the work done here, so that its error is raised here as any command's is."""
        self.go()
        payload = self._collect()
        if payload is not None:
            with suppress(Exception):  # any doubt about what came back: do the work here
                done: T = pickle.loads(payload)
                return done
        return self._work()

    def _collect(self) -> bytes | None:
        """Wait for the child; what it sent if it finished well, else None (None too where
        there was no child, or it was collected already)."""
        self._wanted = False  # asked for: too late to start a child
        self._close_gate()  # not told to go: it leaves without working
        if self._pid is None or self._pipe is None:
            return None
        pid, pipe = self._pid, self._pipe
        self._pid = self._pipe = None
        with os.fdopen(pipe, "rb") as reader:
            payload = reader.read()
        _, status = os.waitpid(pid, 0)
        return payload if os.waitstatus_to_exitcode(status) == 0 and payload else None


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

    Leaving the block (by an error too) waits for the child: none is left running, nor its
    file half-written, after the command.
    """
    pending = Aside(work, prepare=prepare, spare=spare, later=later)
    try:
        yield pending
    finally:
        pending._collect()
