"""Give back to the system the memory a large run's flight freed, before its tables are built.

The flight of a million incidents allocates and frees some hundreds of megabytes of working
arrays; the C allocator (glibc's) keeps much of that freed memory in its heap, so the process
holds it while the tables grow on top. `release_freed` asks the allocator to return it
(``malloc_trim``); where there is none (not glibc), it does nothing.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import cache

#: Incidents from which a run's freed memory is worth returning (a few milliseconds' work).
LARGE_RUN = 100_000


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` from the running process's libraries, or None without it."""
    trim: Callable[[int], int] | None = getattr(ctypes.CDLL(None), "malloc_trim", None)
    return trim


def release_freed(incidents: int) -> None:
    """Return the memory the allocator holds free to the system, for a run of `incidents`
    of at least `LARGE_RUN` (smaller runs hold too little to matter)."""
    trim = _malloc_trim()
    if incidents >= LARGE_RUN and trim is not None:
        trim(0)
