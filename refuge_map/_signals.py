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
import time
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


#: How long a command has to unwind from the first of the `STOPPING` signals before a later
#: one ends it at once (seconds; `insisting`): its children's grace (`_aside.STOP_GRACE_S`,
#: 2 s: they are all told to stop together) and a second more. It unwinds in milliseconds
#: where nothing hangs.
UNWINDING_S = 3.0
#: When the first of the `STOPPING` signals came (`time.monotonic`; `stop_on_signals`).
_first_at = 0.0
#: How soon a signal that came while a finalizer ran comes again (seconds; `_again`): the
#: finalizers seen (llvmlite's, disposing of what numba loaded) return in microseconds.
AGAIN_S = 0.005


def stop_on_signals(*, then: Disposition | None = None) -> None:
    """From now on, the first of the `STOPPING` signals raises `Interrupted` (in the main
    thread); a later one meets `then`.

    Parameters
    ----------
    then
        What a later signal does while the first unwinds: `insisting` (None; the command's
        own process: a second Ctrl-C ends it at once, should the unwinding hang, but does not
        cut a prompt unwinding short) or `unheeded` (a forked child, which its parent also
        tells to stop: it finishes unwinding, or is killed).

    Raises
    ------
    ValueError
        If called from another thread than the main thread (`signal.signal`).
    """
    later = insisting if then is None else then

    def interrupt(signum: int, frame: FrameType | None) -> None:
        global _first_at
        if _in_finalizer(frame):
            _again(signum)
            return
        _first_at = time.monotonic()
        for stopping in STOPPING:
            signal.signal(stopping, later)
        raise Interrupted(signum)

    for signum in STOPPING:
        signal.signal(signum, interrupt)


def _in_finalizer(frame: FrameType | None) -> bool:
    """Whether the signal came while a ``__del__`` ran: CPython prints what a finalizer raises
    ("Exception ignored in: ...") and goes on, so an `Interrupted` raised there would be lost
    (a Ctrl-C to a run loading numba's kernels printed llvmlite's traceback, and the run went
    on to the end, exit 0)."""
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _again(signum: int) -> None:
    """Have `signum` come again in `AGAIN_S`, once the finalizer it came in has returned (by
    SIGALRM, whose handler raises it: no thread, which a fork would not carry)."""

    def again(alarm: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.raise_signal(signum)

    signal.signal(signal.SIGALRM, again)
    signal.setitimer(signal.ITIMER_REAL, AGAIN_S)


def insisting(signum: int, frame: FrameType | None) -> None:
    """A command's handler for the signals after the first (`stop_on_signals`): one that
    comes within `UNWINDING_S` of the first is not heeded; a later one ends the process at
    once (the signal's default action: exit 128 + its number, nothing more unwound).

    Not `signal.SIG_DFL` at once: a supervisor's SIGTERM that follows a Ctrl-C by a few
    milliseconds ended the command in the midst of its unwinding, before it had told its
    children to stop (they worked on, orphaned, and wrote their files into an output the
    command had given up) or removed its temporary folder; and one that came with the first,
    before its handler ran, made CPython print "Signal 15 ignored due to race condition"
    (see `unheeded`).
    """
    if time.monotonic() - _first_at < UNWINDING_S:
        return
    signal.signal(signum, signal.SIG_DFL)
    signal.raise_signal(signum)


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
