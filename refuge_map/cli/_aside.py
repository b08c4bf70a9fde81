"""Work done aside, in a forked child process, while the command goes on in this one.

`refuge demo` draws its PNG aside while it builds the HTML map: the two drawings take about a
second each and share nothing, so on two cores the command waits for one of them, not both.
The child is a fork, so it starts at once with everything already loaded (the network, the
run's files); it writes its file itself (atomically, as it would here) and sends back only
its small result.

Where there is no fork (not POSIX) or other threads run (a fork would copy their locks held),
the work is done here when its result is asked for, as it always was.
"""

from __future__ import annotations

import gc
import os
import pickle
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Generic, TypeVar

T = TypeVar("T")


class Aside(Generic[T]):
    """A piece of work under way in a child process (`aside`): ask for its `result`.

    Parameters
    ----------
    work
        The work, a call without arguments whose result pickles.
    """

    def __init__(self, work: Callable[[], T]) -> None:
        self._work = work
        self._pid: int | None = None
        self._pipe: int | None = None
        if hasattr(os, "fork") and threading.active_count() == 1:
            self._start()

    def _start(self) -> None:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: do the work, send its result, leave without finalization
            code = 1
            try:
                os.close(read)
                gc.freeze()  # the parent's objects are no garbage: not scanned, not copied
                payload = pickle.dumps(self._work())
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(payload)
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        self._pid, self._pipe = pid, read

    def result(self) -> T:
        """The work's result, once the child is done; where the child failed (or there was
        none), the work done here, so that its error is raised here as any command's is."""
        payload = self._collect()
        if payload is not None:
            with suppress(Exception):  # any doubt about what came back: do the work here
                done: T = pickle.loads(payload)
                return done
        return self._work()

    def _collect(self) -> bytes | None:
        """Wait for the child; what it sent if it finished well, else None (None too where
        there was no child, or it was collected already)."""
        if self._pid is None or self._pipe is None:
            return None
        pid, pipe = self._pid, self._pipe
        self._pid = self._pipe = None
        with os.fdopen(pipe, "rb") as reader:
            payload = reader.read()
        _, status = os.waitpid(pid, 0)
        return payload if os.waitstatus_to_exitcode(status) == 0 and payload else None


@contextmanager
def aside(work: Callable[[], T]) -> Iterator[Aside[T]]:
    """Start `work` in a child process; within the block, ask for its `Aside.result`.

    Leaving the block (by an error too) waits for the child: none is left running, nor its
    file half-written, after the command.
    """
    pending = Aside(work)
    try:
        yield pending
    finally:
        pending._collect()
