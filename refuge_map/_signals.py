"""Signals that stop a command (SIGINT: Ctrl-C; SIGTERM: a process manager's stop), raised as
an exception, `Interrupted`, so that what is under way unwinds as it does from an error: a
file being written is removed (`refuge_map._atomic`), children are stopped and reaped
(`refuge_map._aside`), and the command says one line (`refuge_map.cli.main`).

Without it, SIGTERM ended the process where it stood (a temporary output left behind, a
forked child orphaned and still working), and Ctrl-C was a KeyboardInterrupt, which click
turns into its ``Abort`` after printing an empty line.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType

#: The signals that stop a command, and the word a command says of each.
STOPPING = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}

#: What a signal handler may be set to: a function, or `signal.SIG_DFL` / `signal.SIG_IGN`.
Disposition = Callable[[int, FrameType | None], object] | int | signal.Handlers


class Interrupted(BaseException):
    """The command was stopped by a signal (`STOPPING`).

    A BaseException, as KeyboardInterrupt is, so that no ``except Exception`` of the work
    takes it for a failure to make up for; not a KeyboardInterrupt, so that click lets it
    through to `refuge_map.cli.main`, which says one line and exits with `exit_code`.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(STOPPING[signal.Signals(signum)])
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """128 + the signal's number: what a shell reports of a process the signal ended
        (130 for Ctrl-C)."""
        return 128 + self.signum


def stop_on_signals(*, then: Disposition = signal.SIG_DFL) -> None:
    """From now on, the first of the `STOPPING` signals raises `Interrupted` (in the main
    thread); a later one meets `then`.

    Parameters
    ----------
    then
        What a second signal does while the first unwinds: `signal.SIG_DFL` (the command's
        own process: a second Ctrl-C ends it at once, should the unwinding hang) or
        `unheeded` (a forked child, which its parent also tells to stop: it finishes
        unwinding, or is killed).

    Raises
    ------
    ValueError
        If called from another thread than the main thread (`signal.signal`).
    """

    def interrupt(signum: int, frame: FrameType | None) -> None:
        for stopping in STOPPING:
            signal.signal(stopping, then)
        raise Interrupted(signum)

    for signum in STOPPING:
        signal.signal(signum, interrupt)


def unheeded(signum: int, frame: FrameType | None) -> None:
    """A handler that does nothing: a forked child's for the signals after the first
    (`stop_on_signals`).

    Not `signal.SIG_IGN`: a terminal's Ctrl-C and the parent's SIGTERM reach a child together,
    both noted by the interpreter before the first one's handler runs; with SIG_IGN set by
    then, CPython raises an ``OSError`` ("Signal 15 ignored due to race condition") wherever
    the child is, in the midst of its unwinding (in the ``finally`` that removes a half-written
    file, say), and prints its traceback.
    """


def hold() -> set[int | signal.Signals]:
    """Block the `STOPPING` signals in this thread (one that comes waits, pending); the mask
    before, for `release`."""
    return signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)


def release(mask: set[int | signal.Signals]) -> None:
    """Restore the signal mask `hold` returned: a signal held meanwhile is delivered now."""
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
